package saml

import (
	"time"

	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/identity/internal/organization"
	"github.com/docspub/platform/services/identity/internal/team"
)

// ProviderView is OrganizationSAMLProvider as the API returns it.
type ProviderView struct {
	Object      string                    `json:"object"`
	ID          string                    `json:"id"`
	Label       string                    `json:"label"`
	SSOURL      string                    `json:"ssoURL"`
	EntityID    string                    `json:"entityID"`
	Certificate string                    `json:"certificate"`
	DefaultTeam *team.View                `json:"defaultTeam,omitempty"`
	DefaultRole *roles.Role               `json:"defaultRole"`
	CreatedAt   time.Time                 `json:"createdAt"`
	Status      string                    `json:"status"`
	Service     ServiceView               `json:"service"`
	URLs        organization.LocationURLs `json:"urls"`
}

// ServiceView is the service-provider side of a SAML provider.
type ServiceView struct {
	ACSURL   string `json:"acsURL"`
	StartURL string `json:"startURL"`
	EntityID string `json:"entityID"`
}

// SSOLoginView is an item of GET ORG/sso.
type SSOLoginView struct {
	ID       string `json:"id"`
	Label    string `json:"label"`
	StartURL string `json:"startURL"`
}

// service returns the service-provider URLs of a provider: where the
// identity provider posts assertions, where a login starts, and our entity
// id. They live under the app, which terminates the SAML flow.
func service(u organization.URLs, org, provider string) ServiceView {
	base := u.App + "/auth/saml/" + org + "/" + provider
	return ServiceView{ACSURL: base + "/acs", StartURL: base + "/start", EntityID: base + "/metadata"}
}

// render renders a provider with its default team (nil when none).
func render(u organization.URLs, p Provider, team *team.View) ProviderView {
	status := "pending"
	if p.Active() {
		status = "active"
	}
	return ProviderView{Object: "saml-provider", ID: p.ID, Label: p.Label, SSOURL: p.SSOURL, EntityID: p.EntityID,
		Certificate: p.Certificate, DefaultTeam: team, DefaultRole: organization.RoleJSON(p.DefaultRole), CreatedAt: p.CreatedAt,
		Status: status, Service: service(u, p.Organization, p.ID),
		URLs: organization.LocationURLs{Location: u.Location("/orgs/" + p.Organization + "/saml/" + p.ID)}}
}
