// Package docstore is the MongoDB store shape every service shares: each
// write records its domain event on the written document in the same update
// (the outbox of libs/kafkax), removals tombstone the document for the relay
// to publish and delete, and every read skips tombstones.
//
// Events are bounded when they are written, never found too large later by
// the relay: a change whose event would exceed kafkax.MaxEventBytes on Kafka
// is refused whole (413, nothing written), and a change of a document whose
// pending events would pass kafkax.MaxPendingBytes (Kafka down for a while,
// a burst of changes) is refused with a 503 and Retry-After until the relay
// caught up; other documents and every read are unaffected.
//
// Driver errors never leave the package: a missing document becomes an
// apierr not-found error naming the resource, a duplicate key a conflict.
package docstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongox"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Store writes and reads documents with their pending events.
type Store struct {
	db      mongox.DB
	names   map[string]string
	written func(events []kafkax.Event)
	// byID caches documents read by _id under their generations, which
	// Insert, Update and Delete bump once done (see CacheByID).
	byID map[string]*idCache
	// lists caches tenants' pages under the tenants' generations, which
	// the same writes bump (see CacheLists).
	lists map[string]*listCache
}

// New returns a store on db. names gives the singular resource name of each
// collection, used in error messages ("space not found"). written (nil:
// none) is called after every write that recorded events, with them: the
// relay's Notify, so that they leave at once, and whatever drops what a
// cache keeps of what they name.
func New(db mongox.DB, names map[string]string, written func(events []kafkax.Event)) *Store {
	return &Store{db: db, names: names, written: written}
}

// Notify adapts f (nil: none) to New's written, for a store whose writes
// need to call f without their events (the relay's Notify).
func Notify(f func()) func(events []kafkax.Event) {
	if f == nil {
		return nil
	}
	return func([]kafkax.Event) { f() }
}

// DB returns the database.
func (s *Store) DB() mongox.DB { return s.db }

func (s *Store) wrote(events []kafkax.Event) {
	if s.written != nil {
		s.written(events)
	}
}

// Name is the singular resource name of a collection.
func (s *Store) Name(coll string) string {
	if n, ok := s.names[coll]; ok {
		return n
	}
	return coll
}

// C returns a collection to write to.
func (s *Store) C(coll string) *mongo.Collection { return s.db.Collection(coll) }

// R returns a collection to read from (mongox.DB.Reads): it sees every
// write acknowledged before the read is sent, and is never written to.
func (s *Store) R(coll string) *mongo.Collection { return s.db.Reads().Collection(coll) }

// Live adds the not-a-tombstone condition to a filter (a copy; f is unchanged).
func Live(f bson.M) bson.M {
	out := bson.M{kafkax.TombstoneField: bson.M{"$ne": true}}
	for k, v := range f {
		out[k] = v
	}
	return out
}

// traced returns the events with ctx's trace context on those that carry
// none, so that the relay's publish (and every consumer) continues the
// trace of the request that made the change.
func traced(ctx context.Context, events []kafkax.Event) []kafkax.Event {
	out := make([]kafkax.Event, len(events))
	for i, ev := range events {
		if len(ev.Trace) == 0 {
			ev = ev.WithTrace(ctx)
		}
		out[i] = ev
	}
	return out
}

// RetryFull is the Retry-After of a change refused because its document
// has kafkax.MaxPendingBytes of events waiting for Kafka.
const RetryFull = 10 * time.Second

// outbox checks the events of a change of coll (see kafkax.NewOutbox): an
// event too large for Kafka is a 413 naming the resource and the sizes.
func (s *Store) outbox(coll string, events []kafkax.Event) (kafkax.Outbox, error) {
	o, err := kafkax.NewOutbox(events...)
	var tl *kafkax.TooLargeError
	switch {
	case errors.As(err, &tl) && tl.ID != "":
		return o, apierr.TooLarge("%s change too large: its %s event would be %d bytes, at most %d", s.Name(coll), tl.Type, tl.Size, tl.Max)
	case errors.As(err, &tl):
		return o, apierr.TooLarge("%s change too large: its %s events would take %d bytes, at most %d", s.Name(coll), tl.Type, tl.Size, tl.Max)
	case err != nil:
		return o, fmt.Errorf("%s event: %w", s.Name(coll), err)
	}
	return o, nil
}

// Insert stores a new document with its events.
func (s *Store) Insert(ctx context.Context, coll string, doc any, events ...kafkax.Event) error {
	events = traced(ctx, events)
	o, err := s.outbox(coll, events)
	if err != nil {
		return err
	}
	raw, err := bson.Marshal(doc)
	if err != nil {
		return fmt.Errorf("marshal %s: %w", s.Name(coll), err)
	}
	var m bson.D
	if err := bson.Unmarshal(raw, &m); err != nil {
		return fmt.Errorf("marshal %s: %w", s.Name(coll), err)
	}
	m = append(m, o.Fields()...)
	defer s.changed(coll, idOf(raw))
	if s.lists[coll] != nil {
		tenant, _ := bson.Raw(raw).Lookup(TenantField).StringValueOK()
		defer s.TenantChanged(coll, tenant)
	}
	if _, err = s.C(coll).InsertOne(ctx, m); err != nil {
		return mongox.Err(err, s.Name(coll))
	}
	if len(events) > 0 {
		s.wrote(events)
	}
	return nil
}

// Set changes fields of a live document and records its events; a missing
// document is a not-found error.
func (s *Store) Set(ctx context.Context, coll, id string, set bson.M, events ...kafkax.Event) error {
	return s.Update(ctx, coll, id, nil, Setter(set), events...)
}

// Setter is the update document setting the fields (none when set is empty).
func Setter(set bson.M) bson.M {
	if len(set) == 0 {
		return bson.M{}
	}
	return bson.M{"$set": set}
}

// Update applies upd to the live document id that also matches cond (nil:
// no further condition) and records the events. When nothing matches it is
// a not-found error; callers that check a precondition with cond read the
// document again to say what failed. An event too large for Kafka refuses
// the change (413); so does, for now (503 with Retry-After), a document
// whose pending events leave no room for these.
func (s *Store) Update(ctx context.Context, coll, id string, cond, upd bson.M, events ...kafkax.Event) error {
	events = traced(ctx, events)
	o, err := s.outbox(coll, events)
	if err != nil {
		return err
	}
	o.AddTo(upd)
	if len(upd) == 0 {
		return nil
	}
	f := Live(cond)
	f["_id"] = id
	o.Room(f)
	res, err := s.C(coll).UpdateOne(ctx, f, upd)
	s.changed(coll, id)
	s.tenantsWrote(coll, cond, events)
	if err != nil {
		return mongox.Err(err, s.Name(coll))
	}
	if res.MatchedCount == 0 {
		return s.unmatched(ctx, coll, id, cond, o)
	}
	if len(events) > 0 {
		s.wrote(events)
	}
	return nil
}

// unmatched says why an update with events o matched nothing: the document
// matches but its pending events leave no room (503), or it does not (404).
func (s *Store) unmatched(ctx context.Context, coll, id string, cond bson.M, o kafkax.Outbox) error {
	notFound := apierr.NotFound("%s not found", s.Name(coll))
	if o.Len() == 0 {
		return notFound
	}
	f := Live(cond)
	f["_id"] = id
	n, err := s.C(coll).CountDocuments(ctx, f)
	if err != nil {
		return mongox.Err(err, s.Name(coll))
	}
	if n == 0 {
		return notFound
	}
	return apierr.Unavailable(RetryFull, "%s has too many changes waiting to be published; try again later", s.Name(coll))
}

// Remove tombstones a live document, records its deletion event and applies
// the extra fields of set (for example freeing a unique key). The relay
// deletes the document once the event is published.
func (s *Store) Remove(ctx context.Context, coll, id string, set bson.M, ev kafkax.Event) error {
	fields := bson.M{kafkax.TombstoneField: true}
	for k, v := range set {
		fields[k] = v
	}
	return s.Update(ctx, coll, id, nil, bson.M{"$set": fields}, ev)
}

// Delete removes the live documents matching f at once, without events
// (for data whose owner's deletion event already says it is gone).
func (s *Store) Delete(ctx context.Context, coll string, f bson.M) error {
	defer s.changed(coll, filterID(f))
	defer s.TenantChanged(coll, tenantOf(f[TenantField]))
	if _, err := s.C(coll).DeleteMany(ctx, Live(f)); err != nil {
		return mongox.Err(err, s.Name(coll))
	}
	return nil
}

// idOf is the _id of a marshalled document when it is a string, else ""
// (which names every document to changed).
func idOf(doc bson.Raw) string {
	id, _ := doc.Lookup("_id").StringValueOK()
	return id
}

// filterID is the _id a filter names when it is its one condition and a
// string, else "" (the filter may match any document).
func filterID(f bson.M) string {
	if id, ok := f["_id"].(string); ok && len(f) == 1 {
		return id
	}
	return ""
}

// Count counts the live documents matching f.
func (s *Store) Count(ctx context.Context, coll string, f bson.M) (int, error) {
	n, err := s.R(coll).CountDocuments(ctx, Live(f))
	if err != nil {
		return 0, mongox.Err(err, s.Name(coll))
	}
	return int(n), nil
}

// FindOne decodes the live document matching f; none is a not-found error.
func FindOne[T any](ctx context.Context, s *Store, coll string, f bson.M) (T, error) {
	return findOne[T](ctx, s, s.R(coll), coll, f)
}

// FindLatest is FindOne read where the store writes, not through the
// reads' client (which may lag: MongoDB's secondaries, the embedded
// server's read pool): for a read a decision depends on that no
// compare-and-set guards.
func FindLatest[T any](ctx context.Context, s *Store, coll string, f bson.M) (T, error) {
	return findOne[T](ctx, s, s.C(coll), coll, f)
}

func findOne[T any](ctx context.Context, s *Store, c *mongo.Collection, coll string, f bson.M) (T, error) {
	var v T
	if _, ok := f["_id"]; ok && len(f) == 1 {
		// By _id alone, the tombstone checked here: FerretDB's SQLite
		// backend looks a document up by _id only when _id is the filter's
		// one condition, and scans the whole collection otherwise.
		raw, err := c.FindOne(ctx, f).Raw()
		if err == nil {
			if t, ok := raw.Lookup(kafkax.TombstoneField).BooleanOK(); ok && t {
				err = mongo.ErrNoDocuments
			} else {
				err = bson.Unmarshal(raw, &v)
			}
		}
		return v, mongox.Err(err, s.Name(coll))
	}
	err := c.FindOne(ctx, Live(f)).Decode(&v)
	return v, mongox.Err(err, s.Name(coll))
}

// Find decodes every live document matching f.
func Find[T any](ctx context.Context, s *Store, coll string, f bson.M, opts ...options.Lister[options.FindOptions]) ([]T, error) {
	cur, err := s.R(coll).Find(ctx, Live(f), opts...)
	if err != nil {
		return nil, mongox.Err(err, s.Name(coll))
	}
	out := []T{}
	if err := cur.All(ctx, &out); err != nil {
		return nil, mongox.Err(err, s.Name(coll))
	}
	return out, nil
}

// Keyset is one page of a list sorted by Field then _id: the items after
// (AfterValue, AfterID) when AfterID is set, at most Limit (0: all).
type Keyset struct {
	Field      string // "_id" sorts by id only
	Desc       bool
	AfterValue any
	AfterID    string
	Limit      int
	// Fields are the fields read (none: every one).
	Fields []string
}

// Page decodes one keyset page of the live documents matching f and counts
// all of them. Its cost does not grow with the page's depth: the cursor is a
// range condition on the sort index, never a skip.
func Page[T any](ctx context.Context, s *Store, coll string, f bson.M, k Keyset) ([]T, int, error) {
	count, err := s.Count(ctx, coll, f)
	if err != nil {
		return nil, 0, err
	}
	q, opts := keysetQuery(f, k)
	items, err := Find[T](ctx, s, coll, q, opts)
	return items, count, err
}
