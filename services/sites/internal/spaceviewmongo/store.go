// Package spaceviewmongo stores the projection of content's spaces
// (spaceview) in MongoDB and applies content's events to it.
package spaceviewmongo

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/sites/internal/spaceview"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Collection holds the projection.
const Collection = "space_views"

// Store is the projection.
type Store struct {
	db mongox.DB
}

var _ spaceview.Reader = (*Store)(nil)

// NewStore returns the projection on db.
func NewStore(db mongox.DB) *Store { return &Store{db: db} }

// Indexes are the projection's indexes.
func Indexes() []mongox.Index { return []mongox.Index{mongox.Keys(Collection, "organization")} }

// Get returns the projected spaces with the ids (deleted ones too; unknown ones are left out).
func (s *Store) Get(ctx context.Context, ids []string) (map[string]spaceview.Space, error) {
	out := map[string]spaceview.Space{}
	if len(ids) == 0 {
		return out, nil
	}
	cur, err := s.db.Collection(Collection).Find(ctx, bson.M{"_id": bson.M{"$in": ids}})
	if err != nil {
		return nil, mongox.Err(err, "space")
	}
	var sps []spaceview.Space
	if err := cur.All(ctx, &sps); err != nil {
		return nil, mongox.Err(err, "space")
	}
	for _, sp := range sps {
		out[sp.ID] = sp
	}
	return out, nil
}

// Put records a space view (spaceview.Parse) unless a newer one is stored.
func (s *Store) Put(ctx context.Context, view json.RawMessage, deleted bool, at time.Time) error {
	sp, err := spaceview.Parse(view, deleted, at)
	if err != nil {
		return err
	}
	unlock := s.db.Lock(Collection, sp.ID)
	defer unlock()
	var cur spaceview.Space
	err = s.db.Collection(Collection).FindOne(ctx, bson.M{"_id": sp.ID}).Decode(&cur)
	if err == nil && cur.At.After(sp.At) {
		return nil // a newer view is already here
	}
	if err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
		return mongox.Err(err, "space")
	}
	_, err = s.db.Collection(Collection).ReplaceOne(ctx, bson.M{"_id": sp.ID}, sp, options.Replace().SetUpsert(true))
	return mongox.Err(err, "space")
}

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
	if errors.Is(err, spaceview.ErrBadView) {
		return kafkax.Permanent(err)
	}
	return err
}
