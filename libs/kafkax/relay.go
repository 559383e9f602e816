package kafkax

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/docspub/platform/libs/mongox"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Defaults of a Relay.
const (
	DefaultSweepInterval = 200 * time.Millisecond
	DefaultSweepBatch    = 200
	maxRelayBackoff      = 2 * time.Second
	minRelayBackoff      = 50 * time.Millisecond
)

// Relay moves pending events from documents to Kafka. One relay serves the
// collections of one service database; several relays (replicas) may run on
// the same database: an event is then possibly published twice, which
// idempotent consumers absorb.
type Relay struct {
	db          *mongo.Database
	pub         *Publisher
	topic       string
	collections []string
	log         *slog.Logger
	interval    time.Duration
	batch       int
	locks       *mongox.DocLocks
	wake        chan struct{}
}

// RelayOption tunes a Relay.
type RelayOption func(*Relay)

// WithSweepInterval sets how often the relay looks for pending events when
// nobody calls Notify (default DefaultSweepInterval).
func WithSweepInterval(d time.Duration) RelayOption {
	return func(r *Relay) {
		if d > 0 {
			r.interval = d
		}
	}
}

// WithSweepBatch bounds how many documents of one collection a sweep
// publishes at once (default DefaultSweepBatch); the relay sweeps again at
// once while there are more.
func WithSweepBatch(n int) RelayOption {
	return func(r *Relay) {
		if n > 0 {
			r.batch = n
		}
	}
}

// WithDocLocks makes the relay lock each document (collection, _id) while it
// removes published events from it, so that on FerretDB v1 the removal cannot
// overwrite a concurrent change of the service's store sharing locks.
func WithDocLocks(locks *mongox.DocLocks) RelayOption {
	return func(r *Relay) { r.locks = locks }
}

// NewRelay returns a relay publishing the pending events of the given
// collections of db to topic.
func NewRelay(db *mongo.Database, pub *Publisher, topic string, collections []string, log *slog.Logger, opts ...RelayOption) *Relay {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	r := &Relay{
		db:          db,
		pub:         pub,
		topic:       topic,
		collections: collections,
		log:         log.With("component", "kafkax.relay", "topic", topic),
		interval:    DefaultSweepInterval,
		batch:       DefaultSweepBatch,
		wake:        make(chan struct{}, 1),
	}
	for _, o := range opts {
		o(r)
	}
	return r
}

// Notify wakes the relay at once; call it after a write that pushed events.
// It never blocks.
func (r *Relay) Notify() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// Run sweeps until ctx is done, then returns nil. A failed sweep is logged
// and retried after a backoff that doubles up to 2s; events stay pending
// meanwhile, none is dropped.
func (r *Relay) Run(ctx context.Context) error {
	timer := time.NewTimer(0)
	defer timer.Stop()
	failures := 0
	for {
		_, more, err := r.sweep(ctx)
		if ctx.Err() != nil {
			return nil
		}
		var wait time.Duration
		switch {
		case err != nil:
			failures++
			wait = backoff(failures, minRelayBackoff, maxRelayBackoff)
			r.log.WarnContext(ctx, "relay events", "err", err, "retry_in", wait.String())
		case more:
			failures = 0
		default:
			failures = 0
			wait = r.interval
		}
		if wait == 0 {
			continue
		}
		timer.Reset(wait)
		if err != nil {
			// Back off for real: a Notify must not turn into a tight retry loop.
			select {
			case <-ctx.Done():
				return nil
			case <-timer.C:
			}
			continue
		}
		select {
		case <-ctx.Done():
			return nil
		case <-timer.C:
		case <-r.wake:
			// No drain needed: since Go 1.23 Reset discards a pending tick.
		}
	}
}

// SweepOnce publishes the events pending now (up to the batch size per
// collection) and returns how many were published. Events that could not be
// published stay pending.
func (r *Relay) SweepOnce(ctx context.Context) (int, error) {
	n, _, err := r.sweep(ctx)
	return n, err
}

func (r *Relay) sweep(ctx context.Context) (published int, more bool, err error) {
	for _, name := range r.collections {
		n, full, err := r.sweepCollection(ctx, r.db.Collection(name))
		published += n
		more = more || full
		if err != nil {
			return published, more, fmt.Errorf("relay %s: %w", name, err)
		}
	}
	return published, more, nil
}

// pendingDoc is what the relay reads of a document: its id, its pending
// events as stored (to remove exactly those) and its tombstone mark.
type pendingDoc struct {
	ID        bson.RawValue `bson:"_id"`
	Outbox    []bson.Raw    `bson:"_outbox"`
	Tombstone bool          `bson:"_tombstone"`
}

// pendingFilter finds documents with events to publish, and tombstones left
// without events (their deletion failed after the publication).
var pendingFilter = bson.M{"$or": bson.A{
	bson.M{OutboxField + ".0": bson.M{"$exists": true}},
	bson.M{TombstoneField: true},
}}

func (r *Relay) sweepCollection(ctx context.Context, coll *mongo.Collection) (int, bool, error) {
	cur, err := coll.Find(ctx, pendingFilter, options.Find().
		SetProjection(bson.M{OutboxField: 1, TombstoneField: 1}).
		SetSort(bson.D{{Key: "_id", Value: 1}}).
		SetLimit(int64(r.batch)))
	if err != nil {
		return 0, false, fmt.Errorf("find pending events: %w", err)
	}
	var docs []pendingDoc
	if err := cur.All(ctx, &docs); err != nil {
		return 0, false, fmt.Errorf("read pending events: %w", err)
	}
	full := len(docs) == r.batch

	// Encode every document's events; a document with an event that cannot
	// be encoded is skipped (and logged) so it does not hold back the others.
	var out []outgoing
	first := make([]int, len(docs)) // index in out of each document's first event
	count := make([]int, len(docs)) // how many events of the document are in out
	for i, d := range docs {
		first[i] = len(out)
		enc, err := r.encodeAll(coll.Name(), d)
		if err != nil {
			r.log.ErrorContext(ctx, "event cannot be published; it stays pending", "collection", coll.Name(), "err", err)
			continue
		}
		out = append(out, enc...)
		count[i] = len(enc)
	}

	pubErr := r.pub.write(ctx, r.topic, out)
	ok := written(pubErr, len(out))

	// Remove what Kafka acknowledged: per document the leading events up to
	// the first failure, so a retry keeps the order.
	published := 0
	var errs []error
	for i, d := range docs {
		n := 0
		for n < count[i] && ok[first[i]+n] {
			n++
		}
		removed, err := r.settle(ctx, coll, d, n)
		published += removed
		if err != nil {
			errs = append(errs, err)
		}
	}
	if pubErr != nil {
		errs = append([]error{pubErr}, errs...)
	}
	// Sweep again at once only when this batch made progress: a batch full
	// of events that cannot be published must not spin.
	return published, full && published > 0, errors.Join(errs...)
}

func (r *Relay) encodeAll(collection string, d pendingDoc) ([]outgoing, error) {
	out := make([]outgoing, 0, len(d.Outbox))
	for _, raw := range d.Outbox {
		var ev Event
		err := bson.Unmarshal(raw, &ev)
		if err == nil {
			var o outgoing
			o, err = encode(r.topic, ev)
			out = append(out, o)
		}
		if err != nil {
			end(out, err)
			return nil, fmt.Errorf("document %s of %s: %w", d.ID, collection, err)
		}
	}
	return out, nil
}

// settle removes the first n events of d, which Kafka acknowledged, and
// deletes d when it is a tombstone left without events. It returns how many
// events it removed.
func (r *Relay) settle(ctx context.Context, coll *mongo.Collection, d pendingDoc, n int) (int, error) {
	if n == 0 && !(d.Tombstone && len(d.Outbox) == 0) {
		return 0, nil
	}
	unlock := r.locks.Lock(coll.Name(), lockID(d.ID))
	defer unlock()
	if n > 0 {
		if err := r.remove(ctx, coll, d, n); err != nil {
			return 0, err
		}
	}
	if d.Tombstone && n == len(d.Outbox) {
		if err := r.deleteTombstone(ctx, coll, d); err != nil {
			return n, err
		}
	}
	return n, nil
}

// lockID returns the Go value of a document id as stores pass it to
// DocLocks.Lock (string, ObjectID and integer ids; others by their text).
func lockID(id bson.RawValue) any {
	if s, ok := id.StringValueOK(); ok {
		return s
	}
	if oid, ok := id.ObjectIDOK(); ok {
		return oid
	}
	if n, ok := id.AsInt64OK(); ok {
		return n
	}
	return id.String()
}

// remove pulls the first n pending events of d, matched by their stored value,
// leaving any event pushed since the read.
func (r *Relay) remove(ctx context.Context, coll *mongo.Collection, d pendingDoc, n int) error {
	pull := make(bson.A, n)
	for i := range n {
		pull[i] = d.Outbox[i]
	}
	_, err := coll.UpdateOne(ctx, bson.M{"_id": d.ID}, bson.M{"$pullAll": bson.M{OutboxField: pull}})
	if err != nil {
		return fmt.Errorf("remove published events of %s: %w", d.ID, err)
	}
	return nil
}

// deleteTombstone deletes a tombstone unless an event was pushed onto it
// since the read (it is then deleted by a later sweep).
func (r *Relay) deleteTombstone(ctx context.Context, coll *mongo.Collection, d pendingDoc) error {
	_, err := coll.DeleteOne(ctx, bson.M{
		"_id":              d.ID,
		TombstoneField:     true,
		OutboxField + ".0": bson.M{"$exists": false},
	})
	if err != nil {
		return fmt.Errorf("delete tombstone %s: %w", d.ID, err)
	}
	return nil
}

// backoff returns the wait before retry attempt n (1-based): lo doubled per
// attempt, capped at hi.
func backoff(n int, lo, hi time.Duration) time.Duration {
	d := lo
	for i := 1; i < n && d < hi; i++ {
		d *= 2
	}
	return min(d, hi)
}
