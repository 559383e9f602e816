package team

import (
	"github.com/docspub/platform/libs/internalapi/identityapi"

	"github.com/docspub/platform/services/identity/internal/access"
	"github.com/docspub/platform/services/identity/internal/member"
	"github.com/docspub/platform/services/identity/internal/organization"
)

// View is OrganizationTeam as the API returns it: the team the team.*
// events carry, with the caller's permissions.
type View struct {
	identityapi.Team
	Permissions *access.TeamPermissions `json:"permissions,omitempty"`
}

// render renders a team; perms nil omits permissions (event data).
func render(u organization.URLs, t Team, members int, perms *access.TeamPermissions) View {
	return View{Team: identityapi.Team{Object: "team", ID: t.ID, Title: t.Title, Members: members, CreatedAt: t.CreatedAt,
		URLs: organization.LocationURLs{Location: u.Location("/orgs/" + t.Organization + "/teams/" + t.ID)}},
		Permissions: perms}
}

// RoleView is {role} of a team membership.
type RoleView struct {
	Role string `json:"role"`
}

// MemberView is an entry of a team's member list.
type MemberView struct {
	Organization member.View     `json:"organization"`
	Team         RoleView        `json:"team"`
	Permissions  *ViewPermission `json:"permissions,omitempty"`
}

// ViewPermission is {view}.
type ViewPermission struct {
	View bool `json:"view"`
}

// MemberTeamView is an entry of a member's team list.
type MemberTeamView struct {
	Team   View     `json:"team"`
	Member RoleView `json:"member"`
}

// MembershipEvent is the data of team_member.* events.
type MembershipEvent = identityapi.TeamMember

func membershipEvent(tm Membership) MembershipEvent {
	return MembershipEvent{Object: "team-member", Organization: tm.Organization, Team: tm.Team, User: tm.User, Role: tm.Role, AddedAt: tm.AddedAt}
}
