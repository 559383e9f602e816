// Package access holds, in one place, what each organization role may do in
// identity: the rules behind every 403 and every `permissions` object.
//
// A caller is either not a member of an organization (identity answers 404 for
// everything of that organization, so its existence is not revealed), a guest
// (a member whose role is null), or a member with a role. Team owners may also
// manage their own team.
package access

import "github.com/docspub/platform/libs/roles"

// Action is something a caller may be allowed to do in an organization.
type Action string

// The actions. README.md lists them with the role each needs.
const (
	ViewOrganization   Action = "organization.view"    // read the organization, ping, read oneself
	AccessContent      Action = "organization.access"  // access the organization's content
	AdminOrganization  Action = "organization.admin"   // update it; manage members, invites, SAML, teams
	ListMembers        Action = "members.list"         // list and read other members
	ListTeams          Action = "teams.list"           // list and read teams and their members
	OwnTeam            Action = "teams.own"            // be made owner of a team
	CreateContent      Action = "content.create"       // create spaces, collections, sites
	CreateOpenAPISpec  Action = "openapi.create"       // create OpenAPI specs
	ViewBilling        Action = "billing.view"         // see billing
	ListIntegrations   Action = "integrations.list"    // list integrations and installations
	InstallIntegration Action = "integrations.install" // install integrations
	ListSSO            Action = "sso.list"             // list SSO login infos
	IngestConversation Action = "conversations.ingest" // not used by identity; reported in permissions
	ManageTeam         Action = "team.manage"          // rename a team, change its members (see CanManageTeam)
	ViewTeam           Action = "team.view"            // read a team (see CanViewTeam)
	DeleteTeam         Action = "team.delete"          // delete a team
	CreateTeam         Action = "team.create"          // create a team
	ManageMembers      Action = "members.manage"       // change roles, SSO flag, remove others, invite
	ManageInvites      Action = "invites.manage"       // list, create, change, delete invite links
	ManageSAML         Action = "saml.manage"          // list, create, change, delete SAML providers
)

// rule says who may perform an action: members whose role is at least min;
// guests too when guests is set.
type rule struct {
	min    roles.Role
	guests bool
}

// rules is the role → action table.
var rules = map[Action]rule{
	ViewOrganization:   {min: roles.Read, guests: true},
	ListSSO:            {min: roles.Read, guests: true},
	AccessContent:      {min: roles.Read},
	ListMembers:        {min: roles.Read},
	ListTeams:          {min: roles.Read},
	OwnTeam:            {min: roles.Read},
	ListIntegrations:   {min: roles.Read},
	ViewTeam:           {min: roles.Read},
	CreateContent:      {min: roles.Create},
	CreateOpenAPISpec:  {min: roles.Create},
	IngestConversation: {min: roles.Admin},
	AdminOrganization:  {min: roles.Admin},
	ViewBilling:        {min: roles.Admin},
	InstallIntegration: {min: roles.Admin},
	ManageMembers:      {min: roles.Admin},
	ManageInvites:      {min: roles.Admin},
	ManageSAML:         {min: roles.Admin},
	CreateTeam:         {min: roles.Admin},
	DeleteTeam:         {min: roles.Admin},
	ManageTeam:         {min: roles.Admin},
}

// Membership is the caller's standing in one organization.
type Membership struct {
	Member bool       // the caller is a member (possibly a guest)
	Role   roles.Role // "" for a guest
}

// Can reports whether the membership allows the action.
func (m Membership) Can(a Action) bool {
	if !m.Member {
		return false
	}
	r, ok := rules[a]
	if !ok {
		return false
	}
	if m.Role == roles.Guest {
		return r.guests
	}
	return m.Role.AtLeast(r.min)
}

// TeamRole is a member's role in a team.
type TeamRole string

// Team roles.
const (
	TeamOwner  TeamRole = "owner"
	TeamMember TeamRole = "member"
	NotInTeam  TeamRole = ""
)

// CanManageTeam reports whether the caller may rename the team and change its
// members: organization admins, and the team's owners.
func (m Membership) CanManageTeam(inTeam TeamRole) bool {
	return m.Can(ManageTeam) || (m.Member && inTeam == TeamOwner)
}

// CanViewTeam reports whether the caller may read the team and its members:
// members who may list teams, and the team's own members (guests included).
func (m Membership) CanViewTeam(inTeam TeamRole) bool {
	return m.Can(ViewTeam) || (m.Member && inTeam != NotInTeam)
}

// CanInTeam reports whether the caller may perform a on a team in which their
// role is inTeam: ManageTeam and ViewTeam as CanManageTeam and CanViewTeam,
// any other action as Can.
func (m Membership) CanInTeam(a Action, inTeam TeamRole) bool {
	switch a {
	case ManageTeam:
		return m.CanManageTeam(inTeam)
	case ViewTeam:
		return m.CanViewTeam(inTeam)
	}
	return m.Can(a)
}

// OrganizationPermissions is Organization.permissions.
type OrganizationPermissions struct {
	View                bool `json:"view"`
	Access              bool `json:"access"`
	Admin               bool `json:"admin"`
	OwnTeam             bool `json:"ownTeam"`
	CreateContent       bool `json:"createContent"`
	CreateOpenAPISpec   bool `json:"createOpenAPISpec"`
	IngestConversations bool `json:"ingestConversations"`
	ViewBilling         bool `json:"viewBilling"`
	ListMembers         bool `json:"listMembers"`
	ListTeams           bool `json:"listTeams"`
	ListIntegrations    bool `json:"listIntegrations"`
	ListInstallations   bool `json:"listInstallations"`
	InstallIntegration  bool `json:"installIntegration"`
}

// Organization returns the organization permissions of the membership.
func (m Membership) Organization() OrganizationPermissions {
	return OrganizationPermissions{
		View:                m.Can(ViewOrganization),
		Access:              m.Can(AccessContent),
		Admin:               m.Can(AdminOrganization),
		OwnTeam:             m.Can(OwnTeam),
		CreateContent:       m.Can(CreateContent),
		CreateOpenAPISpec:   m.Can(CreateOpenAPISpec),
		IngestConversations: m.Can(IngestConversation),
		ViewBilling:         m.Can(ViewBilling),
		ListMembers:         m.Can(ListMembers),
		ListTeams:           m.Can(ListTeams),
		ListIntegrations:    m.Can(ListIntegrations),
		ListInstallations:   m.Can(ListIntegrations),
		InstallIntegration:  m.Can(InstallIntegration),
	}
}

// TeamPermissions is Team.permissions.
type TeamPermissions struct {
	Admin bool `json:"admin"`
	View  bool `json:"view"`
}

// Team returns the team permissions of the membership given the caller's role in the team.
func (m Membership) Team(inTeam TeamRole) TeamPermissions {
	return TeamPermissions{Admin: m.CanManageTeam(inTeam), View: m.CanViewTeam(inTeam)}
}
