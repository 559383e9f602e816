// Package membermongo stores identity's users and memberships in MongoDB
// through libs/docstore: every write records its event on the written
// document in the same update (the outbox of libs/kafkax), removals
// tombstone the document and free its unique key, and every read skips
// tombstones.
package membermongo

import (
	"context"
	"regexp"
	"strings"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/docstore"
	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/identity/internal/member"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// The collections of users and memberships; their documents carry pending
// events.
const (
	Users   = "users"
	Members = "members"
)

// Collections lists the collections whose documents carry events, for the relay.
func Collections() []string { return []string{Users, Members} }

// Store implements member.Store.
type Store struct {
	d *docstore.Store
}

var _ member.Store = (*Store)(nil)

// NewStore returns a store on db, whose document locks the outbox relay
// shares (see mongox.DB). written (nil: none) is called after every write
// that recorded events, with them: the relay's Notify, so that they leave
// at once, and the drop of the cached callers of their organization.
func NewStore(db mongox.DB, written func(events []envelope.Event)) *Store {
	return &Store{d: docstore.New(db, map[string]string{Users: "user", Members: "member"}, written)}
}

// Indexes are the indexes the store relies on. The unique key of a
// membership is rewritten when it is tombstoned, so that a removed
// membership never blocks a new one.
func Indexes() []mongox.Index {
	return []mongox.Index{
		mongox.Unique(Users, "emailKey"),
		mongox.Unique(Members, "key"),
		mongox.Keys(Members, "organization", "joinedAt"),
		mongox.Keys(Members, "user"),
	}
}

// InsertUser stores a new user with its event.
func (s *Store) InsertUser(ctx context.Context, u member.User, ev envelope.Event) error {
	return s.d.Insert(ctx, Users, u, ev)
}

// Insert stores a new membership with its event.
func (s *Store) Insert(ctx context.Context, m member.Member, ev envelope.Event) error {
	return s.d.Insert(ctx, Members, m, ev)
}

// Update sets the fields ch changes and records the event.
func (s *Store) Update(ctx context.Context, id string, ch member.Change, ev envelope.Event) error {
	set := bson.M{}
	if ch.Role != nil {
		set["role"] = *ch.Role
	}
	if ch.SSO != nil {
		set["sso"] = *ch.SSO
	}
	if ch.LastSeenAt != nil {
		set["lastSeenAt"] = *ch.LastSeenAt
	}
	return s.d.Set(ctx, Members, id, set, ev)
}

// Remove tombstones a live membership and records its deletion event; its
// unique key is freed.
func (s *Store) Remove(ctx context.Context, id string, ev envelope.Event) error {
	return s.d.Remove(ctx, Members, id, bson.M{"key": "removed/" + id}, ev)
}

// User returns a user.
func (s *Store) User(ctx context.Context, id string) (member.User, error) {
	return docstore.FindOne[member.User](ctx, s.d, Users, bson.M{"_id": id})
}

// UserByEmail returns the user with the e-mail, case-insensitively.
func (s *Store) UserByEmail(ctx context.Context, email string) (member.User, error) {
	return docstore.FindOne[member.User](ctx, s.d, Users, bson.M{"emailKey": strings.ToLower(email)})
}

// Users returns the users with the ids, by id.
func (s *Store) Users(ctx context.Context, ids []string) (map[string]member.User, error) {
	out := map[string]member.User{}
	if len(ids) == 0 {
		return out, nil
	}
	us, err := docstore.Find[member.User](ctx, s.d, Users, bson.M{"_id": bson.M{"$in": ids}})
	for _, u := range us {
		out[u.ID] = u
	}
	return out, err
}

// Member returns the live membership of user in org.
func (s *Store) Member(ctx context.Context, org, user string) (member.Member, error) {
	return docstore.FindOne[member.Member](ctx, s.d, Members, bson.M{"key": member.Key(org, user)})
}

// sortFields are the stored fields of the members' sort keys.
var sortFields = map[string]string{member.SortJoinedAt: "joinedAt", member.SortLastSeenAt: "lastSeenAt", member.SortName: "name"}

// Members returns a page of members sorted by q.Sort then id, and the count of all matching.
func (s *Store) Members(ctx context.Context, q member.Query) ([]member.Member, int, error) {
	f := bson.M{"organization": q.Organization}
	if q.Role != nil {
		f["role"] = string(*q.Role)
	}
	if q.Search != "" {
		contains := bson.M{"$regex": regexp.QuoteMeta(q.Search), "$options": "i"}
		f["$or"] = bson.A{bson.M{"name": contains}, bson.M{"email": contains}}
	}
	if q.Sort == member.SortLastSeenAt {
		f["lastSeenAt"] = bson.M{"$exists": true, "$ne": nil}
	}
	k := docstore.Keyset{Field: sortFields[q.Sort], Desc: q.Desc, AfterValue: q.AfterValue, AfterID: q.AfterID, Limit: q.Limit}
	if q.AfterID != "" && q.Sort != member.SortName {
		t, err := time.Parse(time.RFC3339Nano, q.AfterValue)
		if err != nil {
			return nil, 0, apierr.Invalid("page", "is not a valid page cursor")
		}
		k.AfterValue = t
	}
	return docstore.Page[member.Member](ctx, s.d, Members, f, k)
}

// MembersOf returns the org's memberships of the users.
func (s *Store) MembersOf(ctx context.Context, org string, users []string) (map[string]member.Member, error) {
	out := map[string]member.Member{}
	if len(users) == 0 {
		return out, nil
	}
	ms, err := docstore.Find[member.Member](ctx, s.d, Members, bson.M{"organization": org, "user": bson.M{"$in": users}})
	for _, m := range ms {
		out[m.User] = m
	}
	return out, err
}

// Memberships returns every membership of a user.
func (s *Store) Memberships(ctx context.Context, user string) ([]member.Member, error) {
	return docstore.Find[member.Member](ctx, s.d, Members, bson.M{"user": user})
}

// CountAdmins counts an organization's admins.
func (s *Store) CountAdmins(ctx context.Context, org string) (int, error) {
	return s.d.Count(ctx, Members, bson.M{"organization": org, "role": string(roles.Admin)})
}
