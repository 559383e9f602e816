package kafkax_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docspub/platform/libs/envelope"

	"github.com/docspub/platform/libs/kafkatest"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/segmentio/kafka-go"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// fast makes a relay give up on an event after attempts tries, without
// waiting long between them.
func fast(attempts int) kafkax.RelayOption {
	return kafkax.WithRetries(attempts, time.Millisecond, 5*time.Millisecond)
}

// createTopic creates topic with one partition and the broker's limit of one
// record batch set to maxMessageBytes.
func createTopic(t *testing.T, brokers []string, topic string, maxMessageBytes int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	tr := &kafka.Transport{}
	defer tr.CloseIdleConnections()
	c := &kafka.Client{Addr: kafka.TCP(brokers...), Transport: tr}
	res, err := c.CreateTopics(ctx, &kafka.CreateTopicsRequest{Topics: []kafka.TopicConfig{{
		Topic: topic, NumPartitions: 1, ReplicationFactor: 1,
		ConfigEntries: []kafka.ConfigEntry{{ConfigName: "max.message.bytes", ConfigValue: strconv.Itoa(maxMessageBytes)}},
	}}})
	if err == nil {
		err = res.Errors[topic]
	}
	if err != nil {
		t.Fatalf("create topic %s: %v", topic, err)
	}
}

// changeIn is change for any collection.
func changeIn(t *testing.T, db *mongo.Database, collection, id string, events ...kafkax.Event) {
	t.Helper()
	// Recorded as a writer records them, unchecked: some tests store what
	// NewOutbox would refuse, as written before events were checked.
	var size int
	for _, ev := range events {
		raw, err := bson.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		size += len(raw)
	}
	update := bson.M{"$set": bson.M{"name": id},
		"$push": bson.M{kafkax.OutboxField: bson.M{"$each": events}}, "$inc": bson.M{kafkax.OutboxBytesField: size}}
	_, err := db.Collection(collection).UpdateOne(context.Background(), bson.M{"_id": id}, update, options.UpdateOne().SetUpsert(true))
	if err != nil {
		t.Fatalf("change %s/%s: %v", collection, id, err)
	}
}

func deadLetters(t *testing.T, db *mongo.Database) []kafkax.DeadLetter {
	t.Helper()
	cur, err := db.Collection(kafkax.DeadLetterCollection).Find(context.Background(), bson.M{})
	if err != nil {
		t.Fatalf("read dead letters: %v", err)
	}
	out := []kafkax.DeadLetter{}
	if err := cur.All(context.Background(), &out); err != nil {
		t.Fatalf("read dead letters: %v", err)
	}
	return out
}

// stored returns the raw document, or nil when there is none.
func stored(t *testing.T, db *mongo.Database, collection, id string) bson.M {
	t.Helper()
	var d bson.M
	err := db.Collection(collection).FindOne(context.Background(), bson.M{"_id": id}).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return nil
	}
	if err != nil {
		t.Fatalf("load %s/%s: %v", collection, id, err)
	}
	return d
}

// eventOf decodes the event of a dead letter.
func eventOf(t *testing.T, dl kafkax.DeadLetter) kafkax.Event {
	t.Helper()
	var ev kafkax.Event
	if err := bson.Unmarshal(dl.Event, &ev); err != nil {
		t.Fatalf("decode dead letter event: %v", err)
	}
	return ev
}

// A document with an event Kafka refuses holds up nothing: not the other
// documents of its collection (which shared its refused batch), not another
// collection, not its own later events once the bad one is dead-lettered.
func TestRelayWedgesNothing(t *testing.T) {
	db := mongotest.Database(t)
	k := kafkatest.Start(t)
	createTopic(t, k.Brokers, topic, 16<<10)
	before := deadLetterCount(t, attribute.String("source", "relay"), attribute.String("collection", coll))

	bad := event("thing.updated", "a", map[string]string{"blob": strings.Repeat("x", 32<<10)}) // under MaxEventBytes, over the topic's limit
	after := event("thing.updated", "a", map[string]string{"name": "a2"})
	b := event("thing.created", "b", nil)
	c := event("thing.created", "c", nil)
	x := event("other.created", "x", nil)
	changeIn(t, db, coll, "a", bad, after)
	changeIn(t, db, coll, "b", b)
	changeIn(t, db, coll, "c", c)
	changeIn(t, db, "others", "x", x)

	relay := kafkax.NewRelay(mongox.NewDB(db), newPublisher(t, k.Brokers), topic, []string{coll, "others"}, nil,
		fast(3), kafkax.WithSweepInterval(5*time.Millisecond))
	run(t, relay.Run)

	got := kafkatest.ReadN(t, k.Brokers, topic, 4, deadline)
	bySubject := map[string][]string{}
	for _, ev := range got {
		bySubject[ev.Subject] = append(bySubject[ev.Subject], ev.ID)
	}
	want := map[string][]string{"a": {after.ID}, "b": {b.ID}, "c": {c.ID}, "x": {x.ID}}
	if diff := cmp.Diff(bySubject, want); diff != "" {
		t.Errorf("published events by subject (-got +want):\n%s", diff)
	}

	eventually(t, "document a to have nothing pending", func() bool {
		d := stored(t, db, coll, "a")
		return d != nil && d[kafkax.OutboxBytesField] == nil && d[kafkax.OutboxFailureField] == nil && len(d[kafkax.OutboxField].(bson.A)) == 0
	})
	dls := deadLetters(t, db)
	if len(dls) != 1 {
		t.Fatalf("dead letters = %+v, want the refused event only", dls)
	}
	dl := dls[0]
	if ev := eventOf(t, dl); ev.ID != bad.ID {
		t.Errorf("dead letter event = %s, want %s", ev.ID, bad.ID)
	}
	if dl.ID != "relay:things:"+bad.ID || dl.Source != kafkax.SourceRelay || dl.Topic != topic ||
		dl.Collection != coll || dl.Document.StringValue() != "a" || dl.Attempts != 3 || dl.Count != 1 {
		t.Errorf("dead letter = %+v; want relay:things:<id> from things/a after 3 attempts, count 1", dl)
	}
	if !strings.Contains(dl.Error, "Message Size Too Large") {
		t.Errorf("dead letter error = %q, want Kafka's refusal", dl.Error)
	}
	if dl.FirstFailedAt.IsZero() || dl.LastFailedAt.Before(dl.FirstFailedAt) {
		t.Errorf("failure times first %v, last %v", dl.FirstFailedAt, dl.LastFailedAt)
	}
	if n := deadLetterCount(t, attribute.String("source", "relay"), attribute.String("collection", coll)); n != before+1 {
		t.Errorf("kafkax.dead_letters counter = %d, want %d", n, before+1)
	}
}

// An event that cannot be encoded (here one written before events were
// checked, over MaxEventBytes) is dead-lettered after the bounded attempts,
// and the attempts are counted on the document: a restarted relay goes on
// counting instead of starting again.
func TestRelayCountsAttemptsAcrossRestarts(t *testing.T) {
	db := mongotest.Database(t)
	k := kafkatest.Start(t)
	pub := newPublisher(t, k.Brokers)
	ctx := context.Background()

	huge := event("thing.updated", "a", map[string]string{"blob": strings.Repeat("x", kafkax.MaxEventBytes)})
	next := event("thing.updated", "a", nil)
	other := event("thing.created", "b", nil)
	changeIn(t, db, coll, "a", huge, next)
	changeIn(t, db, coll, "b", other)

	first := kafkax.NewRelay(mongox.NewDB(db), pub, topic, []string{coll}, nil, fast(3))
	if n, err := first.SweepOnce(ctx); n != 1 {
		t.Fatalf("first SweepOnce = %d, %v; want b's event published", n, err)
	}
	attempts := func() int {
		var d struct {
			Failure struct {
				Attempts int `bson:"attempts"`
			} `bson:"_outboxFailure"`
		}
		if err := db.Collection(coll).FindOne(ctx, bson.M{"_id": "a"}).Decode(&d); err != nil {
			t.Fatalf("load a: %v", err)
		}
		return d.Failure.Attempts
	}
	if got := attempts(); got != 1 {
		t.Fatalf("attempts recorded after the first sweep = %d, want 1", got)
	}

	// A new relay, as after a restart: it goes on from the recorded count.
	restarted := kafkax.NewRelay(mongox.NewDB(db), pub, topic, []string{coll}, nil, fast(3))
	eventually(t, "the second attempt", func() bool {
		_, _ = restarted.SweepOnce(ctx)
		return attempts() == 2
	})
	eventually(t, "the dead letter", func() bool {
		_, _ = restarted.SweepOnce(ctx)
		return len(deadLetters(t, db)) == 1
	})
	dl := deadLetters(t, db)[0]
	if ev := eventOf(t, dl); ev.ID != huge.ID || dl.Attempts != 3 || !strings.Contains(dl.Error, "too large") {
		t.Errorf("dead letter of %s after %d attempts (%q); want %s after 3, too large", ev.ID, dl.Attempts, dl.Error, huge.ID)
	}
	eventually(t, "a's next event", func() bool {
		_, _ = restarted.SweepOnce(ctx)
		return len(stored(t, db, coll, "a")[kafkax.OutboxField].(bson.A)) == 0
	})
	got := kafkatest.ReadN(t, k.Brokers, topic, 2, deadline)
	if diff := cmp.Diff(ids(got), []string{other.ID, next.ID}); diff != "" {
		t.Errorf("published (-got +want):\n%s", diff)
	}
}

// While Kafka is down nothing is counted, whatever the number of sweeps:
// after the restart every event is delivered and nothing is dead-lettered.
func TestRelayKafkaDownDeadLettersNothing(t *testing.T) {
	db := mongotest.Database(t)
	k := kafkatest.StartRestartable(t)
	pub := newPublisher(t, k.Brokers)
	relay := kafkax.NewRelay(mongox.NewDB(db), pub, topic, []string{coll, "others"}, nil, fast(2))
	ctx := context.Background()
	warm := event("thing.created", "w", nil)
	changeIn(t, db, coll, "w", warm)
	if n, err := relay.SweepOnce(ctx); n != 1 || err != nil {
		t.Fatalf("SweepOnce with Kafka up = %d, %v; want 1, nil", n, err)
	}

	k.Stop()
	var want []string
	for _, id := range []string{"a", "b"} {
		ev := event("thing.created", id, nil)
		changeIn(t, db, coll, id, ev)
		want = append(want, ev.ID)
	}
	x := event("other.created", "x", nil)
	changeIn(t, db, "others", "x", x)
	want = append(want, x.ID)
	for i := range 4 { // twice the attempts that would dead-letter a failing event
		sctx, cancel := context.WithTimeout(ctx, deadline)
		n, err := relay.SweepOnce(sctx)
		cancel()
		if n != 0 || err == nil {
			t.Fatalf("sweep %d with Kafka down = %d, %v; want 0 and an error", i, n, err)
		}
	}
	for _, id := range []string{"a", "b"} {
		if f := stored(t, db, coll, id)[kafkax.OutboxFailureField]; f != nil {
			t.Errorf("failure counted on %s while Kafka was down: %v", id, f)
		}
	}

	k.Start()
	run(t, relay.Run)
	got := kafkatest.ReadN(t, k.Brokers, topic, len(want), deadline)
	// Each collection is swept on its own: the order holds per subject, not
	// across collections.
	if diff := cmp.Diff(ids(got), want, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("delivered after the restart (-got +want):\n%s", diff)
	}
	if dls := deadLetters(t, db); len(dls) != 0 {
		t.Errorf("dead letters after a Kafka outage: %+v", dls)
	}
}

// A collection whose query fails does not stop the sweep of the others.
func TestRelaySweepsPastAFailingCollection(t *testing.T) {
	db := mongotest.Database(t)
	k := kafkatest.Start(t)
	relay := kafkax.NewRelay(mongox.NewDB(db), newPublisher(t, k.Brokers), topic, []string{"bad$name", coll}, nil)
	ev := event("thing.created", "a", nil)
	changeIn(t, db, coll, "a", ev)

	n, err := relay.SweepOnce(context.Background())
	if n != 1 || err == nil || !strings.Contains(err.Error(), "bad$name") {
		t.Fatalf("SweepOnce = %d, %v; want 1 published and the failing collection's error", n, err)
	}
	got := kafkatest.ReadN(t, k.Brokers, topic, 1, deadline)
	if diff := cmp.Diff(ids(got), []string{ev.ID}); diff != "" {
		t.Errorf("published (-got +want):\n%s", diff)
	}
}

// Markup-heavy data (a 160 KB schema of '<') takes one byte per '<' in the
// event and on Kafka, instead of json.Marshal's six (\u003c).
func TestEventsKeepMarkupOneBytePerCharacter(t *testing.T) {
	k := kafkatest.Start(t)
	pub := newPublisher(t, k.Brokers)
	markup := strings.Repeat("<", 160_000) + "&>"
	ev := event("thing.edited", "s", map[string]string{"schema": markup})
	if want := `{"schema":"` + markup + `"}`; string(ev.Data) != want {
		t.Fatalf("event data is %d bytes, want the %d bytes of the unescaped JSON", len(ev.Data), len(want))
	}
	size, err := kafkax.Size(ev)
	if err != nil || size > len(markup)+1000 {
		t.Fatalf("Size = %d, %v; want about %d", size, err, len(markup))
	}
	if err := pub.Publish(context.Background(), topic, ev); err != nil {
		t.Fatalf("Publish: %v", err)
	}
	r := kafka.NewReader(kafka.ReaderConfig{Brokers: k.Brokers, Topic: topic, Partition: 0, MaxBytes: 10 << 20, MaxWait: 100 * time.Millisecond})
	defer r.Close()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	m, err := r.ReadMessage(ctx)
	if err != nil {
		t.Fatalf("read the message: %v", err)
	}
	if got := len(m.Key) + len(m.Value); got != size || strings.Contains(string(m.Value), `\u003c`) {
		t.Errorf("message of %d bytes (escaped: %v), want %d unescaped", got, strings.Contains(string(m.Value), `\u003c`), size)
	}
	got, err := kafkax.Decode(m)
	if err != nil || string(got.Data) != string(ev.Data) {
		t.Errorf("decoded data differs (%v)", err)
	}
}

// A handler's Permanent error dead-letters the event (with the group) and
// the partition goes on; another error is still retried.
func TestConsumerDeadLettersPermanentFailures(t *testing.T) {
	db := mongotest.Database(t)
	k := kafkatest.Start(t)
	pub := newPublisher(t, k.Brokers)
	before := deadLetterCount(t, attribute.String("source", "consumer"), attribute.String("messaging.consumer.group.name", "g-perm"))

	bad := event("thing.created", "a", map[string]int{"name": 42}) // say the handler cannot read it
	flaky := event("thing.updated", "a", nil)
	last := event("thing.updated", "a", nil)
	if err := pub.Publish(context.Background(), topic, bad, flaky, last); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{fail: map[string]int{flaky.ID: 2}}
	startConsumer(t, k.Brokers, "g-perm", db, func(ctx context.Context, ev kafkax.Event) error {
		if ev.ID == bad.ID {
			return kafkax.Permanent(errors.New("name is not a string"))
		}
		return rec.handle(ctx, ev)
	})
	eventually(t, "the last event", func() bool { return rec.has(last.ID) })
	if diff := cmp.Diff(ids(rec.handled()), []string{flaky.ID, last.ID}); diff != "" {
		t.Errorf("handled (-got +want):\n%s", diff)
	}
	dls := deadLetters(t, db)
	if len(dls) != 1 {
		t.Fatalf("dead letters = %+v, want one", dls)
	}
	dl := dls[0]
	if ev := eventOf(t, dl); ev.ID != bad.ID || dl.ID != "consumer:g-perm:"+bad.ID || dl.Source != kafkax.SourceConsumer ||
		dl.Group != "g-perm" || dl.Topic != topic || dl.Error != "name is not a string" || dl.Attempts != 1 || dl.Count != 1 {
		t.Errorf("dead letter = %+v (event %s); want the refused event of group g-perm", dl, ev.ID)
	}
	if n := deadLetterCount(t, attribute.String("source", "consumer"), attribute.String("messaging.consumer.group.name", "g-perm")); n != before+1 {
		t.Errorf("kafkax.dead_letters counter = %d, want %d", n, before+1)
	}
}

// An event its handler does not know (envelope.ErrUnknown: a newer schema
// version, an undeclared type) is logged, counted and skipped: neither
// retried nor dead-lettered, and the partition goes on.
func TestConsumerIgnoresUnknownEvents(t *testing.T) {
	db := mongotest.Database(t)
	k := kafkatest.Start(t)
	pub := newPublisher(t, k.Brokers)
	group := attribute.String("messaging.consumer.group.name", "g-unknown")
	before := counterSum(t, "kafkax.ignored_events", group)

	newer := envelope.NewVersion("thing.updated", 2, "", "a", nil)
	last := event("thing.updated", "a", nil)
	if err := pub.Publish(context.Background(), topic, newer, last); err != nil {
		t.Fatal(err)
	}
	catalogue := envelope.Catalogue{"thing.updated": 1}
	rec := &recorder{}
	startConsumer(t, k.Brokers, "g-unknown", db, func(ctx context.Context, ev kafkax.Event) error {
		if err := catalogue.Check(ev); err != nil {
			return err
		}
		return rec.handle(ctx, ev)
	})
	eventually(t, "the last event", func() bool { return rec.has(last.ID) })
	if diff := cmp.Diff(ids(rec.handled()), []string{last.ID}); diff != "" {
		t.Errorf("handled (-got +want):\n%s", diff)
	}
	if dls := deadLetters(t, db); len(dls) != 0 {
		t.Errorf("dead letters = %+v, want none", dls)
	}
	if n := counterSum(t, "kafkax.ignored_events", group); n != before+1 {
		t.Errorf("kafkax.ignored_events = %d, want %d", n, before+1)
	}
}

// metrics reads what the package's instruments recorded (see TestMain).
var metrics = sdkmetric.NewManualReader()

// deadLetterCount sums the kafkax.dead_letters counter over the data points
// carrying every attribute of want.
func deadLetterCount(t *testing.T, want ...attribute.KeyValue) int64 {
	t.Helper()
	return counterSum(t, "kafkax.dead_letters", want...)
}

// counterSum sums the counter name over the data points carrying every
// attribute of want.
func counterSum(t *testing.T, name string, want ...attribute.KeyValue) int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := metrics.Collect(context.Background(), &rm); err != nil {
		t.Fatalf("collect metrics: %v", err)
	}
	var n int64
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			sum, ok := m.Data.(metricdata.Sum[int64])
			if m.Name != name || !ok {
				continue
			}
			for _, dp := range sum.DataPoints {
				match := true
				for _, kv := range want {
					v, ok := dp.Attributes.Value(kv.Key)
					match = match && ok && v == kv.Value
				}
				if match {
					n += dp.Value
				}
			}
		}
	}
	return n
}

// A dead letter is listed, shown, replayed once its cause is mended and
// then gone; the replay reaches the group that refused the event and no
// other (their processed records pruned, the other group would handle it a
// second time without the replay's group header); a dropped letter is gone.
func TestDeadLettersReplayAndDrop(t *testing.T) {
	db := mongotest.Database(t)
	k := kafkatest.Start(t)
	pub := newPublisher(t, k.Brokers)
	bad := event("thing.created", "a", nil)
	doomed := event("thing.created", "a", nil)
	if err := pub.Publish(context.Background(), topic, bad, doomed); err != nil {
		t.Fatal(err)
	}
	var mended atomic.Bool
	refusing := &recorder{}
	startConsumer(t, k.Brokers, "g-refuses", db, func(ctx context.Context, ev kafkax.Event) error {
		if ev.ID == doomed.ID || (ev.ID == bad.ID && !mended.Load()) {
			return kafkax.Permanent(errors.New("cannot read it"))
		}
		return refusing.handle(ctx, ev)
	})
	other := &recorder{}
	startConsumer(t, k.Brokers, "g-other", db, other.handle)
	eventually(t, "two dead letters and the other group's events", func() bool {
		return len(deadLetters(t, db)) == 2 && other.has(doomed.ID)
	})

	dls := kafkax.NewDeadLetters(db, pub)
	ctx := t.Context()
	list, err := dls.List(ctx, "", 1)
	if err != nil || len(list) != 1 || list[0].Event != nil {
		t.Fatalf("first page of one: %+v %v (without its event)", list, err)
	}
	rest, err := dls.List(ctx, list[0].ID, 10)
	if err != nil || len(rest) != 1 || rest[0].ID == list[0].ID {
		t.Fatalf("the page after %s: %+v %v", list[0].ID, rest, err)
	}
	badID, doomedID := "consumer:g-refuses:"+bad.ID, "consumer:g-refuses:"+doomed.ID
	if dl, err := dls.Get(ctx, badID); err != nil || eventOf(t, dl).ID != bad.ID || dl.Error != "cannot read it" {
		t.Fatalf("show %s: %+v %v", badID, dl, err)
	}

	if _, err := kafkax.PruneProcessed(ctx, db, time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	mended.Store(true)
	if err := dls.Replay(ctx, badID); err != nil {
		t.Fatal(err)
	}
	if err := dls.Drop(ctx, doomedID); err != nil {
		t.Fatal(err)
	}
	marker := event("thing.updated", "a", nil) // same subject: after the replay on its partition
	if err := pub.Publish(ctx, topic, marker); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the marker in both groups", func() bool { return refusing.has(marker.ID) && other.has(marker.ID) })
	if diff := cmp.Diff(ids(refusing.handled()), []string{bad.ID, marker.ID}); diff != "" {
		t.Errorf("the refusing group handled (-got +want):\n%s", diff)
	}
	if diff := cmp.Diff(ids(other.handled()), []string{bad.ID, doomed.ID, marker.ID}); diff != "" {
		t.Errorf("the other group handled (-got +want):\n%s", diff)
	}
	if left := deadLetters(t, db); len(left) != 0 {
		t.Errorf("dead letters after replay and drop: %+v", left)
	}
	if err := dls.Drop(ctx, doomedID); !errors.Is(err, kafkax.ErrNoDeadLetter) {
		t.Errorf("dropping it again: %v", err)
	}
	if err := dls.Replay(ctx, doomedID); !errors.Is(err, kafkax.ErrNoDeadLetter) {
		t.Errorf("replaying a dropped letter: %v", err)
	}
}
