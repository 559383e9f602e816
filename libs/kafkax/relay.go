package kafkax

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/docspub/platform/libs/backoff"
	"github.com/docspub/platform/libs/mongox"
	"github.com/segmentio/kafka-go"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.opentelemetry.io/otel/attribute"
)

// Defaults of a Relay.
const (
	DefaultSweepInterval = 200 * time.Millisecond
	// DefaultIdleSweepInterval is the longest wait between the sweeps of a
	// relay that finds nothing to publish: each empty sweep doubles the wait
	// from the sweep interval up to it, and a Notify or a sweep that
	// published brings it back. The writes of a running service Notify
	// their relay, so only events nobody announced (a crashed replica's, a
	// tool's) wait up to it; an idle platform sweeps five times less.
	DefaultIdleSweepInterval = time.Second
	DefaultSweepBatch        = 200
	// DefaultMaxAttempts is how many times the relay tries an event that
	// fails while Kafka is up before it moves the event to the dead letters.
	DefaultMaxAttempts = 8
	// DefaultRetryMin and DefaultRetryMax bound the wait before a failed
	// event is tried again (doubling per attempt): with the defaults an
	// event is given up on about a minute and a half after its first failure.
	DefaultRetryMin = time.Second
	DefaultRetryMax = 30 * time.Second
	// DefaultQueryTimeout bounds each MongoDB operation of a sweep.
	DefaultQueryTimeout = 10 * time.Second

	maxRelayBackoff = 2 * time.Second
	minRelayBackoff = 50 * time.Millisecond
	// maxSweepBytes bounds the pending events one collection's sweep reads
	// into memory (besides the batch size in documents).
	maxSweepBytes = 16 << 20
)

// Relay moves pending events from documents to Kafka. One relay serves the
// collections of one service database; several relays (replicas) may run on
// the same database: an event is then possibly published twice, which
// idempotent consumers absorb.
//
// A failure stays with what failed: a collection whose query fails rests
// (with backoff) while the others are swept; a document whose first pending
// event fails while Kafka is up waits (with backoff, recorded on the
// document in OutboxFailureField) and is then tried alone, and after
// MaxAttempts its event moves to DeadLetterCollection so that the
// document's later events flow. When Kafka acknowledges nothing at all it is
// down: nothing is counted, everything stays pending and the whole relay
// backs off.
type Relay struct {
	db           mongox.DB
	pub          *Publisher
	topic        string
	collections  []string
	log          *slog.Logger
	interval     time.Duration
	idleInterval time.Duration // the longest wait after empty sweeps
	batch        int
	wake         chan struct{}
	maxAttempts  int
	retryMin     time.Duration
	retryMax     time.Duration
	queryTimeout time.Duration

	mu      sync.Mutex // one sweep at a time; guards resting
	resting map[string]rest
}

// rest is the backoff of a collection whose query failed.
type rest struct {
	failures int
	until    time.Time
}

// RelayOption tunes a Relay.
type RelayOption func(*Relay)

// WithSweepInterval sets how often the relay looks for pending events when
// nobody calls Notify, idle or not (default DefaultSweepInterval, backing
// off to DefaultIdleSweepInterval while the sweeps find nothing).
func WithSweepInterval(d time.Duration) RelayOption {
	return func(r *Relay) {
		if d > 0 {
			r.interval, r.idleInterval = d, d
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

// WithRetries sets how many times an event failing while Kafka is up is
// tried before it moves to the dead letters (at least 2, so that the last
// attempt sends it alone), and the bounds of the doubling wait between
// attempts (defaults DefaultMaxAttempts, DefaultRetryMin, DefaultRetryMax).
func WithRetries(maxAttempts int, lo, hi time.Duration) RelayOption {
	return func(r *Relay) {
		r.maxAttempts = max(maxAttempts, 2)
		if lo > 0 && hi >= lo {
			r.retryMin, r.retryMax = lo, hi
		}
	}
}

// WithQueryTimeout bounds each MongoDB operation of a sweep (default
// DefaultQueryTimeout).
func WithQueryTimeout(d time.Duration) RelayOption {
	return func(r *Relay) {
		if d > 0 {
			r.queryTimeout = d
		}
	}
}

// NewRelay returns a relay publishing the pending events of the given
// collections of db to topic.
func NewRelay(db mongox.DB, pub *Publisher, topic string, collections []string, log *slog.Logger, opts ...RelayOption) *Relay {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	r := &Relay{
		db:           db,
		pub:          pub,
		topic:        topic,
		collections:  collections,
		log:          log.With("component", "kafkax.relay", "topic", topic),
		interval:     DefaultSweepInterval,
		idleInterval: DefaultIdleSweepInterval,
		batch:        DefaultSweepBatch,
		wake:         make(chan struct{}, 1),
		maxAttempts:  DefaultMaxAttempts,
		retryMin:     DefaultRetryMin,
		retryMax:     DefaultRetryMax,
		queryTimeout: DefaultQueryTimeout,
		resting:      map[string]rest{},
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

// Run sweeps until ctx is done, then returns nil. When Kafka acknowledges
// nothing the relay backs off (doubling up to 2s) and events stay pending,
// none is dropped; other failures are logged and only what failed waits.
func (r *Relay) Run(ctx context.Context) error {
	defer r.observeBacklog()()
	timer := time.NewTimer(0)
	defer timer.Stop()
	failures, empty := 0, 0
	for {
		res := r.sweep(ctx)
		if ctx.Err() != nil {
			return nil
		}
		var wait time.Duration
		switch {
		case res.down:
			failures++
			wait = backoff.Wait(failures, minRelayBackoff, maxRelayBackoff)
			r.log.WarnContext(ctx, "relay events: Kafka acknowledged nothing", "err", res.err, "retry_in", wait.String())
		case res.more:
			failures, empty = 0, 0
		default:
			failures = 0
			if res.published > 0 || res.err != nil {
				empty = 0
			}
			wait = r.sweepWait(empty)
			empty++
		}
		if res.err != nil && !res.down {
			r.log.WarnContext(ctx, "relay events", "err", res.err)
		}
		if wait == 0 {
			continue
		}
		timer.Reset(wait)
		if res.down {
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
			empty = 0
		}
	}
}

// sweepWait is the wait before the next sweep after empty sweeps in a row
// that published nothing: the interval, doubled per empty sweep, at most
// the idle interval (and never below the interval).
func (r *Relay) sweepWait(empty int) time.Duration {
	wait := r.interval
	for range min(empty, 32) {
		if wait >= r.idleInterval {
			break
		}
		wait *= 2
	}
	return max(min(wait, r.idleInterval), r.interval)
}

// SweepOnce publishes the events pending now (up to the batch size per
// collection) and returns how many were published. Events that could not be
// published stay pending, or move to the dead letters once they failed
// MaxAttempts times while Kafka was up; the error joins every failure.
func (r *Relay) SweepOnce(ctx context.Context) (int, error) {
	res := r.sweep(ctx)
	return res.published, res.err
}

// sweepResult is what one sweep of every collection did.
type sweepResult struct {
	published int
	more      bool // a collection had more pending events than one sweep takes
	down      bool // events failed while Kafka acknowledged none: nothing counted
	err       error
}

// sweep sweeps every collection that is not resting, whatever failed in the
// others, then counts the failures of events: those Kafka refused or that
// could not be encoded always, the others only when Kafka acknowledged some
// event of the sweep (it is up, so the failure is the event's).
func (r *Relay) sweep(ctx context.Context) sweepResult {
	r.mu.Lock()
	defer r.mu.Unlock()
	var (
		res    sweepResult
		errs   []error
		failed []failure
		acked  int
	)
	for _, name := range r.collections {
		if time.Now().Before(r.resting[name].until) {
			continue
		}
		c := r.sweepCollection(ctx, r.db.Collection(name))
		if ctx.Err() != nil {
			return res
		}
		res.published += c.published
		res.more = res.more || c.more
		acked += c.acked
		failed = append(failed, c.failed...)
		for _, err := range c.errs {
			errs = append(errs, fmt.Errorf("relay %s: %w", name, err))
		}
		if c.queryErr != nil {
			rs := r.resting[name]
			rs.failures++
			wait := backoff.Wait(rs.failures, minRelayBackoff, maxRelayBackoff)
			rs.until = time.Now().Add(wait)
			r.resting[name] = rs
			errs = append(errs, fmt.Errorf("relay %s (resting %s): %w", name, wait, c.queryErr))
		} else {
			delete(r.resting, name)
		}
	}
	for _, f := range failed {
		if !f.permanent && acked == 0 {
			res.down = true
			continue
		}
		if err := r.fail(ctx, f); err != nil {
			errs = append(errs, fmt.Errorf("relay %s: %w", f.coll.Name(), err))
		}
	}
	res.err = errors.Join(errs...)
	return res
}

// pendingDoc is what the relay reads of a document: its id, its pending
// events as stored (to remove exactly those), its tombstone mark and the
// failures of its first event.
type pendingDoc struct {
	ID        bson.RawValue  `bson:"_id"`
	Outbox    []bson.Raw     `bson:"_outbox"`
	Tombstone bool           `bson:"_tombstone"`
	Failure   *outboxFailure `bson:"_outboxFailure"`
}

// outboxFailure is stored in OutboxFailureField: the failures of the
// document's first pending event so far.
type outboxFailure struct {
	Event    string    `bson:"event"` // the event's id (eventKey)
	Attempts int       `bson:"attempts"`
	First    time.Time `bson:"first"`
	Last     time.Time `bson:"last"`
	RetryAt  time.Time `bson:"retryAt"`
	Error    string    `bson:"error"`
}

// failing reports whether d's first event failed before: it is then sent alone.
func (d pendingDoc) failing() bool {
	return d.Failure != nil && len(d.Outbox) > 0 && d.Failure.Event == eventKey(d.Outbox[0])
}

// pendingFilter finds documents with events to publish, and tombstones left
// without events (their deletion failed after the publication), except those
// whose failed event waits until after now. Its first $or is what
// OutboxIndexes serve (a document with events counts their bytes), so that
// a sweep reads the documents with something pending, not the collection;
// the second is exact.
func pendingFilter(now time.Time) bson.M {
	return bson.M{
		"$and": bson.A{
			bson.M{"$or": bson.A{bson.M{OutboxBytesField: bson.M{"$exists": true}}, bson.M{TombstoneField: true}}},
			bson.M{"$or": bson.A{bson.M{OutboxField + ".0": bson.M{"$exists": true}}, bson.M{TombstoneField: true}}},
		},
		OutboxFailureField + ".retryAt": bson.M{"$not": bson.M{"$gt": now.UTC()}},
	}
}

// OutboxIndexes are the indexes the relay's sweeps read through, on each
// collection whose documents carry events.
func OutboxIndexes(collections ...string) []mongox.Index {
	var out []mongox.Index
	for _, c := range collections {
		out = append(out, mongox.Keys(c, OutboxBytesField), mongox.Keys(c, TombstoneField))
	}
	return out
}

// failure is an event that failed in a sweep: event at of doc (the events
// before it were published and removed).
type failure struct {
	coll      *mongo.Collection
	doc       pendingDoc
	at        int
	err       error
	permanent bool // retrying cannot cure it: it counts even when Kafka acknowledged nothing
}

// collectionSweep is what the sweep of one collection did.
type collectionSweep struct {
	published int // events removed after Kafka acknowledged them
	acked     int // messages Kafka acknowledged
	more      bool
	failed    []failure
	queryErr  error // reading the pending documents failed: the collection rests
	errs      []error
}

// sending is one document's part of a sweep.
type sending struct {
	doc    pendingDoc
	out    []outgoing // its first events, encoded
	encErr error      // why the event after out cannot be encoded
	ok     []bool     // Kafka acknowledged out[i]
	errs   []error    // why out[i] failed
}

func (r *Relay) sweepCollection(ctx context.Context, coll *mongo.Collection) collectionSweep {
	var cs collectionSweep
	docs, full, errs := r.pending(ctx, coll)
	if len(errs) > 0 && docs == nil {
		cs.queryErr = errors.Join(errs...)
		return cs
	}
	cs.errs = errs

	// The documents whose first event failed before are sent one by one,
	// that event alone: Kafka refuses a whole batch of a partition for one
	// refused message, so only alone is a failure the event's own. The
	// others go in one batch, every event in order.
	var batch []*sending
	var alone []*sending
	for _, d := range docs {
		s := &sending{doc: d}
		limit := len(d.Outbox)
		if d.failing() {
			limit = 1
			alone = append(alone, s)
		} else {
			batch = append(batch, s)
		}
		s.out, s.encErr = r.encodeEvents(coll.Name(), d, limit)
	}
	down := r.publish(ctx, batch, &cs)
	for _, s := range alone {
		if down {
			break // Kafka acknowledged nothing: leave the rest for a later sweep
		}
		down = r.publish(ctx, []*sending{s}, &cs)
	}

	// Remove what Kafka acknowledged: per document the leading events up to
	// the first failure, so a retry keeps the order. The failure is kept for
	// sweep to count. The documents whose every event was acknowledged are
	// emptied together first.
	emptied := r.empty(ctx, coll, batch)
	cs.published += emptied.events
	for _, s := range append(batch, alone...) {
		if emptied.docs[s] || (s.ok == nil && len(s.out) > 0) {
			continue // emptied, or not sent
		}
		n := 0
		for n < len(s.out) && s.ok[n] {
			n++
		}
		removed, err := r.settle(ctx, coll, s.doc, n)
		cs.published += removed
		if err != nil {
			cs.errs = append(cs.errs, err)
			continue
		}
		switch {
		case n < len(s.out):
			cs.failed = append(cs.failed, failure{coll: coll, doc: s.doc, at: n, err: s.errs[n], permanent: refused(s.errs[n])})
		case s.encErr != nil:
			cs.failed = append(cs.failed, failure{coll: coll, doc: s.doc, at: n, err: s.encErr, permanent: true})
		}
	}
	// Sweep again at once only when this batch made progress: a batch full
	// of events that cannot be published must not spin.
	cs.more = full && cs.published > 0
	return cs
}

// publish writes the encoded events of docs in one call and records, per
// event, whether Kafka acknowledged it. It reports whether Kafka seems down:
// the write failed, Kafka acknowledged nothing in this collection's sweep so
// far and refused no message (a refusal is an answer: Kafka is up).
func (r *Relay) publish(ctx context.Context, docs []*sending, cs *collectionSweep) (down bool) {
	var out []outgoing
	for _, s := range docs {
		out = append(out, s.out...)
	}
	if len(out) == 0 {
		for _, s := range docs {
			s.ok = []bool{}
		}
		return false
	}
	err := r.pub.write(ctx, r.topic, out)
	ok, errs := results(err, len(out))
	i := 0
	for _, s := range docs {
		s.ok, s.errs = ok[i:i+len(s.out)], errs[i:i+len(s.out)]
		i += len(s.out)
	}
	if err != nil {
		cs.errs = append(cs.errs, err)
	}
	refusal := false
	for i, a := range ok {
		if a {
			cs.acked++
		}
		refusal = refusal || refused(errs[i])
	}
	return err != nil && cs.acked == 0 && !refusal
}

// pending reads the documents of coll with events to publish, in no
// order (the embedded server sorts what it reads: sorted, a backlog made
// each sweep read the whole backlog), at most the batch size and about
// maxSweepBytes, within the query timeout.
// full reports that there may be more. A document that cannot be read is
// skipped with an error; when nothing could be read docs is nil.
func (r *Relay) pending(ctx context.Context, coll *mongo.Collection) (docs []pendingDoc, full bool, errs []error) {
	ctx, cancel := context.WithTimeout(ctx, r.queryTimeout)
	defer cancel()
	cur, err := coll.Find(ctx, pendingFilter(time.Now()), options.Find().
		SetProjection(bson.M{OutboxField: 1, TombstoneField: 1, OutboxFailureField: 1}).
		SetLimit(int64(r.batch)))
	if err != nil {
		return nil, false, []error{fmt.Errorf("find pending events: %w", err)}
	}
	defer cur.Close(ctx)
	docs = []pendingDoc{}
	read, size := 0, 0
	for size < maxSweepBytes && cur.Next(ctx) {
		read++
		size += len(cur.Current)
		var d pendingDoc
		if err := bson.Unmarshal(append([]byte(nil), cur.Current...), &d); err != nil {
			errs = append(errs, fmt.Errorf("read pending events of %s: %w", cur.Current.Lookup("_id"), err))
			continue
		}
		docs = append(docs, d)
	}
	if err := cur.Err(); err != nil {
		return nil, false, append(errs, fmt.Errorf("read pending events: %w", err))
	}
	return docs, read == r.batch || size >= maxSweepBytes, errs
}

// encodeEvents encodes the first limit events of d, up to the first that
// cannot be encoded; encErr says why that one cannot.
func (r *Relay) encodeEvents(collection string, d pendingDoc, limit int) (out []outgoing, encErr error) {
	for _, raw := range d.Outbox[:min(limit, len(d.Outbox))] {
		var ev Event
		if err := bson.Unmarshal(raw, &ev); err != nil {
			return out, fmt.Errorf("document %s of %s: decode event %s: %w", d.ID, collection, eventKey(raw), err)
		}
		o, err := encode(r.topic, ev)
		if err != nil {
			return out, fmt.Errorf("document %s of %s: %w", d.ID, collection, err)
		}
		out = append(out, o)
	}
	return out, nil
}

// results returns, for each of n events given to one write, whether Kafka
// acknowledged it and otherwise why not, from the write's error.
func results(err error, n int) ([]bool, []error) {
	ok := make([]bool, n)
	errs := make([]error, n)
	var werrs kafka.WriteErrors
	perMessage := errors.As(err, &werrs) && len(werrs) == n
	for i := range ok {
		switch {
		case err == nil:
			ok[i] = true
		case perMessage:
			ok[i], errs[i] = werrs[i] == nil, werrs[i]
		default:
			errs[i] = err
		}
	}
	return ok, errs
}

// settle removes the first n events of d, which Kafka acknowledged, and
// deletes d when it is a tombstone left without events. It returns how many
// events it removed.
func (r *Relay) settle(ctx context.Context, coll *mongo.Collection, d pendingDoc, n int) (int, error) {
	if n == 0 && !(d.Tombstone && len(d.Outbox) == 0) {
		return 0, nil
	}
	if n > 0 {
		if err := r.remove(ctx, coll, d, 0, n); err != nil {
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

// fail counts a failure of the event at f.at of its document: recorded on
// the document with the time of the next attempt, or, at the last attempt,
// moved to the dead letters.
func (r *Relay) fail(ctx context.Context, f failure) error {
	now := time.Now().UTC()
	key := eventKey(f.doc.Outbox[f.at])
	rec := outboxFailure{Event: key, Attempts: 1, First: now, Last: now, Error: errorText(f.err)}
	if p := f.doc.Failure; p != nil && p.Event == key {
		rec.Attempts, rec.First = p.Attempts+1, p.First
	}
	log := r.log.With("collection", f.coll.Name(), "document", f.doc.ID.String(), "event_id", key,
		"attempts", rec.Attempts, "err", f.err)
	if rec.Attempts >= r.maxAttempts {
		return r.deadLetter(ctx, f, rec, log)
	}
	rec.RetryAt = now.Add(backoff.Wait(rec.Attempts, r.retryMin, r.retryMax))
	log.WarnContext(ctx, "event not published; the document waits", "retry_at", rec.RetryAt)
	ctx, cancel := context.WithTimeout(ctx, r.queryTimeout)
	defer cancel()
	if _, err := f.coll.UpdateOne(ctx, bson.M{"_id": f.doc.ID}, bson.M{"$set": bson.M{OutboxFailureField: rec}}); err != nil {
		return fmt.Errorf("record failure of event %s of %s: %w", key, f.doc.ID, err)
	}
	return nil
}

// deadLetter records the failed event in DeadLetterCollection, then removes
// it from its document (a crash in between buries it again: Count says so).
func (r *Relay) deadLetter(ctx context.Context, f failure, rec outboxFailure, log *slog.Logger) error {
	ctx, cancel := context.WithTimeout(ctx, r.queryTimeout)
	defer cancel()
	id := SourceRelay + ":" + f.coll.Name() + ":" + rec.Event
	err := bury(ctx, r.db.Database, id, bson.M{
		"source": SourceRelay, "topic": r.topic, "collection": f.coll.Name(), "document": f.doc.ID,
		"event": f.doc.Outbox[f.at], "error": rec.Error, "attempts": rec.Attempts, "lastFailedAt": rec.Last,
	}, rec.First)
	if err != nil {
		return err
	}
	if err := r.remove(ctx, f.coll, f.doc, f.at, f.at+1); err != nil {
		return err
	}
	if f.doc.Tombstone && f.at+1 == len(f.doc.Outbox) {
		if err := r.deleteTombstone(ctx, f.coll, f.doc); err != nil {
			return err
		}
	}
	countDeadLetter(ctx, attribute.String("source", SourceRelay),
		attribute.String("messaging.destination.name", r.topic), attribute.String("collection", f.coll.Name()))
	log.ErrorContext(ctx, "event moved to the dead letters; the document's later events go on", "dead_letter", id)
	return nil
}

// eventKey is the id of a stored event, or a digest of it when it has none.
func eventKey(raw bson.Raw) string {
	if id, ok := raw.Lookup("id").StringValueOK(); ok && id != "" {
		return id
	}
	sum := sha256.Sum256(raw)
	return "sha256:" + hex.EncodeToString(sum[:8])
}

// maxEmptyFilterBytes bounds the events one emptying's filter holds, well
// under MongoDB's 16 MiB command.
const maxEmptyFilterBytes = 4 << 20

// maxEmptyDocs bounds the documents of one emptying: its write holds the
// embedded server's one writer, which the service's other writes wait for.
const maxEmptyDocs = 50

// emptied is what empty did: the documents it emptied and their events.
type emptied struct {
	docs   map[*sending]bool
	events int
}

// empty removes the events of the documents of sent whose every pending
// event Kafka acknowledged (tombstones aside), in one update per
// maxEmptyDocs documents (and maxEmptyFilterBytes) instead of one per
// document: each document's condition is still its events as read, so a
// document changed since (an event pushed, or removed by another relay) is
// not matched.
// When an update matches fewer documents than it names, none of them
// counts as emptied: the document by document way below settles them,
// the emptied ones included (it matches nothing of them).
func (r *Relay) empty(ctx context.Context, coll *mongo.Collection, sent []*sending) emptied {
	out := emptied{docs: map[*sending]bool{}}
	var group []*sending
	size := 0
	flush := func() {
		if len(group) > 0 && r.emptyAll(ctx, coll, group) {
			for _, s := range group {
				out.docs[s] = true
				out.events += len(s.out)
			}
		}
		group, size = nil, 0
	}
	for _, s := range sent {
		if !s.whole() {
			continue
		}
		n := 0
		for _, raw := range s.doc.Outbox {
			n += len(raw)
		}
		if size+n > maxEmptyFilterBytes || len(group) == maxEmptyDocs {
			flush()
		}
		group, size = append(group, s), size+n
	}
	flush()
	return out
}

// whole reports whether every pending event of s's document was read,
// encoded and acknowledged, and the document is no tombstone.
func (s *sending) whole() bool {
	if s.doc.Tombstone || s.encErr != nil || len(s.out) == 0 || len(s.out) != len(s.doc.Outbox) || len(s.ok) != len(s.out) {
		return false
	}
	for _, ok := range s.ok {
		if !ok {
			return false
		}
	}
	return true
}

// emptyAll empties the outbox of every document of group in one update,
// each on the condition that it holds exactly the events read; true when
// it matched them all.
func (r *Relay) emptyAll(ctx context.Context, coll *mongo.Collection, group []*sending) bool {
	ctx, cancel := context.WithTimeout(ctx, r.queryTimeout)
	defer cancel()
	ids := make(bson.A, 0, len(group))
	or := make(bson.A, 0, len(group))
	for _, s := range group {
		events := make(bson.A, 0, len(s.doc.Outbox))
		for _, raw := range s.doc.Outbox {
			events = append(events, raw)
		}
		ids = append(ids, s.doc.ID)
		or = append(or, bson.M{"_id": s.doc.ID, OutboxField: events})
	}
	// The $in of ids is what an index (the embedded server's too) answers;
	// the $or checks each document's events.
	res, err := coll.UpdateMany(ctx, bson.M{"_id": bson.M{"$in": ids}, "$or": or}, bson.M{
		"$set":   bson.M{OutboxField: bson.A{}},
		"$unset": bson.M{OutboxBytesField: "", OutboxFailureField: ""},
	})
	return err == nil && res.MatchedCount == int64(len(group))
}

// remove pulls the events d.Outbox[from:to], matched by their stored value
// (an event pushed since the read stays), and subtracts their bytes from
// OutboxBytesField; the events before from are already gone. It also drops
// the failure record, which was about the first of them. When they were the
// last events read and none came since, the document has nothing pending:
// the count is dropped rather than decremented, which also ends any drift.
func (r *Relay) remove(ctx context.Context, coll *mongo.Collection, d pendingDoc, from, to int) error {
	ctx, cancel := context.WithTimeout(ctx, r.queryTimeout)
	defer cancel()
	pull := make(bson.A, 0, to-from)
	var size int64
	for _, raw := range d.Outbox[from:to] {
		pull = append(pull, raw)
		size += int64(len(raw))
	}
	// Each removal is a compare-and-set on the events read: another
	// relay (a replica's) may have published and removed them meanwhile,
	// and an event pushed since must stay pending, counted in
	// OutboxBytesField. When they are all still there and nothing else,
	// the outbox empties; when they are all still there with others
	// pushed since, they are pulled and their bytes taken off; else
	// another relay removed them and this one leaves the document alone.
	if to == len(d.Outbox) {
		res, err := coll.UpdateOne(ctx, bson.M{"_id": d.ID, OutboxField: pull}, bson.M{
			"$pullAll": bson.M{OutboxField: pull},
			"$unset":   bson.M{OutboxBytesField: "", OutboxFailureField: ""},
		})
		if err != nil {
			return fmt.Errorf("remove published events of %s: %w", d.ID, err)
		}
		if res.MatchedCount > 0 {
			return nil
		}
	}
	_, err := coll.UpdateOne(ctx, bson.M{"_id": d.ID, OutboxField: bson.M{"$all": pull}}, bson.M{
		"$pullAll": bson.M{OutboxField: pull},
		"$inc":     bson.M{OutboxBytesField: -size},
		"$unset":   bson.M{OutboxFailureField: ""},
	})
	if err != nil {
		return fmt.Errorf("remove published events of %s: %w", d.ID, err)
	}
	return nil
}

// deleteTombstone deletes a tombstone unless an event was pushed onto it
// since the read (it is then deleted by a later sweep).
func (r *Relay) deleteTombstone(ctx context.Context, coll *mongo.Collection, d pendingDoc) error {
	ctx, cancel := context.WithTimeout(ctx, r.queryTimeout)
	defer cancel()
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
