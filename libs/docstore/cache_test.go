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
		s := docstore.New(mongotest.DB(t), map[string]string{things: "thing"})
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
