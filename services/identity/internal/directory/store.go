package directory

import (
	"context"

	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/roles"
)

// Collection names a stored kind of resource.
type Collection string

// The collections of identity's database.
const (
	Organizations   Collection = "organizations"
	Users           Collection = "users"
	Members         Collection = "members"
	Teams           Collection = "teams"
	TeamMemberships Collection = "team_members"
)

// AllCollections lists every collection whose documents carry pending events.
var AllCollections = []Collection{Organizations, Users, Members, Teams, TeamMemberships}

// Fields are stored fields to set, by their stored name.
type Fields map[string]any

// Store is what the domain needs from storage. Every write records its event
// on the written document in the same update (the outbox); Remove marks the
// document deleted and records the event, and reads skip removed documents.
// Reads of one missing resource return an apierr not-found error.
type Store interface {
	Insert(ctx context.Context, c Collection, doc any, ev envelope.Event) error
	Set(ctx context.Context, c Collection, id string, set Fields, ev envelope.Event) error
	Remove(ctx context.Context, c Collection, id string, ev envelope.Event) error

	Organization(ctx context.Context, id string) (Organization, error)
	OrganizationsByID(ctx context.Context, ids []string) ([]Organization, error)
	OrganizationsByEmailDomain(ctx context.Context, domain string) ([]Organization, error)
	HostnameTaken(ctx context.Context, hostname, exceptOrg string) (bool, error)

	User(ctx context.Context, id string) (User, error)
	UserByEmail(ctx context.Context, email string) (User, error)
	Users(ctx context.Context, ids []string) (map[string]User, error)

	Member(ctx context.Context, org, user string) (Member, error)
	Members(ctx context.Context, q MemberQuery) ([]Member, int, error)
	MembersOf(ctx context.Context, org string, users []string) (map[string]Member, error)
	Memberships(ctx context.Context, user string) ([]Member, error)
	CountAdmins(ctx context.Context, org string) (int, error)

	Team(ctx context.Context, org, id string) (Team, error)
	Teams(ctx context.Context, q TeamQuery) ([]Team, int, error)
	TeamMembership(ctx context.Context, team, user string) (TeamMembership, error)
	TeamMemberships(ctx context.Context, q TeamMembershipQuery) ([]TeamMembership, int, error)
	TeamSizes(ctx context.Context, teams []string) (map[string]int, error)
	TeamCounts(ctx context.Context, org string, users []string) (map[string]int, error)
}

// Member sort keys.
const (
	SortJoinedAt   = "joinedAt"
	SortLastSeenAt = "lastSeenAt"
	SortName       = "name"
)

// MemberQuery selects a page of an organization's members.
type MemberQuery struct {
	Organization string
	Role         *roles.Role // nil: any; "" selects guests
	Search       string      // case-insensitive, in name or e-mail
	Sort         string      // SortJoinedAt, SortLastSeenAt (only members seen), SortName
	Desc         bool
	// AfterValue and AfterID are the sort key of the previous page's last
	// member (a time in RFC 3339 for dates); empty for the first page.
	AfterValue, AfterID string
	Limit               int // items to fetch
}

// TeamQuery selects a page of an organization's teams, by id.
type TeamQuery struct {
	Organization string
	IDs          []string // nil: any team; otherwise only these
	Title        string   // case-insensitive contains
	After        string
	Limit        int
}

// TeamMembershipQuery selects team memberships, by id. Empty fields do not
// filter; Limit 0 returns all.
type TeamMembershipQuery struct {
	Organization, Team, User, Role string
	After                          string
	Limit                          int
}
