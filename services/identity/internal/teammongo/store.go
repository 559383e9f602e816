// Package teammongo stores identity's teams and team memberships in
// MongoDB through libs/docstore: every write records its event on the
// written document in the same update (the outbox of libs/kafkax),
// removals tombstone the document and free its unique key, and every read
// skips tombstones.
package teammongo

import (
	"context"
	"regexp"

	"github.com/docspub/platform/libs/docstore"
	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/identity/internal/team"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// The collections of teams and their memberships; their documents carry
// pending events.
const (
	Teams       = "teams"
	Memberships = "team_members"
)

// Collections lists the collections whose documents carry events, for the relay.
func Collections() []string { return []string{Teams, Memberships} }

// Store implements team.Store.
type Store struct {
	d *docstore.Store
}

var _ team.Store = (*Store)(nil)

// NewStore returns a store on db, whose document locks the outbox relay
// shares (see mongox.DB). written (nil: none) is called after every write
// that recorded events, with them: the relay's Notify, so that they leave
// at once, and the drop of the cached callers of their organization.
func NewStore(db mongox.DB, written func(events []envelope.Event)) *Store {
	return &Store{d: docstore.New(db, map[string]string{Teams: "team", Memberships: "team member"}, written)}
}

// Indexes are the indexes the store relies on. The unique key of a team
// membership is rewritten when it is tombstoned, so that a removed
// membership never blocks a new one.
func Indexes() []mongox.Index {
	return []mongox.Index{
		mongox.Unique(Memberships, "key"),
		mongox.Keys(Memberships, "organization", "user"),
		mongox.Keys(Memberships, "team"),
		mongox.Keys(Teams, "organization"),
	}
}

// Insert stores a new team with its event.
func (s *Store) Insert(ctx context.Context, t team.Team, ev envelope.Event) error {
	return s.d.Insert(ctx, Teams, t, ev)
}

// Rename sets a team's title and records the event.
func (s *Store) Rename(ctx context.Context, id, title string, ev envelope.Event) error {
	return s.d.Set(ctx, Teams, id, bson.M{"title": title}, ev)
}

// Record records an event on a live team without changing it.
func (s *Store) Record(ctx context.Context, id string, ev envelope.Event) error {
	return s.d.Set(ctx, Teams, id, nil, ev)
}

// Remove tombstones a live team and records its deletion event.
func (s *Store) Remove(ctx context.Context, id string, ev envelope.Event) error {
	return s.d.Remove(ctx, Teams, id, bson.M{"key": "removed/" + id}, ev)
}

// InsertMembership stores a new team membership with its event.
func (s *Store) InsertMembership(ctx context.Context, m team.Membership, ev envelope.Event) error {
	return s.d.Insert(ctx, Memberships, m, ev)
}

// SetMembershipRole sets the role of a team membership and records the event.
func (s *Store) SetMembershipRole(ctx context.Context, id, role string, ev envelope.Event) error {
	return s.d.Set(ctx, Memberships, id, bson.M{"role": role}, ev)
}

// RemoveMembership tombstones a live team membership and records its
// deletion event; its unique key is freed.
func (s *Store) RemoveMembership(ctx context.Context, id string, ev envelope.Event) error {
	return s.d.Remove(ctx, Memberships, id, bson.M{"key": "removed/" + id}, ev)
}

// Team returns a team of org.
func (s *Store) Team(ctx context.Context, org, id string) (team.Team, error) {
	return docstore.FindOne[team.Team](ctx, s.d, Teams, bson.M{"_id": id, "organization": org})
}

// Teams returns a page of teams by id and the count of all matching.
func (s *Store) Teams(ctx context.Context, q team.Query) ([]team.Team, int, error) {
	f := bson.M{"organization": q.Organization}
	if q.IDs != nil {
		f["_id"] = bson.M{"$in": q.IDs}
	}
	if q.Title != "" {
		f["title"] = bson.M{"$regex": regexp.QuoteMeta(q.Title), "$options": "i"}
	}
	return docstore.Page[team.Team](ctx, s.d, Teams, f, docstore.Keyset{AfterID: q.After, Limit: q.Limit})
}

// Membership returns user's membership of a team.
func (s *Store) Membership(ctx context.Context, teamID, user string) (team.Membership, error) {
	return docstore.FindOne[team.Membership](ctx, s.d, Memberships, bson.M{"key": team.MembershipKey(teamID, user)})
}

// Memberships returns team memberships by id and the count of all matching.
func (s *Store) Memberships(ctx context.Context, q team.MembershipQuery) ([]team.Membership, int, error) {
	f := bson.M{}
	for k, v := range map[string]string{"organization": q.Organization, "team": q.Team, "user": q.User, "role": q.Role} {
		if v != "" {
			f[k] = v
		}
	}
	return docstore.Page[team.Membership](ctx, s.d, Memberships, f, docstore.Keyset{AfterID: q.After, Limit: q.Limit})
}

// Sizes counts the members of each team.
func (s *Store) Sizes(ctx context.Context, teams []string) (map[string]int, error) {
	return s.tally(ctx, bson.M{"team": bson.M{"$in": teams}}, func(m team.Membership) string { return m.Team }, len(teams))
}

// Counts counts the teams of each user in org.
func (s *Store) Counts(ctx context.Context, org string, users []string) (map[string]int, error) {
	return s.tally(ctx, bson.M{"organization": org, "user": bson.M{"$in": users}}, func(m team.Membership) string { return m.User }, len(users))
}

func (s *Store) tally(ctx context.Context, f bson.M, key func(team.Membership) string, n int) (map[string]int, error) {
	out := map[string]int{}
	if n == 0 {
		return out, nil
	}
	ms, err := docstore.Find[team.Membership](ctx, s.d, Memberships, f,
		options.Find().SetProjection(bson.M{"team": 1, "user": 1}))
	for _, m := range ms {
		out[key(m)]++
	}
	return out, err
}
