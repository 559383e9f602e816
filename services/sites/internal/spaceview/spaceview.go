// Package spaceview is the sites service's projection of content's spaces:
// the Space objects its site spaces embed, kept current from content.events
// (space.created/updated/moved/transferred/restored replace the view,
// space.deleted hides it, space.purged drops it). Events carry their time;
// an older event never overwrites a newer view, so redelivery and replays
// are harmless.
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
	ID           string    `bson:"_id"`
	Organization string    `bson:"organization"`
	Title        string    `bson:"title"`
	Deleted      bool      `bson:"deleted"`
	View         string    `bson:"view"` // the Space as content's event carried it (JSON)
	At           time.Time `bson:"at"`   // occurredAt of the event that wrote it
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

// Put records a space view as of at (from an event or from content's answer
// when a site first embeds the space), unless a newer one is stored.
func (s *Store) Put(ctx context.Context, view json.RawMessage, deleted bool, at time.Time) error {
	var v struct {
		ID           string `json:"id"`
		Organization string `json:"organization"`
		Title        string `json:"title"`
	}
	if err := json.Unmarshal(view, &v); err != nil || v.ID == "" {
		return fmt.Errorf("space view without id: %w", err)
	}
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
		Space{ID: v.ID, Organization: v.Organization, Title: v.Title, Deleted: deleted, View: string(view), At: at},
		options.Replace().SetUpsert(true))
	return mongox.Err(err, "space")
}

// Handle applies one content event; other events are ignored.
func (s *Store) Handle(ctx context.Context, ev kafkax.Event) error {
	switch ev.Type {
	case "space.created", "space.updated", "space.moved", "space.transferred", "space.restored":
		return s.Put(ctx, ev.Data, false, ev.OccurredAt)
	case "space.deleted":
		return s.Put(ctx, ev.Data, true, ev.OccurredAt)
	case "space.purged":
		_, err := s.db.Collection(Collection).DeleteOne(ctx, bson.M{"_id": ev.Subject})
		return mongox.Err(err, "space")
	}
	return nil
}
