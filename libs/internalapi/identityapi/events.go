package identityapi

import (
	"time"

	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/roles"
)

// Topic is where identity publishes its events (the envelope of
// libs/envelope, keyed by subject).
const Topic = "identity.events"

// Identity's event types, <resource>.<verb>.
const (
	OrganizationCreated = "organization.created"
	OrganizationUpdated = "organization.updated"

	UserCreated = "user.created"

	MemberCreated = "member.created"
	MemberUpdated = "member.updated"
	MemberDeleted = "member.deleted"

	TeamCreated = "team.created"
	TeamUpdated = "team.updated"
	TeamDeleted = "team.deleted"

	TeamMemberCreated = "team_member.created"
	TeamMemberUpdated = "team_member.updated"
	TeamMemberDeleted = "team_member.deleted"

	InviteCreated = "invite.created"
	InviteUpdated = "invite.updated"
	InviteDeleted = "invite.deleted"

	SAMLProviderCreated = "saml_provider.created"
	SAMLProviderUpdated = "saml_provider.updated"
	SAMLProviderDeleted = "saml_provider.deleted"

	TokenCreated = "token.created"
	TokenRevoked = "token.revoked"
)

// Schema versions of the payloads identity writes now. Bump one when its
// payload changes incompatibly (a field removed, renamed or retyped), keep
// the previous version's golden (testdata/events) and give the schema a
// Previous decoder; consumers read the current and the previous version.
const (
	OrganizationVersion = 1
	UserVersion         = 1
	MemberVersion       = 1
	TeamVersion         = 1
	TeamMemberVersion   = 1
	InviteVersion       = 1
	SAMLProviderVersion = 1
	TokenVersion        = 1
)

// Events is the catalogue of identity's event types and their versions.
var Events = envelope.Catalogue{
	OrganizationCreated: OrganizationVersion, OrganizationUpdated: OrganizationVersion,
	UserCreated:   UserVersion,
	MemberCreated: MemberVersion, MemberUpdated: MemberVersion, MemberDeleted: MemberVersion,
	TeamCreated: TeamVersion, TeamUpdated: TeamVersion, TeamDeleted: TeamVersion,
	TeamMemberCreated: TeamMemberVersion, TeamMemberUpdated: TeamMemberVersion, TeamMemberDeleted: TeamMemberVersion,
	InviteCreated: InviteVersion, InviteUpdated: InviteVersion, InviteDeleted: InviteVersion,
	SAMLProviderCreated: SAMLProviderVersion, SAMLProviderUpdated: SAMLProviderVersion, SAMLProviderDeleted: SAMLProviderVersion,
	TokenCreated: TokenVersion, TokenRevoked: TokenVersion,
}

func newEvent(typ, org, subject string, data any) envelope.Event {
	return envelope.NewVersion(typ, Events[typ], org, subject, data)
}

// LocationURLs is a urls object with only the API location.
type LocationURLs struct {
	Location string `json:"location"`
}

// User is the payload of user.created, and the user of a member: the user
// as the API returns it.
type User struct {
	Object      string       `json:"object"` // "user"
	ID          string       `json:"id"`
	DisplayName string       `json:"displayName"`
	Email       string       `json:"email,omitempty"`
	PhotoURL    string       `json:"photoURL,omitempty"`
	URLs        LocationURLs `json:"urls"`
}

// UserSchema reads the user.created payload.
var UserSchema = envelope.Schema[User]{Current: UserVersion}

// NewUserCreated is the event of a new user (no organization; subject: the user).
func NewUserCreated(u User) envelope.Event { return newEvent(UserCreated, "", u.ID, u) }

// Member is the payload of the member.* events: the organization member as
// the API returns it. Its id is the user's id; Role is nil for a guest.
type Member struct {
	Object     string      `json:"object"` // "member"
	ID         string      `json:"id"`
	Role       *roles.Role `json:"role"`
	User       User        `json:"user"`
	Disabled   bool        `json:"disabled"`
	JoinedAt   time.Time   `json:"joinedAt"`
	LastSeenAt *time.Time  `json:"lastSeenAt,omitempty"`
	SSO        bool        `json:"sso"`
	Spaces     int         `json:"spaces"`
	Teams      int         `json:"teams"`
	Sites      int         `json:"sites"`
}

// MemberSchema reads the member.* payloads.
var MemberSchema = envelope.Schema[Member]{Current: MemberVersion}

// Member events: org is the member's organization, the subject the user.
func NewMemberCreated(org string, m Member) envelope.Event {
	return newEvent(MemberCreated, org, m.User.ID, m)
}
func NewMemberUpdated(org string, m Member) envelope.Event {
	return newEvent(MemberUpdated, org, m.User.ID, m)
}
func NewMemberDeleted(org string, m Member) envelope.Event {
	return newEvent(MemberDeleted, org, m.User.ID, m)
}

// Team is the payload of the team.* events: the team as the API returns
// it, without the caller's permissions.
type Team struct {
	Object    string       `json:"object"` // "team"
	ID        string       `json:"id"`
	Title     string       `json:"title"`
	Members   int          `json:"members"`
	Spaces    int          `json:"spaces"`
	CreatedAt time.Time    `json:"createdAt"`
	URLs      LocationURLs `json:"urls"`
}

// TeamSchema reads the team.* payloads.
var TeamSchema = envelope.Schema[Team]{Current: TeamVersion}

// Team events: org is the team's organization, the subject the team.
func NewTeamCreated(org string, t Team) envelope.Event { return newEvent(TeamCreated, org, t.ID, t) }
func NewTeamUpdated(org string, t Team) envelope.Event { return newEvent(TeamUpdated, org, t.ID, t) }
func NewTeamDeleted(org string, t Team) envelope.Event { return newEvent(TeamDeleted, org, t.ID, t) }

// TeamMember is the payload of the team_member.* events: a user's
// membership of a team.
type TeamMember struct {
	Object       string    `json:"object"` // "team-member"
	Organization string    `json:"organization"`
	Team         string    `json:"team"`
	User         string    `json:"user"`
	Role         string    `json:"role"`
	AddedAt      time.Time `json:"addedAt"`
}

// TeamMemberSchema reads the team_member.* payloads.
var TeamMemberSchema = envelope.Schema[TeamMember]{Current: TeamMemberVersion}

// Team member events: the subject is the team (its memberships keep their order).
func NewTeamMemberCreated(tm TeamMember) envelope.Event {
	return newEvent(TeamMemberCreated, tm.Organization, tm.Team, tm)
}
func NewTeamMemberUpdated(tm TeamMember) envelope.Event {
	return newEvent(TeamMemberUpdated, tm.Organization, tm.Team, tm)
}
func NewTeamMemberDeleted(tm TeamMember) envelope.Event {
	return newEvent(TeamMemberDeleted, tm.Organization, tm.Team, tm)
}

// Invite is the payload of the invite.* events: the invite link as the
// API returns it. Role is nil for a guest's link.
type Invite struct {
	Object    string       `json:"object"` // "invite"
	ID        string       `json:"id"`
	Role      *roles.Role  `json:"role"`
	Redundant bool         `json:"redundant"`
	CreatedAt time.Time    `json:"createdAt"`
	URLs      LocationURLs `json:"urls"`
}

// InviteSchema reads the invite.* payloads.
var InviteSchema = envelope.Schema[Invite]{Current: InviteVersion}

// Invite events: org is the invite's organization, the subject the invite.
func NewInviteCreated(org string, i Invite) envelope.Event {
	return newEvent(InviteCreated, org, i.ID, i)
}
func NewInviteUpdated(org string, i Invite) envelope.Event {
	return newEvent(InviteUpdated, org, i.ID, i)
}
func NewInviteDeleted(org string, i Invite) envelope.Event {
	return newEvent(InviteDeleted, org, i.ID, i)
}

// Token is the payload of the token.* events: an API token's id, user and
// hash (never the token). Hash is the gateway's key of the token's cached
// resolution.
type Token struct {
	ID        string     `json:"id"`
	User      string     `json:"user"`
	Hash      string     `json:"hash"`
	CreatedAt time.Time  `json:"createdAt"`
	RevokedAt *time.Time `json:"revokedAt,omitempty"`
}

// TokenSchema reads the token.* payloads.
var TokenSchema = envelope.Schema[Token]{Current: TokenVersion}

// Token events: no organization, the subject is the token.
func NewTokenCreated(t Token) envelope.Event { return newEvent(TokenCreated, "", t.ID, t) }
func NewTokenRevoked(t Token) envelope.Event { return newEvent(TokenRevoked, "", t.ID, t) }

// Organization events carry the organization as the API returns it
// (without permissions); its payload is not typed here yet (no service
// consumes it): data is the producer's view. Subject and organization
// are the organization.
func NewOrganizationCreated(id string, data any) envelope.Event {
	return newEvent(OrganizationCreated, id, id, data)
}
func NewOrganizationUpdated(id string, data any) envelope.Event {
	return newEvent(OrganizationUpdated, id, id, data)
}

// SAML provider events carry the provider as the API returns it; its
// payload is not typed here yet (no service consumes it). The subject is
// the provider.
func NewSAMLProviderCreated(org, id string, data any) envelope.Event {
	return newEvent(SAMLProviderCreated, org, id, data)
}
func NewSAMLProviderUpdated(org, id string, data any) envelope.Event {
	return newEvent(SAMLProviderUpdated, org, id, data)
}
func NewSAMLProviderDeleted(org, id string, data any) envelope.Event {
	return newEvent(SAMLProviderDeleted, org, id, data)
}
