package member

import (
	"context"

	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/roles"
)

// Store keeps users and memberships. Every write records its event on the
// written document in the same update (the outbox); Remove marks the
// membership deleted (freeing its key) and records the event, and reads
// skip removed documents. Reads of one missing resource return an apierr
// not-found error; inserting a second user with an e-mail or a second
// membership of a user is an apierr conflict.
type Store interface {
	InsertUser(ctx context.Context, u User, ev envelope.Event) error
	Insert(ctx context.Context, m Member, ev envelope.Event) error
	// Update applies ch to the membership id.
	Update(ctx context.Context, id string, ch Change, ev envelope.Event) error
	Remove(ctx context.Context, id string, ev envelope.Event) error

	User(ctx context.Context, id string) (User, error)
	// UserByEmail finds a user by e-mail, case-insensitively.
	UserByEmail(ctx context.Context, email string) (User, error)
	Users(ctx context.Context, ids []string) (map[string]User, error)

	Member(ctx context.Context, org, user string) (Member, error)
	// Members returns a page of members sorted by q.Sort then id, and the
	// count of all matching.
	Members(ctx context.Context, q Query) ([]Member, int, error)
	// MembersOf returns org's memberships of the users, by user.
	MembersOf(ctx context.Context, org string, users []string) (map[string]Member, error)
	// Memberships returns every membership of a user.
	Memberships(ctx context.Context, user string) ([]Member, error)
	CountAdmins(ctx context.Context, org string) (int, error)
}

// Member sort keys.
const (
	SortJoinedAt   = "joinedAt"
	SortLastSeenAt = "lastSeenAt"
	SortName       = "name"
)

// Query selects a page of an organization's members.
type Query struct {
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
