package directory

import (
	"time"

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

// UserView is User as the API returns it.
type UserView struct {
	Object      string       `json:"object"`
	ID          string       `json:"id"`
	DisplayName string       `json:"displayName"`
	Email       string       `json:"email,omitempty"`
	PhotoURL    string       `json:"photoURL,omitempty"`
	URLs        LocationURLs `json:"urls"`
}

// LocationURLs is a urls object with only location.
type LocationURLs struct {
	Location string `json:"location"`
}

// UserView renders a user.
func (u URLs) UserView(x User) UserView {
	return UserView{Object: "user", ID: x.ID, DisplayName: x.DisplayName, Email: x.Email, PhotoURL: x.PhotoURL,
		URLs: LocationURLs{Location: u.Location("/users/" + x.ID)}}
}

// MemberView is OrganizationMember as the API returns it. Its id is the user's id.
type MemberView struct {
	Object     string      `json:"object"`
	ID         string      `json:"id"`
	Role       *roles.Role `json:"role"`
	User       UserView    `json:"user"`
	Disabled   bool        `json:"disabled"`
	JoinedAt   time.Time   `json:"joinedAt"`
	LastSeenAt *time.Time  `json:"lastSeenAt,omitempty"`
	SSO        bool        `json:"sso"`
	Spaces     int         `json:"spaces"`
	Teams      int         `json:"teams"`
	Sites      int         `json:"sites"`
}

// MemberView renders a member. Spaces and sites are owned by other services
// and reported as 0.
func (u URLs) MemberView(m Member, user User, teams int) MemberView {
	if user.ID == "" {
		user = User{ID: m.User, DisplayName: m.Name, Email: m.Email}
	}
	return MemberView{Object: "member", ID: m.User, Role: RoleJSON(m.Role), User: u.UserView(user),
		Disabled: m.Disabled, JoinedAt: m.JoinedAt, LastSeenAt: m.LastSeenAt, SSO: m.SSO, Teams: teams}
}

// TeamView is OrganizationTeam as the API returns it.
type TeamView struct {
	Object      string                  `json:"object"`
	ID          string                  `json:"id"`
	Title       string                  `json:"title"`
	Members     int                     `json:"members"`
	Spaces      int                     `json:"spaces"`
	CreatedAt   time.Time               `json:"createdAt"`
	URLs        LocationURLs            `json:"urls"`
	Permissions *access.TeamPermissions `json:"permissions,omitempty"`
}

// TeamView renders a team; perms nil omits permissions (event data).
func (u URLs) TeamView(t Team, members int, perms *access.TeamPermissions) TeamView {
	return TeamView{Object: "team", ID: t.ID, Title: t.Title, Members: members, CreatedAt: t.CreatedAt,
		URLs:        LocationURLs{Location: u.Location("/orgs/" + t.Organization + "/teams/" + t.ID)},
		Permissions: perms}
}

// TeamRoleView is {role} of a team membership.
type TeamRoleView struct {
	Role string `json:"role"`
}

// TeamMemberView is an entry of a team's member list.
type TeamMemberView struct {
	Organization MemberView      `json:"organization"`
	Team         TeamRoleView    `json:"team"`
	Permissions  *ViewPermission `json:"permissions,omitempty"`
}

// ViewPermission is {view}.
type ViewPermission struct {
	View bool `json:"view"`
}

// MemberTeamView is an entry of a member's team list.
type MemberTeamView struct {
	Team   TeamView     `json:"team"`
	Member TeamRoleView `json:"member"`
}

// TeamMembershipEvent is the data of team_member.* events.
type TeamMembershipEvent struct {
	Object       string    `json:"object"`
	Organization string    `json:"organization"`
	Team         string    `json:"team"`
	User         string    `json:"user"`
	Role         string    `json:"role"`
	AddedAt      time.Time `json:"addedAt"`
}

func teamMembershipEvent(tm TeamMembership) TeamMembershipEvent {
	return TeamMembershipEvent{Object: "team-member", Organization: tm.Organization, Team: tm.Team, User: tm.User, Role: tm.Role, AddedAt: tm.AddedAt}
}
