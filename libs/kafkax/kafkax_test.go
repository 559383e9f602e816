package kafkax_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/docspub/platform/libs/kafkatest"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/libs/waittest"
	"github.com/google/go-cmp/cmp"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.opentelemetry.io/otel"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

func TestMain(m *testing.M) {
	otel.SetMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(metrics)))
	mongotest.Main(m)
}

const (
	topic    = "things.events"
	coll     = "things"
	deadline = 20 * time.Second
)

// event returns an event whose time survives a MongoDB round trip.
func event(typ, subject string, data any) kafkax.Event {
	ev := kafkax.NewEvent(typ, "org1", subject, data)
	ev.OccurredAt = ev.OccurredAt.Truncate(time.Millisecond)
	return ev
}

// change applies a single-document update that sets fields and pushes
// events, the way services record a change with its events.
// outbox is the events as a writer records them.
func outbox(t *testing.T, events ...kafkax.Event) kafkax.Outbox {
	t.Helper()
	o, err := kafkax.NewOutbox(events...)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func change(t *testing.T, db *mongo.Database, id string, set bson.M, events ...kafkax.Event) {
	t.Helper()
	update := bson.M{}
	if len(set) > 0 {
		update["$set"] = set
	}
	outbox(t, events...).AddTo(update)
	_, err := db.Collection(coll).UpdateOne(context.Background(), bson.M{"_id": id}, update, options.UpdateOne().SetUpsert(true))
	if err != nil {
		t.Fatalf("change %s: %v", id, err)
	}
}

type thing struct {
	ID             string `bson:"_id"`
	Name           string `bson:"name"`
	kafkax.Pending `bson:",inline"`
}

// load returns the stored document, or false when there is none.
func load(t *testing.T, db *mongo.Database, id string) (thing, bool) {
	t.Helper()
	var d thing
	err := db.Collection(coll).FindOne(context.Background(), bson.M{"_id": id}).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return thing{}, false
	}
	if err != nil {
		t.Fatalf("load %s: %v", id, err)
	}
	return d, true
}

func pendingIDs(d thing) []string {
	ids := []string{}
	for _, ev := range d.Outbox {
		ids = append(ids, ev.ID)
	}
	return ids
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	waittest.Until(t, what, deadline, cond)
}

func newPublisher(t *testing.T, brokers []string) *kafkax.Publisher {
	t.Helper()
	p := kafkax.NewPublisher(kafkax.Plain(brokers))
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// run starts fn in the background; the test's end cancels it and waits.
func run(t *testing.T, fn func(ctx context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- fn(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	})
}

// recorder is a handler that records what it handled.
type recorder struct {
	mu     sync.Mutex
	events []kafkax.Event
	fail   map[string]int // event id → failures left before it succeeds
}

func (r *recorder) handle(_ context.Context, ev kafkax.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail[ev.ID] > 0 {
		r.fail[ev.ID]--
		return fmt.Errorf("induced failure of %s", ev.ID)
	}
	r.events = append(r.events, ev)
	return nil
}

func (r *recorder) handled() []kafkax.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]kafkax.Event(nil), r.events...)
}

func (r *recorder) has(id string) bool {
	for _, ev := range r.handled() {
		if ev.ID == id {
			return true
		}
	}
	return false
}

func startConsumer(t *testing.T, brokers []string, group string, db *mongo.Database, h kafkax.Handler) {
	t.Helper()
	c := kafkax.NewConsumer(kafkax.Plain(brokers), group, topic, db, h, nil)
	t.Cleanup(func() { _ = c.Close() })
	run(t, c.Run)
}

func ids(events []kafkax.Event) []string {
	out := []string{}
	for _, ev := range events {
		out = append(out, ev.ID)
	}
	return out
}

func TestRelayToConsumer(t *testing.T) {
	db := mongotest.Database(t)
	k := kafkatest.Start(t)
	relay := kafkax.NewRelay(mongox.NewDB(db), newPublisher(t, k.Brokers), topic, []string{coll}, nil,
		kafkax.WithSweepInterval(time.Hour)) // only Notify and the first sweep publish
	rec := &recorder{}
	startConsumer(t, k.Brokers, "g1", db, rec.handle)

	first := event("thing.created", "a", map[string]string{"name": "first"})
	change(t, db, "a", bson.M{"name": "first"}, first)
	run(t, relay.Run)
	eventually(t, "the first event", func() bool { return rec.has(first.ID) })

	// The relay now waits an hour unless notified.
	second := event("thing.updated", "a", map[string]string{"name": "second"})
	change(t, db, "a", bson.M{"name": "second"}, second)
	relay.Notify()
	eventually(t, "the notified event", func() bool { return rec.has(second.ID) })

	if diff := cmp.Diff(rec.handled(), []kafkax.Event{first, second}); diff != "" {
		t.Errorf("handled events (-got +want):\n%s", diff)
	}
	eventually(t, "the published events to leave the document", func() bool {
		d, _ := load(t, db, "a")
		return len(d.Outbox) == 0
	})
	d, ok := load(t, db, "a")
	if !ok || d.Name != "second" {
		t.Errorf("document after relay = %+v, %v; want it kept with name second", d, ok)
	}
}

func TestRelayKafkaDown(t *testing.T) {
	db := mongotest.Database(t)
	k := kafkatest.StartRestartable(t)
	pub := newPublisher(t, k.Brokers)
	relay := kafkax.NewRelay(mongox.NewDB(db), pub, topic, []string{coll}, nil)
	ctx := context.Background()

	// A first event goes through, so the publisher has live connections.
	before := event("thing.created", "a", nil)
	change(t, db, "a", bson.M{"name": "a"}, before)
	if n, err := relay.SweepOnce(ctx); n != 1 || err != nil {
		t.Fatalf("SweepOnce with Kafka up = %d, %v; want 1, nil", n, err)
	}

	k.Stop()
	during := event("thing.updated", "a", nil)
	change(t, db, "a", bson.M{"name": "b"}, during)
	sctx, cancel := context.WithTimeout(ctx, deadline)
	n, err := relay.SweepOnce(sctx)
	cancel()
	if n != 0 || err == nil {
		t.Fatalf("SweepOnce with Kafka down = %d, %v; want 0 and an error", n, err)
	}
	d, _ := load(t, db, "a")
	if diff := cmp.Diff(pendingIDs(d), []string{during.ID}); diff != "" {
		t.Fatalf("pending events with Kafka down (-got +want):\n%s", diff)
	}

	k.Start()
	run(t, relay.Run)
	eventually(t, "the pending event to be published", func() bool {
		d, _ := load(t, db, "a")
		return len(d.Outbox) == 0
	})
	got := kafkatest.ReadN(t, k.Brokers, topic, 1, deadline)
	if diff := cmp.Diff(ids(got), []string{during.ID}); diff != "" {
		t.Errorf("events on the restarted Kafka (-got +want):\n%s", diff)
	}
}

func TestRelayDeletesTombstones(t *testing.T) {
	db := mongotest.Database(t)
	k := kafkatest.Start(t)
	relay := kafkax.NewRelay(mongox.NewDB(db), newPublisher(t, k.Brokers), topic, []string{coll}, nil)
	ctx := context.Background()

	created := event("thing.created", "a", nil)
	change(t, db, "a", bson.M{"name": "a"}, created)
	deleted := event("thing.deleted", "a", nil)
	if _, err := db.Collection(coll).UpdateOne(ctx, bson.M{"_id": "a"}, outbox(t, deleted).Tombstone()); err != nil {
		t.Fatal(err)
	}
	// A tombstone whose event went out but whose deletion did not happen.
	if _, err := db.Collection(coll).InsertOne(ctx, bson.M{"_id": "b", kafkax.TombstoneField: true, kafkax.OutboxField: bson.A{}}); err != nil {
		t.Fatal(err)
	}
	live := event("thing.created", "c", nil)
	change(t, db, "c", bson.M{"name": "c"}, live)

	n, err := relay.SweepOnce(ctx)
	if n != 3 || err != nil {
		t.Fatalf("SweepOnce = %d, %v; want 3, nil", n, err)
	}
	for _, tc := range []struct {
		id   string
		want bool
	}{{"a", false}, {"b", false}, {"c", true}} {
		if _, got := load(t, db, tc.id); got != tc.want {
			t.Errorf("document %s exists = %v, want %v", tc.id, got, tc.want)
		}
	}
	got := kafkatest.ReadN(t, k.Brokers, topic, 3, deadline)
	if diff := cmp.Diff(ids(got), []string{created.ID, deleted.ID, live.ID}); diff != "" {
		t.Errorf("published events (-got +want):\n%s", diff)
	}
}

func TestConsumerIdempotent(t *testing.T) {
	db := mongotest.Database(t)
	k := kafkatest.Start(t)
	pub := newPublisher(t, k.Brokers)
	ctx := context.Background()

	ev := event("thing.created", "a", nil)
	last := event("thing.updated", "a", nil)
	// The same event twice, as after a relay retry, then a marker event.
	if err := pub.Publish(ctx, topic, ev, ev); err != nil {
		t.Fatal(err)
	}
	if err := pub.Publish(ctx, topic, ev, last); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	startConsumer(t, k.Brokers, "g1", db, rec.handle)
	eventually(t, "the last event", func() bool { return rec.has(last.ID) })
	if diff := cmp.Diff(ids(rec.handled()), []string{ev.ID, last.ID}); diff != "" {
		t.Errorf("handled (-got +want):\n%s", diff)
	}

	// Another group handles the events on its own.
	other := &recorder{}
	startConsumer(t, k.Brokers, "g2", db, other.handle)
	eventually(t, "the other group's last event", func() bool { return other.has(last.ID) })
	if diff := cmp.Diff(ids(other.handled()), []string{ev.ID, last.ID}); diff != "" {
		t.Errorf("handled by the other group (-got +want):\n%s", diff)
	}
}

func TestConsumerRetriesFailedHandler(t *testing.T) {
	db := mongotest.Database(t)
	k := kafkatest.Start(t)
	pub := newPublisher(t, k.Brokers)

	first := event("thing.created", "a", nil)
	second := event("thing.updated", "a", nil)
	if err := pub.Publish(context.Background(), topic, first, second); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{fail: map[string]int{first.ID: 2}}
	startConsumer(t, k.Brokers, "g1", db, rec.handle)
	eventually(t, "the second event", func() bool { return rec.has(second.ID) })
	if diff := cmp.Diff(ids(rec.handled()), []string{first.ID, second.ID}); diff != "" {
		t.Errorf("handled (-got +want):\n%s", diff)
	}
	if left := rec.fail[first.ID]; left != 0 {
		t.Errorf("induced failures left = %d, want 0", left)
	}
}

func TestPerSubjectOrder(t *testing.T) {
	db := mongotest.Database(t)
	k := kafkatest.Start(t)
	kafkatest.CreateTopic(t, k.Brokers, topic, 3)
	relay := kafkax.NewRelay(mongox.NewDB(db), newPublisher(t, k.Brokers), topic, []string{coll}, nil, kafkax.WithSweepBatch(2))
	ctx := context.Background()

	subjects := []string{"a", "b", "c", "d", "e"}
	want := map[string][]string{}
	for round := range 4 {
		for _, s := range subjects {
			ev := event("thing.updated", s, map[string]int{"round": round})
			change(t, db, s, bson.M{"round": round}, ev)
			want[s] = append(want[s], ev.ID)
		}
		if round%2 == 0 { // some events go out while others are still being written
			if _, err := relay.SweepOnce(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	rec := &recorder{}
	startConsumer(t, k.Brokers, "g1", db, rec.handle)
	run(t, relay.Run)
	total := len(subjects) * 4
	eventually(t, "every event", func() bool { return len(rec.handled()) >= total })

	got := map[string][]string{}
	for _, ev := range rec.handled() {
		got[ev.Subject] = append(got[ev.Subject], ev.ID)
	}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("events per subject, in handled order (-got +want):\n%s", diff)
	}
}

func TestPublishRefusesTooLargeEvent(t *testing.T) {
	k := kafkatest.Start(t)
	pub := newPublisher(t, k.Brokers)
	big := event("thing.created", "a", map[string]string{"blob": string(make([]byte, kafkax.MaxEventBytes))})
	err := pub.Publish(context.Background(), topic, big)
	if !errors.Is(err, kafkax.ErrTooLarge) {
		t.Errorf("Publish of %d bytes = %v, want ErrTooLarge", len(big.Data), err)
	}
}

func TestPruneProcessedKeepsRecentRecords(t *testing.T) {
	db := mongotest.Database(t)
	ctx := context.Background()
	now := time.Now().UTC()
	for id, at := range map[string]time.Time{"old": now.Add(-kafkax.ProcessedTTL - time.Hour), "recent": now.Add(-time.Hour)} {
		if _, err := db.Collection(kafkax.ProcessedCollection).InsertOne(ctx, bson.M{"_id": "g:" + id, "group": "g", "at": at}); err != nil {
			t.Fatal(err)
		}
	}
	n, err := kafkax.PruneProcessed(ctx, db, now.Add(-kafkax.ProcessedTTL))
	if err != nil || n != 1 {
		t.Fatalf("PruneProcessed = %d, %v; want 1", n, err)
	}
	left, err := db.Collection(kafkax.ProcessedCollection).CountDocuments(ctx, bson.M{"_id": "g:recent"})
	if err != nil || left != 1 {
		t.Errorf("recent record gone (%d, %v)", left, err)
	}
}

// Without a database nothing is recorded: every delivery reaches the handler.
func TestConsumerWithoutRecords(t *testing.T) {
	k := kafkatest.Start(t)
	pub := newPublisher(t, k.Brokers)
	ev := event("thing.created", "a", nil)
	last := event("thing.updated", "a", nil)
	if err := pub.Publish(context.Background(), topic, ev, ev, last); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	startConsumer(t, k.Brokers, "g1", nil, rec.handle)
	eventually(t, "the last event", func() bool { return rec.has(last.ID) })
	if diff := cmp.Diff(ids(rec.handled()), []string{ev.ID, ev.ID, last.ID}); diff != "" {
		t.Errorf("handled (-got +want):\n%s", diff)
	}
}

// The events a consumer finds waiting are taken in batches: each handled
// once, in order, each recorded as processed. An event whose handler keeps
// failing holds its partition, but not the records of the events before it.
func TestConsumerBatches(t *testing.T) {
	db := mongotest.Database(t)
	k := kafkatest.Start(t)
	pub := newPublisher(t, k.Brokers)
	ctx := context.Background()

	var want []kafkax.Event
	for i := range 250 {
		want = append(want, event("thing.updated", "a", map[string]any{"n": i}))
	}
	stuck := event("thing.deleted", "a", nil)
	if err := pub.Publish(ctx, topic, append(want, stuck)...); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{fail: map[string]int{stuck.ID: 1 << 30}}
	startConsumer(t, k.Brokers, "g1", db, rec.handle)
	eventually(t, "the events before the failing one recorded", func() bool {
		n, err := db.Collection(kafkax.ProcessedCollection).CountDocuments(ctx, bson.M{"group": "g1"})
		return err == nil && n == int64(len(want))
	})
	if diff := cmp.Diff(ids(rec.handled()), ids(want)); diff != "" {
		t.Errorf("handled (-got +want):\n%s", diff)
	}
}
