package spacemongo_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/content/internal/space"
	"github.com/docspub/platform/services/content/internal/spacemongo"
	"github.com/google/go-cmp/cmp"
	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func ev(subject string) kafkax.Event {
	return kafkax.NewEvent(contentapi.SpaceUpdated, "org1", subject, nil)
}

// newSpace stores a space of org1 at revision r1 and returns the store and it.
func newSpace(t *testing.T, id string) (*spacemongo.Store, space.Space) {
	t.Helper()
	db := mongotest.Database(t)
	if err := mongox.EnsureIndexes(context.Background(), db, spacemongo.Indexes()...); err != nil {
		t.Fatal(err)
	}
	s := spacemongo.NewStore(mongox.NewDB(db), nil)
	sp := space.Space{ID: id, Organization: "org1", Title: "A", Visibility: space.VisibilityPrivate, EditMode: space.EditLive,
		Position: 1, Revision: "r1", CreatedAt: t0, UpdatedAt: t0}
	rev := space.Revision{ID: "r1", Space: id, Organization: "org1", Type: "edits", Parents: []string{}, CreatedAt: t0}
	if err := s.InsertSpace(context.Background(), sp, rev, ev(id)); err != nil {
		t.Fatal(err)
	}
	load(t, s, id) // cached from here on
	return s, sp
}

// load reads a space and checks that CachedSpace reads the same: a test's
// writes through the store leave no cached read behind.
func load(t *testing.T, s *spacemongo.Store, id string) space.Space {
	t.Helper()
	sp, err := s.Space(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	cached, err := s.CachedSpace(context.Background(), id)
	if err != nil {
		t.Fatalf("cached read: %v", err)
	}
	if diff := cmp.Diff(cached, sp); diff != "" {
		t.Fatalf("the cached read of %s differs from the store's (-cached +stored):\n%s", id, diff)
	}
	return sp
}

// UpdateSpace writes what changed, at the version that was read: a write
// that read an older version changes nothing and says so.
func TestUpdateSpaceIsACompareAndSetOfWhatChanged(t *testing.T) {
	ctx := context.Background()
	s, was := newSpace(t, "sp1")
	// A renumbering of positions (no version, no event) meanwhile.
	if err := s.SetPosition(ctx, space.Node{Kind: space.KindSpace, ID: "sp1"}, 42); err != nil {
		t.Fatal(err)
	}
	deleted := t0.Add(time.Hour)
	now := was
	now.Title, now.DeletedAt, now.Deleted, now.UpdatedAt = "B", &deleted, true, deleted
	if err := s.UpdateSpace(ctx, was, now, ev("sp1")); err != nil {
		t.Fatal(err)
	}
	got := load(t, s, "sp1")
	if got.Title != "B" || !got.Deleted || got.DeletedAt == nil || !got.DeletedAt.Equal(deleted) || got.Version != 1 {
		t.Errorf("after the update: %+v, want title B, deleted at %s, version 1", got, deleted)
	}
	if got.Position != 42 {
		t.Errorf("position = %d, want 42: an update writes only what it changed", got.Position)
	}

	stale := now
	stale.Title = "C"
	if err := s.UpdateSpace(ctx, was, stale, ev("sp1")); !errors.Is(err, space.ErrChanged) {
		t.Errorf("update from version 0 of a space at 1 = %v, want ErrChanged", err)
	}
	if got := load(t, s, "sp1"); got.Title != "B" {
		t.Errorf("title after a lost update = %q, want B", got.Title)
	}

	restored := got
	restored.DeletedAt, restored.Deleted = nil, false
	if err := s.UpdateSpace(ctx, got, restored, ev("sp1")); err != nil {
		t.Fatal(err)
	}
	if got := load(t, s, "sp1"); got.DeletedAt != nil || got.Deleted || got.Version != 2 {
		t.Errorf("after restoring: deletedAt %v, deleted %v, version %d; want none, false, 2", got.DeletedAt, got.Deleted, got.Version)
	}

	gone := was
	gone.ID = "nope"
	if err := s.UpdateSpace(ctx, gone, gone, ev("nope")); !errors.Is(err, apierr.ErrNotFound) {
		t.Errorf("update of a missing space = %v, want not found", err)
	}
}

// MoveHead moves a live space from a revision only while no merge is
// unfinished on it; ClearMerging and ClearPendingIndex clear only their mark.
func TestMoveHeadAndItsMarks(t *testing.T) {
	ctx := context.Background()
	s, _ := newSpace(t, "sp1")
	if err := s.MoveHead(ctx, "sp1", "r0", space.Head{Revision: "r2", UpdatedAt: t0}, ev("sp1")); !errors.Is(err, apierr.ErrNotFound) {
		t.Errorf("move from a revision the space left = %v, want not found", err)
	}
	if err := s.MoveHead(ctx, "sp1", "r1", space.Head{Revision: "r2", Merging: "cr1", UpdatedAt: t0}, ev("sp1")); err != nil {
		t.Fatal(err)
	}
	if got := load(t, s, "sp1"); got.Revision != "r2" || got.Merging != "cr1" || got.Version != 1 {
		t.Errorf("after the move: revision %s merging %q version %d, want r2, cr1, 1", got.Revision, got.Merging, got.Version)
	}
	if err := s.MoveHead(ctx, "sp1", "r2", space.Head{Revision: "r3", UpdatedAt: t0}, ev("sp1")); !errors.Is(err, apierr.ErrNotFound) {
		t.Errorf("move while a merge is unfinished = %v, want not found", err)
	}
	if err := s.ClearMerging(ctx, "sp1", "cr2"); !errors.Is(err, apierr.ErrNotFound) {
		t.Errorf("clear another change request's merge = %v, want not found", err)
	}
	if err := s.ClearMerging(ctx, "sp1", "cr1"); err != nil {
		t.Fatal(err)
	}
	if err := s.MoveHead(ctx, "sp1", "r2", space.Head{Revision: "r3", UpdatedAt: t0}, ev("sp1")); err != nil {
		t.Errorf("move once the merge is settled = %v", err)
	}

	sp := load(t, s, "sp1")
	moved := sp
	moved.Organization, moved.PendingIndex = "org2", true
	if err := s.UpdateSpace(ctx, sp, moved, ev("sp1")); err != nil {
		t.Fatal(err)
	}
	if err := s.ClearPendingIndex(ctx, "sp1", "org1"); !errors.Is(err, apierr.ErrNotFound) {
		t.Errorf("clear the pending index in another organization = %v, want not found", err)
	}
	if err := s.ClearPendingIndex(ctx, "sp1", "org2"); err != nil {
		t.Fatal(err)
	}
	if got := load(t, s, "sp1"); got.PendingIndex {
		t.Error("the pending index is still marked")
	}
}

// Another replica's change of one space (Changed, its event arrived)
// drops that space's cached read alone: another space is still served
// from the cache, without a read.
func TestChangedDropsOneSpace(t *testing.T) {
	ctx := context.Background()
	db := mongotest.Database(t)
	s := spacemongo.NewStore(mongox.NewDB(db), nil)
	for _, id := range []string{"sp1", "sp2"} {
		sp := space.Space{ID: id, Organization: "org1", Title: "A", Visibility: space.VisibilityPrivate, EditMode: space.EditLive,
			Position: 1, Revision: "r1", CreatedAt: t0, UpdatedAt: t0}
		rev := space.Revision{ID: "r1" + id, Space: id, Organization: "org1", Type: "edits", Parents: []string{}, CreatedAt: t0}
		if err := s.InsertSpace(ctx, sp, rev, ev(id)); err != nil {
			t.Fatal(err)
		}
		load(t, s, id) // cached from here on
		// Another replica's write.
		if _, err := db.Collection(spacemongo.Spaces).UpdateOne(ctx, bson.M{"_id": id}, bson.M{"$set": bson.M{"title": "B"}}); err != nil {
			t.Fatal(err)
		}
	}
	title := func(id string) string {
		t.Helper()
		sp, err := s.CachedSpace(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return sp.Title
	}
	s.Changed("sp2")
	if got := title("sp2"); got != "B" {
		t.Errorf("sp2's title %q after its change, want B", got)
	}
	if got := title("sp1"); got != "A" {
		t.Errorf("sp1's title %q after sp2's change, want A (still cached)", got)
	}
	s.Changed("sp1")
	if got := title("sp1"); got != "B" {
		t.Errorf("sp1's title %q after its change, want B", got)
	}
}
