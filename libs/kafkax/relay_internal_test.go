package kafkax

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/google/go-cmp/cmp"
	"github.com/segmentio/kafka-go"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// An event pushed after the relay read a document must survive the removal
// of the published ones, and keep a tombstone alive until it is published.
func TestRelayRemovesOnlyWhatItRead(t *testing.T) {
	db := mongotest.Database(t)
	coll := db.Collection("things")
	ctx := context.Background()
	r := NewRelay(mongox.NewDB(db), nil, "things.events", []string{"things"}, nil)

	read := NewEvent("thing.deleted", "org1", "a", nil)
	if _, err := coll.InsertOne(ctx, bson.M{"_id": "a", "name": "a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.UpdateOne(ctx, bson.M{"_id": "a"}, recorded(t, read).Tombstone()); err != nil {
		t.Fatal(err)
	}
	var d pendingDoc
	if err := coll.FindOne(ctx, pendingFilter(time.Now())).Decode(&d); err != nil {
		t.Fatal(err)
	}

	late := NewEvent("thing.deleted", "org1", "a", nil)
	if _, err := coll.UpdateOne(ctx, bson.M{"_id": "a"}, lateUpdate(t, late)); err != nil {
		t.Fatal(err)
	}
	if err := r.remove(ctx, coll, d, 0, 1); err != nil {
		t.Fatal(err)
	}
	if err := r.deleteTombstone(ctx, coll, d); err != nil {
		t.Fatal(err)
	}

	var got struct {
		Pending `bson:",inline"`
	}
	if err := coll.FindOne(ctx, bson.M{"_id": "a"}).Decode(&got); err != nil {
		t.Fatalf("tombstone with a pending event was deleted: %v", err)
	}
	var pending []string
	for _, ev := range got.Outbox {
		pending = append(pending, ev.ID)
	}
	if diff := cmp.Diff(pending, []string{late.ID}); diff != "" {
		t.Errorf("pending events (-got +want):\n%s", diff)
	}
}

// Two relays (two replicas') read the same pending event; one publishes
// and removes it, a writer records another, then the other relay removes
// what it read: the new event stays pending, with its bytes counted, and
// the sweeps still find it. With the count dropped it would never be
// published.
func TestRelayRemovalRacingAnotherRelay(t *testing.T) {
	db := mongotest.Database(t)
	coll := db.Collection("things")
	ctx := context.Background()
	r := NewRelay(mongox.NewDB(db), nil, "things.events", []string{"things"}, nil)

	first := NewEvent("thing.updated", "org1", "a", nil)
	if _, err := coll.InsertOne(ctx, append(bson.D{{Key: "_id", Value: "a"}}, recorded(t, first).Fields()...)); err != nil {
		t.Fatal(err)
	}
	var a, b pendingDoc
	for _, d := range []*pendingDoc{&a, &b} {
		if err := coll.FindOne(ctx, pendingFilter(time.Now())).Decode(d); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.remove(ctx, coll, b, 0, 1); err != nil {
		t.Fatal(err)
	}
	second := NewEvent("thing.updated", "org1", "a", nil)
	if _, err := coll.UpdateOne(ctx, bson.M{"_id": "a"}, lateUpdate(t, second)); err != nil {
		t.Fatal(err)
	}
	if err := r.remove(ctx, coll, a, 0, 1); err != nil {
		t.Fatal(err)
	}

	var got struct {
		Pending `bson:",inline"`
		Bytes   *int64 `bson:"_outboxBytes"`
	}
	if err := coll.FindOne(ctx, pendingFilter(time.Now())).Decode(&got); err != nil {
		t.Fatalf("the event recorded after the other relay's removal is no longer pending: %v", err)
	}
	if len(got.Outbox) != 1 || got.Outbox[0].ID != second.ID {
		t.Fatalf("pending: %+v, want %s alone", got.Outbox, second.ID)
	}
	if want := recorded(t, second).Bytes(); got.Bytes == nil || *got.Bytes != want {
		t.Errorf("pending bytes %v, want %d", got.Bytes, want)
	}
}

func TestRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"broker: message too large", kafka.MessageSizeTooLarge, true},
		{"broker: invalid message, wrapped", fmt.Errorf("publish: %w", kafka.InvalidMessage), true},
		{"broker: invalid record", kafka.InvalidRecord, true},
		{"client: larger than a batch", kafka.MessageTooLargeError{}, true},
		{"over MaxEventBytes", &TooLargeError{Type: "t", ID: "e", Size: 2, Max: 1}, true},
		{"broker: not the leader", kafka.NotLeaderForPartition, false},
		{"broker: unknown topic", kafka.UnknownTopicOrPartition, false},
		{"network", &net.OpError{Op: "dial", Err: errors.New("connection refused")}, false},
		{"timeout", context.DeadlineExceeded, false},
		{"none", nil, false},
	} {
		if got := refused(tc.err); got != tc.want {
			t.Errorf("%s: refused(%v) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}

func TestOutboxAddToKeepsTheUpdatesOperators(t *testing.T) {
	ev := NewEvent("thing.updated", "org1", "a", nil)
	o, err := NewOutbox(ev)
	if err != nil {
		t.Fatal(err)
	}
	upd := bson.M{"$set": bson.M{"name": "a"}, "$push": bson.D{{Key: "tags", Value: "x"}}, "$inc": bson.M{"version": 1}}
	o.AddTo(upd)
	want := bson.M{
		"$set":  bson.M{"name": "a"},
		"$push": bson.D{{Key: "tags", Value: "x"}, {Key: OutboxField, Value: bson.M{"$each": []Event{ev}}}},
		"$inc":  bson.M{"version": 1, OutboxBytesField: o.Bytes()},
	}
	if diff := cmp.Diff(upd, want); diff != "" {
		t.Errorf("update (-got +want):\n%s", diff)
	}
	if o.Bytes() <= 0 {
		t.Errorf("Bytes = %d, want the event's BSON size", o.Bytes())
	}
}

// BenchmarkNewOutbox measures the write-time check of one event: its Kafka
// encoding (size) and its BSON size (pending bytes).
func BenchmarkNewOutbox(b *testing.B) {
	for _, bc := range []struct {
		name string
		data any
	}{
		{"comment 1KiB", map[string]any{"id": "c1", "body": map[string]string{"markdown": strings.Repeat("looks good ", 93)}}},
		{"schema 160KB of <", map[string]string{"schema": strings.Repeat("<", 160_000)}},
	} {
		ev := NewEvent("thing.refreshed", "org1", "c1", bc.data)
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := NewOutbox(ev); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// lateUpdate records ev as a writer does.
func lateUpdate(t *testing.T, ev Event) bson.M {
	t.Helper()
	u := bson.M{}
	recorded(t, ev).AddTo(u)
	return u
}

// recorded is ev as a writer records it.
func recorded(t *testing.T, ev Event) Outbox {
	t.Helper()
	o, err := NewOutbox(ev)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// A record written before (an event handled again after a crash between
// its handling and its commit) does not fail the batch's write.
func TestInsertRecordsTakesRecordsWrittenBefore(t *testing.T) {
	coll := mongotest.Database(t).Collection(ProcessedCollection)
	ctx := context.Background()
	if err := insertRecords(ctx, coll, []any{bson.M{"_id": "g:a"}}); err != nil {
		t.Fatal(err)
	}
	if err := insertRecords(ctx, coll, []any{bson.M{"_id": "g:a"}, bson.M{"_id": "g:b"}}); err != nil {
		t.Fatalf("a record written before: %v", err)
	}
	if n, err := coll.CountDocuments(ctx, bson.M{}); err != nil || n != 2 {
		t.Fatalf("records: %d, %v; want 2", n, err)
	}
	if err := insertRecords(ctx, coll, []any{bson.M{"_id": "g:c", "$bad": 1}}); err == nil {
		t.Error("a record the server refuses was taken")
	}
}

// The documents whose events were all acknowledged are emptied in one
// update, each on the condition that it holds the events read: a document
// that got an event since is left as it is, none of that update counts as
// emptied, and the document by document way keeps its new event pending.
func TestRelayEmptiesTogether(t *testing.T) {
	db := mongotest.Database(t)
	coll := db.Collection("things")
	ctx := context.Background()
	r := NewRelay(mongox.NewDB(db), nil, "things.events", []string{"things"}, nil)

	read := func() []*sending {
		t.Helper()
		docs, _, errs := r.pending(ctx, coll)
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		var out []*sending
		for _, d := range docs {
			s := &sending{doc: d, out: make([]outgoing, len(d.Outbox)), ok: make([]bool, len(d.Outbox))}
			for i := range s.ok {
				s.ok[i] = true
			}
			out = append(out, s)
		}
		return out
	}
	for _, id := range []string{"a", "b", "c"} {
		ev := NewEvent("thing.updated", "org1", id, nil)
		if _, err := coll.InsertOne(ctx, append(bson.D{{Key: "_id", Value: id}}, recorded(t, ev).Fields()...)); err != nil {
			t.Fatal(err)
		}
	}
	sent := read()
	late := NewEvent("thing.updated", "org1", "b", nil)
	if _, err := coll.UpdateOne(ctx, bson.M{"_id": "b"}, lateUpdate(t, late)); err != nil {
		t.Fatal(err)
	}
	if got := r.empty(ctx, coll, sent); len(got.docs) != 0 || got.events != 0 {
		t.Fatalf("emptied %d documents, %d events, while one had changed; want none counted", len(got.docs), got.events)
	}
	for _, s := range sent {
		if _, err := r.settle(ctx, coll, s.doc, len(s.out)); err != nil {
			t.Fatal(err)
		}
	}
	left := read()
	if len(left) != 1 || left[0].doc.ID.StringValue() != "b" || len(left[0].doc.Outbox) != 1 || eventKey(left[0].doc.Outbox[0]) != late.ID {
		t.Fatalf("pending after the sweep: %d documents, want b with its late event alone", len(left))
	}

	if got := r.empty(ctx, coll, left); len(got.docs) != 1 || got.events != 1 {
		t.Errorf("emptied %d documents, %d events; want 1, 1", len(got.docs), got.events)
	}
	if again := read(); len(again) != 0 {
		t.Errorf("%d documents still pending after they were emptied", len(again))
	}
}

// An idle relay sweeps less and less often, down to its idle interval; a
// relay whose interval was set sweeps at that interval, idle or not.
func TestRelayBacksOffWhileIdle(t *testing.T) {
	var waits []time.Duration
	r := NewRelay(mongox.DB{}, nil, "things.events", []string{"things"}, nil)
	for empty := range 6 {
		waits = append(waits, r.sweepWait(empty))
	}
	want := []time.Duration{200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond, time.Second, time.Second, time.Second}
	if diff := cmp.Diff(want, waits); diff != "" {
		t.Errorf("waits after 0..5 empty sweeps (-want +got):\n%s", diff)
	}
	fixed := NewRelay(mongox.DB{}, nil, "things.events", []string{"things"}, nil, WithSweepInterval(5*time.Millisecond))
	if got := fixed.sweepWait(10); got != 5*time.Millisecond {
		t.Errorf("a set interval's wait after 10 empty sweeps = %v, want 5ms", got)
	}
	slow := NewRelay(mongox.DB{}, nil, "things.events", []string{"things"}, nil, WithSweepInterval(time.Hour))
	if got := slow.sweepWait(3); got != time.Hour {
		t.Errorf("an interval above the idle one: wait %v, want 1h", got)
	}
}
