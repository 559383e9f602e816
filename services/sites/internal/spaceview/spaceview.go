// Package spaceview is the sites service's projection of content's spaces:
// the Space objects its site spaces embed, kept current from content.events
// (space.created/updated/moved/transferred/restored replace the view with
// the space as it now is, its organization included; space.deleted and a
// view with deletedAt hide it; space.purged leaves a deleted tombstone).
// Views are ordered by the space's updatedAt, which content sets on every
// change of the space (the event's time when a view has none): an older
// view never overwrites a newer one, whatever order events and content's
// answers arrive in, so redelivery and replays are harmless and a
// transferred or purged space never comes back from a late event. A view
// carries the space's current revision: a merge (space.updated) reaches
// the reader through the projection, with no call to content per page.
package spaceview

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongox"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Collection holds the projection.
const Collection = "space_views"

// Space is a projected space.
type Space struct {
	ID           string `bson:"_id"`
	Organization string `bson:"organization"`
	Title        string `bson:"title"`
	Deleted      bool   `bson:"deleted"`
	// Revision is the space's current revision as the view says it: the
	// reader serves it without asking content ("" for a view stored before
	// views carried it: the reader asks content then).
	Revision string    `bson:"revision,omitempty"`
	View     string    `bson:"view"` // the Space as content's event carried it (JSON)
	At       time.Time `bson:"at"`   // the view's version: its updatedAt (else the event's time)
}

// Store is the projection.
type Store struct {
	db    *mongo.Database
	locks *mongox.DocLocks
}

// NewStore returns the projection on db.
func NewStore(db *mongo.Database, locks *mongox.DocLocks) *Store { return &Store{db: db, locks: locks} }

// Indexes are the projection's indexes.
func Indexes() []mongox.Index { return []mongox.Index{mongox.Keys(Collection, "organization")} }

// Get returns the projected spaces with the ids (deleted ones too; unknown ones are left out).
func (s *Store) Get(ctx context.Context, ids []string) (map[string]Space, error) {
	out := map[string]Space{}
	if len(ids) == 0 {
		return out, nil
	}
	cur, err := s.db.Collection(Collection).Find(ctx, bson.M{"_id": bson.M{"$in": ids}})
	if err != nil {
		return nil, mongox.Err(err, "space")
	}
	var sps []Space
	if err := cur.All(ctx, &sps); err != nil {
		return nil, mongox.Err(err, "space")
	}
	for _, sp := range sps {
		out[sp.ID] = sp
	}
	return out, nil
}

// Put records a space view (from an event, or from content's answer when a
// site first embeds the space) unless a newer one is stored. Its version is
// its updatedAt, else at. deleted (or a deletedAt in the view) hides it.
func (s *Store) Put(ctx context.Context, view json.RawMessage, deleted bool, at time.Time) error {
	var v struct {
		ID           string     `json:"id"`
		Organization string     `json:"organization"`
		Title        string     `json:"title"`
		Revision     string     `json:"revision"`
		UpdatedAt    *time.Time `json:"updatedAt"`
		DeletedAt    *time.Time `json:"deletedAt"`
	}
	if err := json.Unmarshal(view, &v); err != nil || v.ID == "" {
		return fmt.Errorf("%w: %v", errBadView, err)
	}
	if v.UpdatedAt != nil {
		at = v.UpdatedAt.UTC()
	}
	deleted = deleted || v.DeletedAt != nil
	unlock := s.locks.Lock(Collection, v.ID)
	defer unlock()
	var cur Space
	err := s.db.Collection(Collection).FindOne(ctx, bson.M{"_id": v.ID}).Decode(&cur)
	if err == nil && cur.At.After(at) {
		return nil // a newer view is already here
	}
	if err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
		return mongox.Err(err, "space")
	}
	_, err = s.db.Collection(Collection).ReplaceOne(ctx, bson.M{"_id": v.ID},
		Space{ID: v.ID, Organization: v.Organization, Title: v.Title, Deleted: deleted, Revision: v.Revision,
			View: string(view), At: at},
		options.Replace().SetUpsert(true))
	return mongox.Err(err, "space")
}

// errBadView is a space view that cannot be read (no id, not JSON).
var errBadView = errors.New("space view without an id")

// Handle applies one content event; other events are ignored. An event
// whose space cannot be read is kafkax.Permanent: it is dead-lettered
// rather than retried forever in front of the others.
func (s *Store) Handle(ctx context.Context, ev kafkax.Event) error {
	var err error
	switch ev.Type {
	case "space.created", "space.updated", "space.moved", "space.transferred", "space.restored":
		err = s.Put(ctx, ev.Data, false, ev.OccurredAt)
	case "space.deleted", "space.purged":
		err = s.Put(ctx, ev.Data, true, ev.OccurredAt)
	}
	if errors.Is(err, errBadView) {
		return kafkax.Permanent(err)
	}
	return err
}
