package organization

import (
	"time"

	"github.com/docspub/platform/libs/internalapi/identityapi"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/identity/internal/access"
)

// URLs are the bases of the URLs that resources report.
type URLs struct {
	Public string // the gateway: base of urls.location (Public + "/v1/...")
	App    string // the web app: base of urls.app
}

// Location is the API URL of a path under /v1.
func (u URLs) Location(path string) string { return u.Public + "/v1" + path }

// RoleJSON renders a role that may be a guest's: null for a guest.
func RoleJSON(r roles.Role) *roles.Role {
	if r == roles.Guest {
		return nil
	}
	return &r
}

// OrganizationView is Organization as the API returns it.
type OrganizationView struct {
	Object         string                          `json:"object"`
	ID             string                          `json:"id"`
	Title          string                          `json:"title"`
	CreatedAt      time.Time                       `json:"createdAt"`
	EmailDomains   []string                        `json:"emailDomains"`
	Hostname       string                          `json:"hostname,omitempty"`
	Type           string                          `json:"type"`
	DefaultRole    *roles.Role                     `json:"defaultRole"`
	DefaultContent *DefaultContent                 `json:"defaultContent,omitempty"`
	SSO            bool                            `json:"sso"`
	AI             bool                            `json:"ai"`
	InviteLinks    bool                            `json:"inviteLinks"`
	Plan           string                          `json:"plan"`
	MergeRules     MergeRulesView                  `json:"mergeRules"`
	URLs           OrganizationURLs                `json:"urls"`
	Trial          TrialView                       `json:"trial"`
	Permissions    *access.OrganizationPermissions `json:"permissions,omitempty"`
}

// MergeRulesView is the organization's merge rules; none are configured here.
type MergeRulesView struct {
	Type string `json:"type"`
}

// OrganizationURLs are Organization.urls.
type OrganizationURLs struct {
	Location string `json:"location"`
	App      string `json:"app"`
	Logo     string `json:"logo,omitempty"`
}

// TrialView is Organization.trial.
type TrialView struct {
	Status string `json:"status"`
	Count  int    `json:"count"`
}

// OrganizationView renders o; perms nil omits permissions (event data).
func (u URLs) OrganizationView(o Organization, perms *access.OrganizationPermissions) OrganizationView {
	domains := o.EmailDomains
	if domains == nil {
		domains = []string{}
	}
	return OrganizationView{
		Object: "organization", ID: o.ID, Title: o.Title, CreatedAt: o.CreatedAt,
		EmailDomains: domains, Hostname: o.Hostname, Type: o.Type,
		DefaultRole: RoleJSON(o.DefaultRole), DefaultContent: o.DefaultContent,
		SSO: o.SSO, AI: o.AI, InviteLinks: o.InviteLinks, Plan: o.Plan,
		MergeRules: MergeRulesView{Type: "none"},
		URLs: OrganizationURLs{
			Location: u.Location("/orgs/" + o.ID),
			App:      u.App + "/o/" + o.ID,
			Logo:     o.Logo,
		},
		Trial:       TrialView{Status: "notapplicable", Count: 0},
		Permissions: perms,
	}
}

// LocationURLs is a urls object with only location.
type LocationURLs = identityapi.LocationURLs
