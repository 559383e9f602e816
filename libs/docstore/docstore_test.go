package docstore_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/docstore"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/libs/otelx"
	"github.com/google/go-cmp/cmp"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.opentelemetry.io/otel"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

const things = "things"

// Thing is the stored document of the tests (exported: bson inlines only exported embedded structs).
type Thing struct {
	ID    string `bson:"_id"`
	Group string `bson:"group"`
	Rank  int    `bson:"rank"`
	Key   string `bson:"key,omitempty"`
}

// stored is a Thing as it lies in the database, with its pending events.
type stored struct {
	Thing          `bson:",inline"`
	kafkax.Pending `bson:",inline"`
}

// newStore returns a store on a fresh database and a counter of written calls.
func newStore(t *testing.T) (*docstore.Store, *int) {
	t.Helper()
	writes := new(int)
	s := docstore.New(mongotest.DB(t), map[string]string{things: "thing"}, docstore.Notify(func() { *writes++ }))
	return s, writes
}

// raw reads a document as stored, tombstones included.
func raw(t *testing.T, s *docstore.Store, id string) stored {
	t.Helper()
	var d stored
	if err := s.C(things).FindOne(context.Background(), bson.M{"_id": id}).Decode(&d); err != nil {
		t.Fatalf("read %s as stored: %v", id, err)
	}
	return d
}

func insert(t *testing.T, s *docstore.Store, docs ...Thing) {
	t.Helper()
	for _, d := range docs {
		if err := s.Insert(context.Background(), things, d); err != nil {
			t.Fatalf("insert %s: %v", d.ID, err)
		}
	}
}

func remove(t *testing.T, s *docstore.Store, ids ...string) {
	t.Helper()
	for _, id := range ids {
		if err := s.Remove(context.Background(), things, id, nil, event("thing.deleted", id)); err != nil {
			t.Fatalf("remove %s: %v", id, err)
		}
	}
}

func event(typ, id string) kafkax.Event { return kafkax.NewEvent(typ, "org", id, nil) }

func eventIDs(evs []kafkax.Event) []string {
	out := []string{}
	for _, e := range evs {
		out = append(out, e.ID)
	}
	return out
}

func TestInsert(t *testing.T) {
	t.Parallel()
	created := event("thing.created", "a")
	for _, tc := range []struct {
		name       string
		events     []kafkax.Event
		wantOutbox []string
		wantWrites int
	}{
		{"with an event", []kafkax.Event{created}, []string{created.ID}, 1},
		{"without events", nil, []string{}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			s, writes := newStore(t)
			if err := s.Insert(ctx, things, Thing{ID: "a", Group: "g", Rank: 1}, tc.events...); err != nil {
				t.Fatalf("Insert: %v", err)
			}
			got := raw(t, s, "a")
			if diff := cmp.Diff(got.Thing, Thing{ID: "a", Group: "g", Rank: 1}); diff != "" {
				t.Errorf("stored document (-got +want):\n%s", diff)
			}
			if diff := cmp.Diff(eventIDs(got.Outbox), tc.wantOutbox); diff != "" {
				t.Errorf("%s (-got +want):\n%s", kafkax.OutboxField, diff)
			}
			if *writes != tc.wantWrites {
				t.Errorf("written called %d times, want %d", *writes, tc.wantWrites)
			}
		})
	}
}

func TestInsertDuplicateIDIsConflict(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	insert(t, s, Thing{ID: "a", Rank: 1})
	err := s.Insert(context.Background(), things, Thing{ID: "a", Rank: 2})
	if !errors.Is(err, apierr.ErrConflict) || !strings.Contains(err.Error(), "thing") {
		t.Fatalf("second insert of a: %v, want a conflict naming the thing", err)
	}
	if got := raw(t, s, "a").Rank; got != 1 {
		t.Errorf("rank after the refused insert = %d, want 1", got)
	}
}

func TestSetAndUpdate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		id       string
		cond     bson.M // nil: Set
		wantErr  error
		wantRank int // of document a afterwards
	}{
		{name: "set", id: "a", wantRank: 5},
		{name: "set on a missing id", id: "nope", wantErr: apierr.ErrNotFound, wantRank: 1},
		{name: "set on a removed document", id: "gone", wantErr: apierr.ErrNotFound, wantRank: 1},
		{name: "update with a matching cond", id: "a", cond: bson.M{"rank": 1}, wantRank: 5},
		{name: "update with a cond not matching", id: "a", cond: bson.M{"rank": 2}, wantErr: apierr.ErrNotFound, wantRank: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			s, writes := newStore(t)
			insert(t, s, Thing{ID: "a", Rank: 1}, Thing{ID: "gone", Rank: 1})
			remove(t, s, "gone")
			*writes = 0
			ev := event("thing.updated", tc.id)
			var err error
			if tc.cond == nil {
				err = s.Set(ctx, things, tc.id, bson.M{"rank": 5}, ev)
			} else {
				err = s.Update(ctx, things, tc.id, tc.cond, docstore.Setter(bson.M{"rank": 5}), ev)
			}
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if err != nil && err.Error() != "thing not found" {
				t.Errorf("message %q, want %q", err.Error(), "thing not found")
			}
			got := raw(t, s, "a")
			if got.Rank != tc.wantRank {
				t.Errorf("rank of a = %d, want %d", got.Rank, tc.wantRank)
			}
			pushed := slices.Contains(eventIDs(got.Outbox), ev.ID)
			if pushed != (tc.wantErr == nil) || (tc.wantErr == nil) != (*writes == 1) {
				t.Errorf("event recorded %v, written calls %d; want both only on success", pushed, *writes)
			}
		})
	}
}

func TestRemoveTombstones(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := newStore(t)
	// A unique key is what a removal's extra fields typically free.
	if err := mongox.EnsureIndexes(ctx, s.DB().Database, mongox.Index{Collection: things,
		Model: mongo.IndexModel{Keys: bson.D{{Key: "key", Value: 1}}, Options: options.Index().SetUnique(true)}}); err != nil {
		t.Fatalf("index: %v", err)
	}
	insert(t, s, Thing{ID: "a", Group: "g", Key: "k"}, Thing{ID: "b", Group: "g", Key: "other"})
	deleted := event("thing.deleted", "a")
	if err := s.Remove(ctx, things, "a", bson.M{"key": "removed/a"}, deleted); err != nil {
		t.Fatalf("Remove: %v", err)
	}

	got := raw(t, s, "a")
	if !got.Tombstone || got.Key != "removed/a" || !slices.Contains(eventIDs(got.Outbox), deleted.ID) {
		t.Errorf("stored a = %+v, want a tombstone with key removed/a and the deletion event", got)
	}
	if _, err := docstore.FindOne[Thing](ctx, s, things, bson.M{"_id": "a"}); !errors.Is(err, apierr.ErrNotFound) {
		t.Errorf("FindOne of a removed document: %v, want not found", err)
	}
	if n, err := s.Count(ctx, things, bson.M{"group": "g"}); err != nil || n != 1 {
		t.Errorf("Count = %d, %v; want 1", n, err)
	}
	if err := s.Remove(ctx, things, "a", nil, event("thing.deleted", "a")); !errors.Is(err, apierr.ErrNotFound) {
		t.Errorf("second Remove: %v, want not found", err)
	}
	if err := s.Insert(ctx, things, Thing{ID: "c", Key: "k"}); err != nil {
		t.Errorf("insert reusing the freed key: %v", err)
	}
}

func TestFindAndCountSkipTombstones(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := newStore(t)
	insert(t, s, Thing{ID: "a", Group: "g"}, Thing{ID: "b", Group: "g"}, Thing{ID: "c", Group: "g"}, Thing{ID: "d", Group: "h"})
	remove(t, s, "b")
	for _, tc := range []struct {
		name   string
		filter bson.M
		want   []string
	}{
		{"group with a tombstone", bson.M{"group": "g"}, []string{"a", "c"}},
		{"only a tombstone", bson.M{"_id": "b"}, []string{}},
		{"everything", bson.M{}, []string{"a", "c", "d"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			found, err := docstore.Find[Thing](ctx, s, things, tc.filter, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
			if err != nil {
				t.Fatalf("Find: %v", err)
			}
			got := []string{}
			for _, d := range found {
				got = append(got, d.ID)
			}
			if diff := cmp.Diff(got, tc.want); diff != "" {
				t.Errorf("Find (-got +want):\n%s", diff)
			}
			n, err := s.Count(ctx, things, tc.filter)
			if err != nil || n != len(tc.want) {
				t.Errorf("Count = %d, %v; want %d", n, err, len(tc.want))
			}
		})
	}
}

func TestPageKeyset(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := newStore(t)
	// Ranks repeat so that ties are broken by id; inserted out of order.
	docs := []Thing{
		{ID: "d5", Group: "g", Rank: 2}, {ID: "d1", Group: "g", Rank: 3}, {ID: "d7", Group: "g", Rank: 1},
		{ID: "d3", Group: "g", Rank: 1}, {ID: "d2", Group: "g", Rank: 2}, {ID: "d6", Group: "g", Rank: 3},
		{ID: "d4", Group: "g", Rank: 1}, {ID: "d8", Group: "g", Rank: 2},
		{ID: "x1", Group: "g", Rank: 2}, // removed below
		{ID: "y1", Group: "other", Rank: 1},
	}
	insert(t, s, docs...)
	remove(t, s, "x1")
	byRank := []string{"d3", "d4", "d7", "d2", "d5", "d8", "d1", "d6"}
	byID := []string{"d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8"}
	reversed := func(ids []string) []string {
		out := slices.Clone(ids)
		slices.Reverse(out)
		return out
	}

	for _, tc := range []struct {
		name  string
		field string
		desc  bool
		limit int
		want  []string
	}{
		{"rank ascending", "rank", false, 3, byRank},
		{"rank descending", "rank", true, 3, reversed(byRank)},
		{"rank in pages of one", "rank", false, 1, byRank},
		{"rank in one page", "rank", true, 0, reversed(byRank)},
		{"id ascending", "", false, 3, byID},
		{"id descending", "_id", true, 3, reversed(byID)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			k := docstore.Keyset{Field: tc.field, Desc: tc.desc, Limit: tc.limit}
			var got []string
			for range len(docs) + 1 { // more pages than documents would be a bug
				items, count, err := docstore.Page[Thing](ctx, s, things, bson.M{"group": "g"}, k)
				if err != nil {
					t.Fatalf("Page after %q: %v", k.AfterID, err)
				}
				if count != len(tc.want) {
					t.Errorf("count after %q = %d, want %d", k.AfterID, count, len(tc.want))
				}
				if tc.limit > 0 && len(items) > tc.limit {
					t.Fatalf("page of %d items, limit %d", len(items), tc.limit)
				}
				for _, d := range items {
					got = append(got, d.ID)
				}
				if len(items) == 0 || tc.limit == 0 {
					break
				}
				last := items[len(items)-1]
				k.AfterID, k.AfterValue = last.ID, last.Rank
			}
			if diff := cmp.Diff(got, tc.want); diff != "" {
				t.Errorf("pages (-got +want):\n%s", diff)
			}
		})
	}
}

// Events written within a traced request carry its trace context, so the
// relay's publish continues the request's trace; an event that already has
// one keeps it.
func TestEventsCarryTheRequestsTrace(t *testing.T) {
	_, shutdown := otelx.SetupInMemory("svc")
	t.Cleanup(func() { _ = shutdown(context.Background()) })
	s, _ := newStore(t)
	ctx, span := otel.Tracer("test").Start(context.Background(), "request")
	defer span.End()
	traceID := span.SpanContext().TraceID().String()

	if err := s.Insert(ctx, things, Thing{ID: "a", Group: "g"}, kafkax.NewEvent("thing.created", "org", "a", nil)); err != nil {
		t.Fatal(err)
	}
	kept := kafkax.NewEvent("thing.updated", "org", "a", nil)
	kept.Trace = map[string]string{"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}
	if err := s.Set(ctx, things, "a", bson.M{"rank": 1}, kafkax.NewEvent("thing.updated", "org", "a", nil), kept); err != nil {
		t.Fatal(err)
	}
	outbox := raw(t, s, "a").Outbox
	if len(outbox) != 3 {
		t.Fatalf("outbox has %d events, want 3", len(outbox))
	}
	for i, ev := range outbox[:2] {
		if !strings.Contains(ev.Trace["traceparent"], traceID) {
			t.Errorf("event %d traceparent = %q, want the request's trace %s", i, ev.Trace["traceparent"], traceID)
		}
	}
	if got := outbox[2].Trace["traceparent"]; got != kept.Trace["traceparent"] {
		t.Errorf("an event's own trace became %q", got)
	}
}

// New's written is told the events each write recorded (a write without
// events tells nothing).
func TestWrittenIsToldTheEvents(t *testing.T) {
	ctx := context.Background()
	var got [][]kafkax.Event
	s := docstore.New(mongotest.DB(t), map[string]string{things: "thing"}, func(evs []kafkax.Event) { got = append(got, evs) })
	if err := s.Insert(ctx, things, Thing{ID: "a", Group: "g"}, event("thing.created", "a")); err != nil {
		t.Fatal(err)
	}
	if err := s.Set(ctx, things, "a", bson.M{"rank": 2}); err != nil {
		t.Fatal(err)
	}
	if err := s.Set(ctx, things, "a", bson.M{"rank": 3}, event("thing.updated", "a"), event("thing.ranked", "a")); err != nil {
		t.Fatal(err)
	}
	var types [][]string
	for _, evs := range got {
		var ts []string
		for _, ev := range evs {
			if ev.Organization != "org" || ev.Subject != "a" {
				t.Errorf("event %s of %s about %s, want of org about a", ev.Type, ev.Organization, ev.Subject)
			}
			ts = append(ts, ev.Type)
		}
		types = append(types, ts)
	}
	if diff := cmp.Diff(types, [][]string{{"thing.created"}, {"thing.updated", "thing.ranked"}}); diff != "" {
		t.Errorf("events told (-got +want):\n%s", diff)
	}
}

// A store without written (nil, or Notify(nil)) writes events all the same.
func TestWrittenNil(t *testing.T) {
	s := docstore.New(mongotest.DB(t), map[string]string{things: "thing"}, docstore.Notify(nil))
	insert(t, s, Thing{ID: "a", Group: "g"})
	if err := s.Set(context.Background(), things, "a", bson.M{"rank": 2}, event("thing.updated", "a")); err != nil {
		t.Fatal(err)
	}
}
