package docstore_test

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/docstore"
	"github.com/docspub/platform/libs/kafkatest"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/waittest"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// status returns the HTTP status of an API error, 0 for another error.
func status(err error) int {
	var e *apierr.Error
	if errors.As(err, &e) {
		return e.Status
	}
	return 0
}

func dataEvent(typ, id string, data any) kafkax.Event { return kafkax.NewEvent(typ, "org", id, data) }

// A change whose event would pass kafkax.MaxEventBytes on Kafka is refused
// whole, with a 413 naming the resource and the sizes; nothing is written.
func TestWriteRefusesAnEventTooLargeForKafka(t *testing.T) {
	t.Parallel()
	huge := map[string]string{"reactions": strings.Repeat("x", kafkax.MaxEventBytes)}
	for _, tc := range []struct {
		name  string
		write func(ctx context.Context, s *docstore.Store) error
	}{
		{"insert", func(ctx context.Context, s *docstore.Store) error {
			return s.Insert(ctx, things, Thing{ID: "new", Rank: 9}, dataEvent("thing.created", "new", huge))
		}},
		{"set", func(ctx context.Context, s *docstore.Store) error {
			return s.Set(ctx, things, "a", bson.M{"rank": 9}, dataEvent("thing.edited", "a", huge))
		}},
		{"update", func(ctx context.Context, s *docstore.Store) error {
			return s.Update(ctx, things, "a", bson.M{"rank": 1}, docstore.Setter(bson.M{"rank": 9}),
				event("thing.updated", "a"), dataEvent("thing.edited", "a", huge))
		}},
		{"remove", func(ctx context.Context, s *docstore.Store) error {
			return s.Remove(ctx, things, "a", nil, dataEvent("thing.deleted", "a", huge))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			s, writes := newStore(t)
			insert(t, s, Thing{ID: "a", Rank: 1})
			err := tc.write(ctx, s)
			if status(err) != http.StatusRequestEntityTooLarge {
				t.Fatalf("err = %v, want a 413", err)
			}
			for _, part := range []string{"thing", "thing.", strconv.Itoa(kafkax.MaxEventBytes)} {
				if !strings.Contains(err.Error(), part) {
					t.Errorf("message %q does not name %q", err.Error(), part)
				}
			}
			got := raw(t, s, "a")
			if got.Rank != 1 || got.Tombstone || len(got.Outbox) != 0 || *writes != 0 {
				t.Errorf("after the refused change a = %+v, written calls %d; want it untouched", got, *writes)
			}
			if n, err := s.C(things).CountDocuments(ctx, bson.M{"_id": "new"}); n != 0 || err != nil {
				t.Errorf("refused insert wrote %d documents (%v)", n, err)
			}
		})
	}
}

// Markup-heavy data is written: '<' is one byte in the event, not six.
func TestWriteAcceptsMarkupHeavyEvents(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	insert(t, s, Thing{ID: "a", Rank: 1})
	schema := map[string]string{"schema": strings.Repeat("<", 160_000)}
	if err := s.Set(context.Background(), things, "a", bson.M{"rank": 2}, dataEvent("thing.edited", "a", schema)); err != nil {
		t.Fatalf("Set with a 160 KB schema of '<': %v", err)
	}
}

// While Kafka is down a document's pending events grow until
// kafkax.MaxPendingBytes; the next change of that document is refused with a
// 503 and Retry-After, other documents and reads go on, and once Kafka is
// back the relay empties the outbox and the document takes changes again.
func TestPendingBytesBoundWhileKafkaIsDown(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := newStore(t)
	insert(t, s, Thing{ID: "a", Rank: 0}, Thing{ID: "b", Rank: 0})
	k := kafkatest.StartRestartable(t)
	pub := kafkax.NewPublisher(kafkax.Plain(k.Brokers))
	t.Cleanup(func() { _ = pub.Close() })
	relay := kafkax.NewRelay(s.DB(), pub, "things.events", []string{things}, nil)
	k.Stop()

	big := map[string]string{"blob": strings.Repeat("x", 800<<10)}
	accepted := 0
	for ; accepted < 10; accepted++ {
		err := s.Set(ctx, things, "a", bson.M{"rank": accepted + 1}, dataEvent("thing.edited", "a", big))
		if err != nil {
			if status(err) != http.StatusServiceUnavailable || apierr.RetryAfterOf(err) != docstore.RetryFull ||
				!strings.Contains(err.Error(), "thing") {
				t.Fatalf("change %d: %v (status %d); want a 503 with Retry-After naming the thing", accepted+1, err, status(err))
			}
			break
		}
		if accepted == 0 { // a sweep while Kafka is down removes nothing
			sctx, cancel := context.WithTimeout(ctx, time.Minute)
			n, err := relay.SweepOnce(sctx)
			cancel()
			if n != 0 || err == nil {
				t.Fatalf("SweepOnce with Kafka down = %d, %v; want 0 and an error", n, err)
			}
		}
	}
	if want := kafkax.MaxPendingBytes / (800 << 10); accepted != want {
		t.Errorf("changes accepted before the bound = %d, want %d", accepted, want)
	}
	var pending struct {
		Bytes int64 `bson:"_outboxBytes"`
	}
	if err := s.C(things).FindOne(ctx, bson.M{"_id": "a"}).Decode(&pending); err != nil || pending.Bytes > kafkax.MaxPendingBytes {
		t.Errorf("pending bytes of a = %d (%v), want at most %d", pending.Bytes, err, kafkax.MaxPendingBytes)
	}
	if got := raw(t, s, "a"); got.Rank != accepted || len(got.Outbox) != accepted {
		t.Errorf("a has rank %d and %d events, want %d and %d: the refused change wrote something", got.Rank, len(got.Outbox), accepted, accepted)
	}
	if _, err := docstore.FindOne[Thing](ctx, s, things, bson.M{"_id": "a"}); err != nil {
		t.Errorf("read of a: %v", err)
	}
	if err := s.Set(ctx, things, "b", bson.M{"rank": 1}, dataEvent("thing.edited", "b", big)); err != nil {
		t.Errorf("change of another document: %v", err)
	}

	k.Start()
	rctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- relay.Run(rctx) }()
	t.Cleanup(func() { stop(); <-done })
	waittest.Until(t, "a's outbox to be published", time.Minute, func() bool {
		var d bson.M
		if err := s.C(things).FindOne(ctx, bson.M{"_id": "a"}).Decode(&d); err != nil {
			t.Fatal(err)
		}
		_, counted := d[kafkax.OutboxBytesField]
		return len(d[kafkax.OutboxField].(bson.A)) == 0 && !counted
	})
	if err := s.Set(ctx, things, "a", bson.M{"rank": 99}, dataEvent("thing.edited", "a", big)); err != nil {
		t.Errorf("change of a once its events left: %v", err)
	}
}

// BenchmarkSetWithEvent is one change with its event (a 1 KiB comment),
// write-time checks included, against the embedded FerretDB.
func BenchmarkSetWithEvent(b *testing.B) {
	s := docstore.New(mongotest.DB(b), map[string]string{things: "thing"}, nil)
	ctx := context.Background()
	if err := s.Insert(ctx, things, Thing{ID: "a"}); err != nil {
		b.Fatal(err)
	}
	data := map[string]any{"id": "a", "body": map[string]string{"markdown": strings.Repeat("looks good ", 93)}}
	i := 0
	for b.Loop() {
		i++
		if err := s.Set(ctx, things, "a", bson.M{"rank": i}, dataEvent("thing.edited", "a", data)); err != nil {
			b.Fatal(err)
		}
		if _, err := s.C(things).UpdateOne(ctx, bson.M{"_id": "a"}, bson.M{"$set": bson.M{kafkax.OutboxField: bson.A{}}, "$unset": bson.M{kafkax.OutboxBytesField: ""}}); err != nil {
			b.Fatal(err) // keep the outbox empty, as the relay would
		}
	}
}
