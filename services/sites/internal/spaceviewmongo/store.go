// Package spaceviewmongo stores the projection of content's spaces
// (spaceview) in MongoDB and applies content's events to it.
package spaceviewmongo

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/internalapi/contentapi"
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
	return s.put(ctx, sp)
}

// put records sp unless a newer view of the space is stored: one replace
// of a view no newer than sp, or an insert, which a newer view's _id
// refuses (a compare-and-set of the view's time).
func (s *Store) put(ctx context.Context, sp spaceview.Space) error {
	_, err := s.db.Collection(Collection).ReplaceOne(ctx, bson.M{"_id": sp.ID, "at": bson.M{"$lte": sp.At}}, sp,
		options.Replace().SetUpsert(true))
	if mongo.IsDuplicateKeyError(err) {
		return nil // a newer view is already here
	}
	return mongox.Err(err, "space")
}

// Handle applies one content event (contentapi.Events); content's other
// events are ignored. An event content does not declare, or of a newer
// version than this projection reads, is envelope.ErrUnknown: the
// consumer logs, counts and skips it. An event whose space cannot be read
// is kafkax.Permanent: it is dead-lettered rather than retried forever in
// front of the others.
func (s *Store) Handle(ctx context.Context, ev kafkax.Event) error {
	if err := contentapi.Events.Check(ev); err != nil {
		return err
	}
	deleted := false
	switch ev.Type {
	case contentapi.SpaceCreated, contentapi.SpaceUpdated, contentapi.SpaceMoved, contentapi.SpaceTransferred, contentapi.SpaceRestored:
	case contentapi.SpaceDeleted, contentapi.SpacePurged:
		deleted = true
	default:
		return nil
	}
	v, err := contentapi.DecodeSpace(ev)
	if err != nil {
		if errors.Is(err, envelope.ErrUnknown) {
			return err
		}
		return kafkax.Permanent(err)
	}
	view := ev.Data
	if ev.SchemaVersion() != contentapi.SpaceVersion {
		// An older version's data, read into the current payload: the
		// site spaces embed the space as content renders it now.
		if view, err = envelope.Marshal(v); err != nil {
			return kafkax.Permanent(err)
		}
	}
	sp, err := spaceview.Project(v, view, deleted, ev.OccurredAt)
	if err != nil {
		return kafkax.Permanent(err)
	}
	return s.put(ctx, sp)
}
