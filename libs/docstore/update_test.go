package docstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/docstore"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/google/go-cmp/cmp"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// rank is the change of the tests: it sets a thing's rank to n and records
// a thing.ranked event saying so.
func rank(n int) docstore.Change[Thing] {
	return func(th *Thing) ([]kafkax.Event, error) {
		th.Rank = n
		return []kafkax.Event{dataEvent("thing.ranked", th.ID, map[string]int{"rank": n})}, nil
	}
}

// versionOf reads the version of a stored document (0: none).
func versionOf(t *testing.T, s *docstore.Store, id string) int64 {
	t.Helper()
	raw, err := s.C(things).FindOne(context.Background(), bson.M{"_id": id}).Raw()
	if err != nil {
		t.Fatalf("read %s: %v", id, err)
	}
	v, _ := raw.Lookup(docstore.VersionField).AsInt64OK()
	return v
}

// ranksRecorded are the ranks of the thing.ranked events pending on a document.
func ranksRecorded(t *testing.T, s *docstore.Store, id string) []int {
	t.Helper()
	var out []int
	for _, ev := range raw(t, s, id).Outbox {
		if ev.Type != "thing.ranked" {
			continue
		}
		var d struct{ Rank int }
		if err := json.Unmarshal(ev.Data, &d); err != nil {
			t.Fatalf("event %s: %v", ev.ID, err)
		}
		out = append(out, d.Rank)
	}
	return out
}

func TestModify(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	refused := errors.New("refused")
	for _, tc := range []struct {
		name       string
		id         string
		change     docstore.Change[Thing]
		wantErr    error
		wantRank   int
		wantVer    int64
		wantEvents []int
		wantWrites int
	}{
		{name: "applied", id: "a", change: rank(7), wantRank: 7, wantVer: 1, wantEvents: []int{7}, wantWrites: 1},
		{name: "refused by the change", id: "a", wantErr: refused, wantRank: 1,
			change: func(th *Thing) ([]kafkax.Event, error) { th.Rank = 9; return nil, refused }},
		{name: "nothing changed, events dropped", id: "a", change: rank(1), wantRank: 1},
		{name: "no change, no event", id: "a", wantRank: 1,
			change: func(*Thing) ([]kafkax.Event, error) { return nil, nil }},
		{name: "missing", id: "nope", change: rank(2), wantErr: apierr.ErrNotFound},
		{name: "tombstoned", id: "gone", change: rank(2), wantErr: apierr.ErrNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, writes := newStore(t)
			insert(t, s, Thing{ID: "a", Group: "g", Rank: 1}, Thing{ID: "gone"})
			remove(t, s, "gone")
			*writes = 0

			got, err := docstore.Modify(ctx, s, things, tc.id, tc.change)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Modify: %v, want %v", err, tc.wantErr)
			}
			if tc.wantErr != nil {
				if tc.id == "a" && !cmp.Equal(raw(t, s, "a").Thing, Thing{ID: "a", Group: "g", Rank: 1}) {
					t.Errorf("a = %+v after a refused change", raw(t, s, "a").Thing)
				}
				return
			}
			if got.Rank != tc.wantRank || got.Group != "g" {
				t.Errorf("Modify returned %+v, want rank %d in group g", got, tc.wantRank)
			}
			if d := raw(t, s, "a").Thing; d.Rank != tc.wantRank || d.Group != "g" {
				t.Errorf("stored %+v, want rank %d in group g", d, tc.wantRank)
			}
			if v := versionOf(t, s, "a"); v != tc.wantVer {
				t.Errorf("version %d, want %d", v, tc.wantVer)
			}
			if diff := cmp.Diff(ranksRecorded(t, s, "a"), tc.wantEvents); diff != "" {
				t.Errorf("events recorded (-got +want):\n%s", diff)
			}
			if *writes != tc.wantWrites {
				t.Errorf("written called %d times, want %d", *writes, tc.wantWrites)
			}
		})
	}
}

// Fields of the stored document that the changed type does not hold are
// kept; a document stored without a version is at 0.
func TestModifyKeepsFieldsItDoesNotKnow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := newStore(t)
	if _, err := s.C(things).InsertOne(ctx, bson.M{"_id": "a", "group": "g", "rank": 1, "extra": "kept"}); err != nil {
		t.Fatal(err)
	}
	if _, err := docstore.Modify(ctx, s, things, "a", rank(2)); err != nil {
		t.Fatal(err)
	}
	var d bson.M
	if err := s.C(things).FindOne(ctx, bson.M{"_id": "a"}).Decode(&d); err != nil {
		t.Fatal(err)
	}
	if d["extra"] != "kept" || d["rank"] != int64(2) && d["rank"] != int32(2) || d[docstore.VersionField] != int64(1) {
		t.Errorf("stored %v, want extra kept, rank 2, version 1", d)
	}
}

// A change that lost the race to another write is applied again to the
// document as that write left it, once; the write that loses twice is
// apierr.ErrChanged (a 409 naming the resource), nothing of it written.
func TestModifyRetriesOnceThenConflicts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		races     int // writes that come first, one per try
		wantErr   error
		wantTries int
		wantRanks []int
	}{
		{"no race", 0, nil, 1, []int{1}},
		{"one lost race", 1, nil, 2, []int{100, 101}},
		{"two lost races", 2, apierr.ErrChanged, 2, []int{100, 200}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, _ := newStore(t)
			insert(t, s, Thing{ID: "a", Group: "g"})
			tries := 0
			_, err := docstore.Modify(ctx, s, things, "a", func(th *Thing) ([]kafkax.Event, error) {
				tries++
				if tries <= tc.races {
					// Another writer's whole read-modify-write between this read and its write.
					if _, err := docstore.Modify(ctx, s, things, "a", rank(100*tries)); err != nil {
						t.Fatalf("racing write: %v", err)
					}
				}
				return rank(th.Rank + 1)(th)
			})
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Modify: %v, want %v", err, tc.wantErr)
			}
			var e *apierr.Error
			if tc.wantErr != nil && (!errors.As(err, &e) || e.Status != 409 || e.Message != "the thing changed meanwhile; read it again and retry") {
				t.Errorf("conflict %#v, want a 409 naming the thing", err)
			}
			if tries != tc.wantTries {
				t.Errorf("change applied %d times, want %d", tries, tc.wantTries)
			}
			if diff := cmp.Diff(ranksRecorded(t, s, "a"), tc.wantRanks); diff != "" {
				t.Errorf("events recorded (-got +want):\n%s", diff)
			}
			if got, want := raw(t, s, "a").Rank, tc.wantRanks[len(tc.wantRanks)-1]; got != want {
				t.Errorf("rank %d, want %d (the last recorded)", got, want)
			}
		})
	}
}

// Concurrent increments through Modify never lose one: every increment
// either is in the count, with its event recorded by the write that made
// it, or was refused with apierr.ErrChanged, nothing of it written.
func TestModifyConcurrentIncrementsLoseNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := docstore.New(mongotest.DB(t), map[string]string{things: "thing"}, nil)
	insert(t, s, Thing{ID: "a", Group: "g"})
	const writers, each = 8, 10
	var (
		wg        sync.WaitGroup
		mu        sync.Mutex
		applied   int
		conflicts int
	)
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				_, err := docstore.Modify(ctx, s, things, "a", func(th *Thing) ([]kafkax.Event, error) {
					return rank(th.Rank + 1)(th)
				})
				mu.Lock()
				switch {
				case err == nil:
					applied++
				case errors.Is(err, apierr.ErrChanged):
					conflicts++
				default:
					t.Errorf("Modify: %v", err)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	t.Logf("%d increments applied, %d refused as changed", applied, conflicts)
	if applied+conflicts != writers*each {
		t.Fatalf("%d applied + %d refused, want %d in all", applied, conflicts, writers*each)
	}
	if got := raw(t, s, "a").Rank; got != applied {
		t.Errorf("count %d after %d applied increments: an update was lost", got, applied)
	}
	if v := versionOf(t, s, "a"); v != int64(applied) {
		t.Errorf("version %d, want %d (one per write)", v, applied)
	}
	// One event per applied write, each saying the count that write made.
	ranks := ranksRecorded(t, s, "a")
	want := make([]int, applied)
	for i := range want {
		want[i] = i + 1
	}
	slices.Sort(ranks)
	if diff := cmp.Diff(ranks, want); diff != "" {
		t.Errorf("events recorded (-got +want):\n%s", diff)
	}
}

func TestOne(t *testing.T) {
	t.Parallel()
	if got := docstore.One(kafkax.Event{}); got != nil {
		t.Errorf("One(zero event) = %v, want none", got)
	}
	ev := event("thing.ranked", "a")
	if got := docstore.One(ev); len(got) != 1 || got[0].ID != ev.ID {
		t.Errorf("One(%s) = %v, want it alone", ev.ID, got)
	}
}

// ModifyOrInsert creates a missing document from the fresh one changed; a
// write that raced the creation (it read nothing) applies to what the
// creation stored, not over it.
func TestModifyOrInsert(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := newStore(t)
	inc := func(th *Thing) ([]kafkax.Event, error) { return rank(th.Rank + 1)(th) }
	got, err := docstore.ModifyOrInsert(ctx, s, things, "a", Thing{ID: "a", Group: "g"}, inc)
	if err != nil || got.Rank != 1 {
		t.Fatalf("first write: %+v, %v", got, err)
	}
	tries := 0
	_, err = docstore.ModifyOrInsert(ctx, s, things, "b", Thing{ID: "b", Group: "g"}, func(th *Thing) ([]kafkax.Event, error) {
		tries++
		if tries == 1 { // another creation of b between this read and its insert
			if _, err := docstore.ModifyOrInsert(ctx, s, things, "b", Thing{ID: "b", Group: "g"}, rank(10)); err != nil {
				t.Fatalf("racing creation: %v", err)
			}
		}
		return inc(th)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := raw(t, s, "b").Rank; got != 11 {
		t.Errorf("rank %d after a creation (10) and an increment, want 11", got)
	}
	if diff := cmp.Diff(ranksRecorded(t, s, "b"), []int{10, 11}); diff != "" {
		t.Errorf("events recorded (-got +want):\n%s", diff)
	}
	if diff := cmp.Diff(ranksRecorded(t, s, "a"), []int{1}); diff != "" {
		t.Errorf("events of a (-got +want):\n%s", diff)
	}
}

// BenchmarkModifyWithEvent is one read-modify-write with its event (a 1 KiB
// comment), as BenchmarkSetWithEvent is one blind write, against the
// embedded FerretDB: the read is what the compare-and-set adds.
func BenchmarkModifyWithEvent(b *testing.B) {
	s := docstore.New(mongotest.DB(b), map[string]string{things: "thing"}, nil)
	ctx := context.Background()
	if err := s.Insert(ctx, things, Thing{ID: "a"}); err != nil {
		b.Fatal(err)
	}
	data := map[string]any{"id": "a", "body": map[string]string{"markdown": strings.Repeat("looks good ", 93)}}
	for b.Loop() {
		if _, err := docstore.Modify(ctx, s, things, "a", func(th *Thing) ([]kafkax.Event, error) {
			th.Rank++
			return []kafkax.Event{dataEvent("thing.edited", "a", data)}, nil
		}); err != nil {
			b.Fatal(err)
		}
		if _, err := s.C(things).UpdateOne(ctx, bson.M{"_id": "a"}, bson.M{"$set": bson.M{kafkax.OutboxField: bson.A{}}, "$unset": bson.M{kafkax.OutboxBytesField: ""}}); err != nil {
			b.Fatal(err) // keep the outbox empty, as the relay would
		}
	}
}

// RemoveIf tombstones a document with the events its removal says, from the
// document as read: a removal that refuses keeps it, and one that lost the
// race to another write is asked again about the document as that write
// left it, once; losing twice is apierr.ErrChanged, the document kept.
func TestRemoveIf(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	refused := errors.New("refused")
	for _, tc := range []struct {
		name      string
		id        string
		races     int  // writes that come first, one per try
		refuse    bool // the removal refuses
		wantErr   error
		wantTries int
		wantGone  bool
		wantRanks []int // the ranks of the thing.removed events recorded
	}{
		{name: "removed", id: "a", wantTries: 1, wantGone: true, wantRanks: []int{1}},
		{name: "refused", id: "a", refuse: true, wantErr: refused, wantTries: 1},
		{name: "one lost race", id: "a", races: 1, wantTries: 2, wantGone: true, wantRanks: []int{100}},
		{name: "two lost races", id: "a", races: 2, wantErr: apierr.ErrChanged, wantTries: 2},
		{name: "missing", id: "nope", wantErr: apierr.ErrNotFound},
		{name: "tombstoned", id: "gone", wantErr: apierr.ErrNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, _ := newStore(t)
			insert(t, s, Thing{ID: "a", Group: "g", Rank: 1}, Thing{ID: "gone"})
			remove(t, s, "gone")
			tries := 0
			err := docstore.RemoveIf(ctx, s, things, tc.id, func(th Thing) ([]kafkax.Event, error) {
				tries++
				if tries <= tc.races {
					if _, err := docstore.Modify(ctx, s, things, "a", func(th *Thing) ([]kafkax.Event, error) {
						th.Rank = 100 * tries
						return nil, nil
					}); err != nil {
						t.Fatalf("racing write: %v", err)
					}
				}
				if tc.refuse {
					return nil, refused
				}
				return []kafkax.Event{dataEvent("thing.removed", th.ID, map[string]int{"rank": th.Rank})}, nil
			})
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("RemoveIf: %v, want %v", err, tc.wantErr)
			}
			if tries != tc.wantTries {
				t.Errorf("removal asked %d times, want %d", tries, tc.wantTries)
			}
			d := raw(t, s, "a")
			if d.Tombstone != tc.wantGone {
				t.Errorf("a tombstoned: %v, want %v", d.Tombstone, tc.wantGone)
			}
			var ranks []int
			for _, ev := range d.Outbox {
				if ev.Type != "thing.removed" {
					continue
				}
				var r struct{ Rank int }
				if err := json.Unmarshal(ev.Data, &r); err != nil {
					t.Fatal(err)
				}
				ranks = append(ranks, r.Rank)
			}
			if diff := cmp.Diff(ranks, tc.wantRanks); diff != "" {
				t.Errorf("removal events recorded (-got +want):\n%s", diff)
			}
			if _, err := docstore.FindOne[Thing](ctx, s, things, bson.M{"_id": "a"}); tc.wantGone != errors.Is(err, apierr.ErrNotFound) {
				t.Errorf("reading a after: %v, want it gone: %v", err, tc.wantGone)
			}
		})
	}
}
