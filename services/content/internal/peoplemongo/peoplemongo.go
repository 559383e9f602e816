// Package peoplemongo keeps content's projection of identity's users and
// memberships in MongoDB, fed by identity.events through an idempotent
// consumer (libs/kafkax). It implements people.Directory.
package peoplemongo

import (
	"context"
	"errors"
	"github.com/docspub/platform/libs/envelope"
	"time"

	"github.com/docspub/platform/libs/internalapi/identityapi"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/content/internal/links"
	"github.com/docspub/platform/services/content/internal/people"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Collections of the projection.
const (
	Users   = "people_users"
	Members = "people_members"
)

// Store is the projection.
type Store struct {
	db   *mongo.Database
	urls links.URLs
}

var _ people.Directory = (*Store)(nil)

// NewStore returns the projection on db.
func NewStore(db *mongo.Database, urls links.URLs) *Store { return &Store{db: db, urls: urls} }

// Indexes are the projection's indexes.
func Indexes() []mongox.Index {
	return []mongox.Index{mongox.Keys(Members, "organization", "user")}
}

type member struct {
	ID           string `bson:"_id"`
	Organization string `bson:"organization"`
	User         string `bson:"user"`
	Role         string `bson:"role"`
}

// Users renders the users with the ids.
func (s *Store) Users(ctx context.Context, ids []string) (map[string]people.User, error) {
	out := map[string]people.User{}
	if len(ids) == 0 {
		return out, nil
	}
	cur, err := s.db.Collection(Users).Find(ctx, bson.M{"_id": bson.M{"$in": ids}})
	if err != nil {
		return nil, mongox.Err(err, "user")
	}
	var ps []people.Profile
	if err := cur.All(ctx, &ps); err != nil {
		return nil, mongox.Err(err, "user")
	}
	known := map[string]people.Profile{}
	for _, p := range ps {
		known[p.ID] = p
	}
	for _, id := range ids {
		p, ok := known[id]
		out[id] = people.Render(s.urls, id, p, ok)
	}
	return out, nil
}

// Knows is whether the projection has the user yet (their event consumed).
func (s *Store) Knows(ctx context.Context, id string) (bool, error) {
	n, err := s.db.Collection(Users).CountDocuments(ctx, bson.M{"_id": id}, options.Count().SetLimit(1))
	return n > 0, mongox.Err(err, "user")
}

// Role is the user's role in org and whether they are a member.
func (s *Store) Role(ctx context.Context, org, user string) (roles.Role, bool, error) {
	var m member
	err := s.db.Collection(Members).FindOne(ctx, bson.M{"_id": org + "/" + user}).Decode(&m)
	if err == mongo.ErrNoDocuments {
		return roles.Guest, false, nil
	}
	if err != nil {
		return roles.Guest, false, mongox.Err(err, "member")
	}
	return roles.Role(m.Role), true, nil
}

// Handle applies one identity event (identityapi.Events); identity's
// other events are ignored. It is idempotent (upserts and deletes by key),
// so redelivery is harmless. An event identity does not declare, or of a
// newer version than this projection reads, is envelope.ErrUnknown: the
// consumer logs, counts and skips it; unreadable data is kafkax.Permanent.
func (s *Store) Handle(ctx context.Context, ev kafkax.Event) error {
	if err := identityapi.Events.Check(ev); err != nil {
		return err
	}
	switch ev.Type {
	case identityapi.UserCreated:
		u, err := identityapi.UserSchema.Decode(ev)
		if err != nil {
			return refuse(err)
		}
		return s.putUser(ctx, u)
	case identityapi.MemberCreated, identityapi.MemberUpdated:
		m, err := identityapi.MemberSchema.Decode(ev)
		if err != nil {
			return refuse(err)
		}
		return s.putMember(ctx, ev.Organization, m)
	case identityapi.MemberDeleted:
		_, err := s.db.Collection(Members).DeleteOne(ctx, bson.M{"_id": ev.Organization + "/" + ev.Subject})
		return mongox.Err(err, "member")
	}
	return nil
}

// refuse is a decoding error as the consumer takes it: an unknown version
// is ignored, unreadable data dead-lettered.
func refuse(err error) error {
	if errors.Is(err, envelope.ErrUnknown) {
		return err
	}
	return kafkax.Permanent(err)
}

func (s *Store) putMember(ctx context.Context, org string, m identityapi.Member) error {
	if err := s.putUser(ctx, m.User); err != nil {
		return err
	}
	role := ""
	if m.Role != nil {
		role = string(*m.Role)
	}
	_, err := s.db.Collection(Members).ReplaceOne(ctx, bson.M{"_id": org + "/" + m.User.ID},
		member{ID: org + "/" + m.User.ID, Organization: org, User: m.User.ID, Role: role},
		options.Replace().SetUpsert(true))
	return mongox.Err(err, "member")
}

func (s *Store) putUser(ctx context.Context, u identityapi.User) error {
	if u.ID == "" {
		return nil
	}
	_, err := s.db.Collection(Users).UpdateOne(ctx, bson.M{"_id": u.ID}, bson.M{"$set": bson.M{
		"displayName": u.DisplayName, "email": u.Email, "photoURL": u.PhotoURL, "updatedAt": time.Now().UTC(),
	}}, options.UpdateOne().SetUpsert(true))
	return mongox.Err(err, "user")
}

// Put records a user and their membership directly, as the events would (for
// seeding and tests that do not run identity).
func (s *Store) Put(ctx context.Context, org, userID, displayName, email string, role roles.Role) error {
	ev := identityapi.NewMemberUpdated(org, identityapi.Member{Object: "member", ID: userID, Role: &role,
		User: identityapi.User{Object: "user", ID: userID, DisplayName: displayName, Email: email}})
	return s.Handle(ctx, ev)
}
