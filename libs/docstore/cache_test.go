package docstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/docstore"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/waittest"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// FindCached keeps what it read until a write through the store, which
// shows at once, or until its TTL passes, after which a write through
// anything else (another instance) shows.
func TestFindCached(t *testing.T) {
	ctx := context.Background()
	cached := func(ttl time.Duration) (*docstore.Store, func() int) {
		s := docstore.New(mongotest.DB(t), map[string]string{things: "thing"}, nil)
		s.CacheByID(things, 100, 1<<20, ttl)
		insert(t, s, Thing{ID: "a", Group: "g", Rank: 1})
		return s, func() int {
			t.Helper()
			got, err := docstore.FindCached[Thing](ctx, s, things, "a")
			if err != nil {
				t.Fatalf("FindCached: %v", err)
			}
			return got.Rank
		}
	}
	otherWrite := func(s *docstore.Store, rank int) {
		t.Helper()
		if _, err := s.C(things).UpdateOne(ctx, bson.M{"_id": "a"}, bson.M{"$set": bson.M{"rank": rank}}); err != nil {
			t.Fatal(err)
		}
	}

	s, rank := cached(time.Hour)
	if got := rank(); got != 1 {
		t.Fatalf("rank %d, want 1", got)
	}
	otherWrite(s, 2)
	if got := rank(); got != 1 {
		t.Fatalf("rank %d after a write the store did not make: read again, not kept", got)
	}
	for want := 3; want < 6; want++ {
		if err := s.Set(ctx, things, "a", bson.M{"rank": want}, event("thing.updated", "a")); err != nil {
			t.Fatal(err)
		}
		if got := rank(); got != want {
			t.Fatalf("rank %d right after the store set it to %d", got, want)
		}
	}
	remove(t, s, "a")
	if _, err := docstore.FindCached[Thing](ctx, s, things, "a"); !errors.Is(err, apierr.ErrNotFound) {
		t.Fatalf("after the store removed it: %v, want not found", err)
	}
	if _, err := docstore.FindCached[Thing](ctx, s, things, "nope"); !errors.Is(err, apierr.ErrNotFound) {
		t.Fatalf("a missing document: %v, want not found", err)
	}

	const ttl = 200 * time.Millisecond
	s, rank = cached(ttl)
	if got := rank(); got != 1 {
		t.Fatalf("rank %d, want 1", got)
	}
	otherWrite(s, 2)
	waittest.Until(t, "another instance's write to show", 20*ttl, func() bool { return rank() == 2 })
}

// A write of one document drops no other cached document: another
// document's write (through the store, or another instance's told by
// Changed) leaves this one served without a read, its own drops it, and
// a Delete that names no one document drops them all.
func TestFindCachedDropsOnlyTheWrittenDocument(t *testing.T) {
	ctx := context.Background()
	s := docstore.New(mongotest.DB(t), map[string]string{things: "thing"}, nil)
	s.CacheByID(things, 100, 1<<20, time.Hour)
	insert(t, s, Thing{ID: "a", Group: "g", Rank: 1}, Thing{ID: "b", Group: "g", Rank: 1}, Thing{ID: "c", Group: "h", Rank: 1})
	rank := func(id string) int {
		t.Helper()
		got, err := docstore.FindCached[Thing](ctx, s, things, id)
		if err != nil {
			t.Fatalf("FindCached %s: %v", id, err)
		}
		return got.Rank
	}
	// Written behind the store's back: only a read shows it.
	otherWrite := func(id string, rank int) {
		t.Helper()
		if _, err := s.C(things).UpdateOne(ctx, bson.M{"_id": id}, bson.M{"$set": bson.M{"rank": rank}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []string{"a", "b", "c"} {
		rank(id) // cached
		otherWrite(id, 2)
	}

	if err := s.Set(ctx, things, "b", bson.M{"group": "g2"}, event("thing.updated", "b")); err != nil {
		t.Fatal(err)
	}
	if got := rank("b"); got != 2 {
		t.Errorf("b's rank %d after its own write, want 2 (read again)", got)
	}
	if got := rank("a"); got != 1 {
		t.Errorf("a's rank %d after b's write, want 1 (still cached)", got)
	}
	s.Changed(things, "c")
	if got := rank("c"); got != 2 {
		t.Errorf("c's rank %d after Changed(c), want 2", got)
	}
	if got := rank("a"); got != 1 {
		t.Errorf("a's rank %d after Changed(c), want 1 (still cached)", got)
	}
	s.Changed(things, "a")
	if got := rank("a"); got != 2 {
		t.Errorf("a's rank %d after Changed(a), want 2", got)
	}

	otherWrite("a", 3)
	if err := s.Delete(ctx, things, bson.M{"group": "h"}); err != nil {
		t.Fatal(err)
	}
	if got := rank("a"); got != 3 {
		t.Errorf("a's rank %d after a Delete by another field, want 3: it may have matched any document", got)
	}
}
