// Package changerequestmongo stores change requests in MongoDB through
// libs/docstore (every write carries its event), with a per-space counter
// document for numbers.
package changerequestmongo

import (
	"context"
	"time"

	"github.com/docspub/platform/libs/docstore"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/content/internal/changerequest"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Collections.
const (
	ChangeRequests = "change_requests"
	Numbers        = "change_request_numbers"
	comments       = "comments" // owned by commentmongo; counted here
)

// Store implements changerequest.Store.
type Store struct {
	d  *docstore.Store
	db mongox.DB
}

var _ changerequest.Store = (*Store)(nil)

// NewStore returns a store on db (its document locks are shared with the
// outbox relay); written (nil: none) is called after each write with an
// event (the relay's Notify).
func NewStore(db mongox.DB, written func([]kafkax.Event)) *Store {
	d := docstore.New(db, map[string]string{ChangeRequests: "change request"}, written)
	return &Store{d: d, db: db}
}

// Collections are the collections whose documents carry events.
func Collections() []string { return []string{ChangeRequests} }

// Indexes are the store's indexes: numbers are unique per space.
func Indexes() []mongox.Index {
	return []mongox.Index{
		mongox.Unique(ChangeRequests, "space", "number"),
		mongox.Keys(ChangeRequests, "space", "status", "_id"),
		mongox.Keys(ChangeRequests, "mergingUntil"),
	}
}

// NextNumber hands out the space's next number: an atomic increment of its
// counter document.
func (s *Store) NextNumber(ctx context.Context, space string) (int, error) {
	var doc struct {
		Next int `bson:"next"`
	}
	err := s.d.C(Numbers).FindOneAndUpdate(ctx, bson.M{"_id": space}, bson.M{"$inc": bson.M{"next": 1}},
		options.FindOneAndUpdate().SetUpsert(true).SetReturnDocument(options.After)).Decode(&doc)
	if err != nil {
		return 0, mongox.Err(err, "change request number")
	}
	return doc.Next, nil
}

// Insert stores a new change request.
func (s *Store) Insert(ctx context.Context, cr changerequest.ChangeRequest, ev kafkax.Event) error {
	return s.d.Insert(ctx, ChangeRequests, cr, ev)
}

// Update stores the change of a change request from was to now, provided
// its status, revision, merged ancestor and merge claim are still was's.
func (s *Store) Update(ctx context.Context, was, now changerequest.ChangeRequest, events ...kafkax.Event) error {
	upd, err := mongox.Diff(was, now, "_id")
	if err != nil {
		return err
	}
	cond := bson.M{"status": was.Status, "revision": was.Revision, "revisionMergedAncestor": was.RevisionMergedAncestor,
		"mergingTo": was.MergingTo}
	if was.MergingTo == "" {
		cond["mergingTo"] = bson.M{"$exists": false}
	}
	return s.d.Update(ctx, ChangeRequests, was.ID, cond, upd, events...)
}

// Claimed returns up to limit change requests whose merge claim ended before t.
func (s *Store) Claimed(ctx context.Context, before time.Time, limit int) ([]changerequest.ChangeRequest, error) {
	return docstore.Find[changerequest.ChangeRequest](ctx, s.d, ChangeRequests,
		bson.M{"mergingTo": bson.M{"$exists": true}, "mergingUntil": bson.M{"$lt": before}}, options.Find().SetLimit(int64(limit)))
}

// Get returns a change request of a space.
func (s *Store) Get(ctx context.Context, space, id string) (changerequest.ChangeRequest, error) {
	return docstore.FindOne[changerequest.ChangeRequest](ctx, s.d, ChangeRequests, bson.M{"_id": id, "space": space})
}

// ByNumber returns a space's change request by number.
func (s *Store) ByNumber(ctx context.Context, space string, number int) (changerequest.ChangeRequest, error) {
	return docstore.FindOne[changerequest.ChangeRequest](ctx, s.d, ChangeRequests, bson.M{"space": space, "number": number})
}

// List returns a page of change requests, newest first, and the count of all matching.
func (s *Store) List(ctx context.Context, q changerequest.Query) ([]changerequest.ChangeRequest, int, error) {
	f := bson.M{"space": q.Space}
	if q.Status != "" {
		f["status"] = q.Status
	}
	if q.Contributor != "" {
		f["contributors"] = q.Contributor
	}
	if q.Creator != "" {
		f["createdBy"] = q.Creator
	}
	return docstore.Page[changerequest.ChangeRequest](ctx, s.d, ChangeRequests, f,
		docstore.Keyset{Field: "_id", Desc: true, AfterID: q.AfterID, Limit: q.Limit})
}

// OpenComments counts the open comments of each change request.
func (s *Store) OpenComments(ctx context.Context, ids []string) (map[string]int, error) {
	out := map[string]int{}
	if len(ids) == 0 {
		return out, nil
	}
	type doc struct {
		ChangeRequest string `bson:"changeRequest"`
	}
	cs, err := docstore.Find[doc](ctx, s.d, comments, bson.M{"changeRequest": bson.M{"$in": ids}, "status": "open"},
		options.Find().SetProjection(bson.M{"changeRequest": 1}))
	for _, c := range cs {
		out[c.ChangeRequest]++
	}
	return out, err
}

// DeleteSpace removes a purged space's change requests and counter.
func (s *Store) DeleteSpace(ctx context.Context, space string) error {
	if err := s.d.Delete(ctx, ChangeRequests, bson.M{"space": space}); err != nil {
		return err
	}
	_, err := s.d.C(Numbers).DeleteOne(ctx, bson.M{"_id": space})
	return mongox.Err(err, "change request number")
}
