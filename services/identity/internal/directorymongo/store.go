// Package directorymongo stores identity's domain in MongoDB through
// libs/docstore: every write records its event on the written document in
// the same update (the outbox of libs/kafkax), removals tombstone the
// document and free its unique key, and every read skips tombstones.
package directorymongo

import (
	"context"
	"regexp"
	"strings"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/docstore"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/identity/internal/directory"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Store implements directory.Store.
type Store struct {
	d *docstore.Store
}

// NewStore returns a store on db. Updates of one document are serialised with
// locks, which the outbox relay shares (see mongox.DocLocks); nil locks nothing.
func NewStore(db *mongo.Database, locks *mongox.DocLocks) *Store {
	return &Store{d: docstore.New(mongox.Locked(db, locks), map[string]string{
		string(directory.Organizations):   "organization",
		string(directory.Users):           "user",
		string(directory.Members):         "member",
		string(directory.Teams):           "team",
		string(directory.TeamMemberships): "team member",
	})}
}

var _ directory.Store = (*Store)(nil)

// OnWrite sets a function called after every write that recorded an event
// (the relay's Notify, so events leave at once).
func (s *Store) OnWrite(f func()) { s.d.OnWrite(f) }

// Indexes are the indexes the store relies on. Unique keys (members.key,
// team_members.key) are rewritten when a document is tombstoned, so that a
// removed membership never blocks a new one.
func Indexes() []mongox.Index {
	return []mongox.Index{
		mongox.Unique(string(directory.Users), "emailKey"),
		mongox.Unique(string(directory.Members), "key"),
		mongox.Keys(string(directory.Members), "organization", "joinedAt"),
		mongox.Keys(string(directory.Members), "user"),
		mongox.Unique(string(directory.TeamMemberships), "key"),
		mongox.Keys(string(directory.TeamMemberships), "organization", "user"),
		mongox.Keys(string(directory.TeamMemberships), "team"),
		mongox.Keys(string(directory.Teams), "organization"),
		mongox.Keys(string(directory.Organizations), "emailDomains"),
		mongox.Keys(string(directory.Organizations), "hostname"),
	}
}

// EnsureIndexes creates the indexes.
func EnsureIndexes(ctx context.Context, db *mongo.Database) error {
	return mongox.EnsureIndexes(ctx, db, Indexes()...)
}

// Collections lists the collection names whose documents carry events, for the relay.
func Collections() []string {
	out := make([]string, len(directory.AllCollections))
	for i, c := range directory.AllCollections {
		out[i] = string(c)
	}
	return out
}

// Insert stores a new document with its event.
func (s *Store) Insert(ctx context.Context, c directory.Collection, doc any, ev kafkax.Event) error {
	return s.d.Insert(ctx, string(c), doc, ev)
}

// Set changes fields of a live document and records its event.
func (s *Store) Set(ctx context.Context, c directory.Collection, id string, set directory.Fields, ev kafkax.Event) error {
	return s.d.Set(ctx, string(c), id, bson.M(set), ev)
}

// Remove tombstones a live document and records its deletion event; its
// unique key is freed.
func (s *Store) Remove(ctx context.Context, c directory.Collection, id string, ev kafkax.Event) error {
	return s.d.Remove(ctx, string(c), id, bson.M{"key": "removed/" + id}, ev)
}

func findOne[T any](ctx context.Context, s *Store, c directory.Collection, f bson.M) (T, error) {
	return docstore.FindOne[T](ctx, s.d, string(c), f)
}

func find[T any](ctx context.Context, s *Store, c directory.Collection, f bson.M, opts ...options.Lister[options.FindOptions]) ([]T, error) {
	return docstore.Find[T](ctx, s.d, string(c), f, opts...)
}

// page finds up to limit documents matching f after the id after, by id, and counts all matching f.
func page[T any](ctx context.Context, s *Store, c directory.Collection, f bson.M, after string, limit int) ([]T, int, error) {
	return docstore.Page[T](ctx, s.d, string(c), f, docstore.Keyset{AfterID: after, Limit: limit})
}

func contains(s string) bson.M {
	return bson.M{"$regex": regexp.QuoteMeta(s), "$options": "i"}
}

// Organization returns a live organization.
func (s *Store) Organization(ctx context.Context, id string) (directory.Organization, error) {
	return findOne[directory.Organization](ctx, s, directory.Organizations, bson.M{"_id": id})
}

// OrganizationsByID returns the organizations with the ids, by id.
func (s *Store) OrganizationsByID(ctx context.Context, ids []string) ([]directory.Organization, error) {
	if len(ids) == 0 {
		return []directory.Organization{}, nil
	}
	return find[directory.Organization](ctx, s, directory.Organizations, bson.M{"_id": bson.M{"$in": ids}},
		options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
}

// OrganizationsByEmailDomain returns the organizations whose e-mail domains contain domain.
func (s *Store) OrganizationsByEmailDomain(ctx context.Context, domain string) ([]directory.Organization, error) {
	return find[directory.Organization](ctx, s, directory.Organizations, bson.M{"emailDomains": domain},
		options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}).SetLimit(1000))
}

// HostnameTaken reports whether another organization uses hostname.
func (s *Store) HostnameTaken(ctx context.Context, hostname, exceptOrg string) (bool, error) {
	n, err := s.d.Count(ctx, string(directory.Organizations), bson.M{"hostname": hostname, "_id": bson.M{"$ne": exceptOrg}})
	return n > 0, err
}

// User returns a user.
func (s *Store) User(ctx context.Context, id string) (directory.User, error) {
	return findOne[directory.User](ctx, s, directory.Users, bson.M{"_id": id})
}

// UserByEmail returns the user with the e-mail, case-insensitively.
func (s *Store) UserByEmail(ctx context.Context, email string) (directory.User, error) {
	return findOne[directory.User](ctx, s, directory.Users, bson.M{"emailKey": strings.ToLower(email)})
}

// Users returns the users with the ids, by id.
func (s *Store) Users(ctx context.Context, ids []string) (map[string]directory.User, error) {
	out := map[string]directory.User{}
	if len(ids) == 0 {
		return out, nil
	}
	us, err := find[directory.User](ctx, s, directory.Users, bson.M{"_id": bson.M{"$in": ids}})
	for _, u := range us {
		out[u.ID] = u
	}
	return out, err
}

// Member returns the live membership of user in org.
func (s *Store) Member(ctx context.Context, org, user string) (directory.Member, error) {
	return findOne[directory.Member](ctx, s, directory.Members, bson.M{"key": directory.MemberKey(org, user)})
}

// Members returns a page of members sorted by q.Sort then id, and the count of all matching.
func (s *Store) Members(ctx context.Context, q directory.MemberQuery) ([]directory.Member, int, error) {
	f := bson.M{"organization": q.Organization}
	if q.Role != nil {
		f["role"] = string(*q.Role)
	}
	if q.Search != "" {
		f["$or"] = bson.A{bson.M{"name": contains(q.Search)}, bson.M{"email": contains(q.Search)}}
	}
	if q.Sort == directory.SortLastSeenAt {
		f["lastSeenAt"] = bson.M{"$exists": true, "$ne": nil}
	}
	k := docstore.Keyset{Field: q.Sort, Desc: q.Desc, AfterValue: q.AfterValue, AfterID: q.AfterID, Limit: q.Limit}
	if q.AfterID != "" && q.Sort != directory.SortName {
		t, err := time.Parse(time.RFC3339Nano, q.AfterValue)
		if err != nil {
			return nil, 0, apierr.Invalid("page", "is not a valid page cursor")
		}
		k.AfterValue = t
	}
	return docstore.Page[directory.Member](ctx, s.d, string(directory.Members), f, k)
}

// MembersOf returns the org's memberships of the users.
func (s *Store) MembersOf(ctx context.Context, org string, users []string) (map[string]directory.Member, error) {
	out := map[string]directory.Member{}
	if len(users) == 0 {
		return out, nil
	}
	ms, err := find[directory.Member](ctx, s, directory.Members, bson.M{"organization": org, "user": bson.M{"$in": users}})
	for _, m := range ms {
		out[m.User] = m
	}
	return out, err
}

// Memberships returns every membership of a user.
func (s *Store) Memberships(ctx context.Context, user string) ([]directory.Member, error) {
	return find[directory.Member](ctx, s, directory.Members, bson.M{"user": user})
}

// CountAdmins counts an organization's admins.
func (s *Store) CountAdmins(ctx context.Context, org string) (int, error) {
	return s.d.Count(ctx, string(directory.Members), bson.M{"organization": org, "role": string(roles.Admin)})
}

// Team returns a team of org.
func (s *Store) Team(ctx context.Context, org, id string) (directory.Team, error) {
	return findOne[directory.Team](ctx, s, directory.Teams, bson.M{"_id": id, "organization": org})
}

// Teams returns a page of teams by id and the count of all matching.
func (s *Store) Teams(ctx context.Context, q directory.TeamQuery) ([]directory.Team, int, error) {
	f := bson.M{"organization": q.Organization}
	if q.IDs != nil {
		f["_id"] = bson.M{"$in": q.IDs}
	}
	if q.Title != "" {
		f["title"] = contains(q.Title)
	}
	return page[directory.Team](ctx, s, directory.Teams, f, q.After, q.Limit)
}

// TeamMembership returns user's membership of team.
func (s *Store) TeamMembership(ctx context.Context, team, user string) (directory.TeamMembership, error) {
	return findOne[directory.TeamMembership](ctx, s, directory.TeamMemberships, bson.M{"key": directory.TeamMembershipKey(team, user)})
}

// TeamMemberships returns team memberships by id and the count of all matching.
func (s *Store) TeamMemberships(ctx context.Context, q directory.TeamMembershipQuery) ([]directory.TeamMembership, int, error) {
	f := bson.M{}
	for k, v := range map[string]string{"organization": q.Organization, "team": q.Team, "user": q.User, "role": q.Role} {
		if v != "" {
			f[k] = v
		}
	}
	return page[directory.TeamMembership](ctx, s, directory.TeamMemberships, f, q.After, q.Limit)
}

// TeamSizes counts the members of each team.
func (s *Store) TeamSizes(ctx context.Context, teams []string) (map[string]int, error) {
	return s.tally(ctx, bson.M{"team": bson.M{"$in": teams}}, func(tm directory.TeamMembership) string { return tm.Team }, len(teams))
}

// TeamCounts counts the teams of each user in org.
func (s *Store) TeamCounts(ctx context.Context, org string, users []string) (map[string]int, error) {
	return s.tally(ctx, bson.M{"organization": org, "user": bson.M{"$in": users}}, func(tm directory.TeamMembership) string { return tm.User }, len(users))
}

func (s *Store) tally(ctx context.Context, f bson.M, key func(directory.TeamMembership) string, n int) (map[string]int, error) {
	out := map[string]int{}
	if n == 0 {
		return out, nil
	}
	tms, err := find[directory.TeamMembership](ctx, s, directory.TeamMemberships, f,
		options.Find().SetProjection(bson.M{"team": 1, "user": 1}))
	for _, tm := range tms {
		out[key(tm)]++
	}
	return out, err
}
