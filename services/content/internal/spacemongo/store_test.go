package spacemongo_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/docstore"
	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/content/internal/space"
	"github.com/docspub/platform/services/content/internal/spacemongo"
	"github.com/google/go-cmp/cmp"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func ev(subject string) kafkax.Event {
	return kafkax.NewEvent(contentapi.SpaceUpdated, "org1", subject, nil)
}

// newSpace stores a space of org1 at revision r1 and returns the store and it.
func newSpace(t *testing.T, id string) (*spacemongo.Store, space.Space) {
	t.Helper()
	s, sp, _ := newSpaceIn(t, id)
	return s, sp
}

// newSpaceIn is newSpace that also returns the store's database.
func newSpaceIn(t *testing.T, id string) (*spacemongo.Store, space.Space, *mongo.Database) {
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
	return s, sp, db
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

// set is a change of a space that sets its title, recording ev.
func set(title string) space.Change[space.Space] {
	return func(sp *space.Space) (kafkax.Event, error) {
		sp.Title = title
		return ev(sp.ID), nil
	}
}

// versionOf reads the version a space is stored at.
func versionOf(t *testing.T, db *mongo.Database, id string) int64 {
	t.Helper()
	raw, err := db.Collection(spacemongo.Spaces).FindOne(context.Background(), bson.M{"_id": id}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	v, _ := raw.Lookup(docstore.VersionField).AsInt64OK()
	return v
}

// UpdateSpace applies a change to the space as stored and writes what
// changed, counting the write in its version; a change that lost the race
// to another write is applied again to what that write left.
func TestUpdateSpaceWritesWhatChanged(t *testing.T) {
	ctx := context.Background()
	s, _, db := newSpaceIn(t, "sp1")
	// A renumbering of positions (no version, no event) meanwhile.
	if err := s.SetPosition(ctx, "org1", space.Node{Kind: space.KindSpace, ID: "sp1"}, 42); err != nil {
		t.Fatal(err)
	}
	deleted := t0.Add(time.Hour)
	got, err := s.UpdateSpace(ctx, "sp1", func(sp *space.Space) (kafkax.Event, error) {
		if sp.Position != 42 {
			t.Errorf("the change got position %d, want the stored 42", sp.Position)
		}
		sp.Title, sp.DeletedAt, sp.Deleted, sp.UpdatedAt = "B", &deleted, true, deleted
		return ev("sp1"), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(got, load(t, s, "sp1")); diff != "" {
		t.Errorf("UpdateSpace returned another space than stored (-returned +stored):\n%s", diff)
	}
	if got.Title != "B" || !got.Deleted || got.DeletedAt == nil || !got.DeletedAt.Equal(deleted) || got.Position != 42 {
		t.Errorf("after the update: %+v, want title B, deleted at %s, position 42", got, deleted)
	}
	if v := versionOf(t, db, "sp1"); v != 1 {
		t.Errorf("version %d after one write, want 1", v)
	}

	// Another write between the read and the write: the change is applied
	// again to the space that write left, and neither is lost.
	tries := 0
	got, err = s.UpdateSpace(ctx, "sp1", func(sp *space.Space) (kafkax.Event, error) {
		if tries++; tries == 1 {
			if _, err := s.UpdateSpace(ctx, "sp1", func(sp *space.Space) (kafkax.Event, error) {
				sp.Emoji = "1f600"
				return ev("sp1"), nil
			}); err != nil {
				t.Fatalf("racing write: %v", err)
			}
		}
		return set("C")(sp)
	})
	if err != nil || tries != 2 {
		t.Fatalf("update after a lost race: %v after %d tries, want nil after 2", err, tries)
	}
	if got := load(t, s, "sp1"); got.Title != "C" || got.Emoji != "1f600" || versionOf(t, db, "sp1") != 3 {
		t.Errorf("after the race: title %q emoji %q version %d, want C, 1f600, 3", got.Title, got.Emoji, versionOf(t, db, "sp1"))
	}

	refused := apierr.Forbidden("no")
	if _, err := s.UpdateSpace(ctx, "sp1", func(sp *space.Space) (kafkax.Event, error) {
		sp.Title = "D"
		return kafkax.Event{}, refused
	}); !errors.Is(err, refused) {
		t.Errorf("a refused change = %v, want its error", err)
	}
	if got := load(t, s, "sp1"); got.Title != "C" {
		t.Errorf("title %q after a refused change, want C", got.Title)
	}
	if _, err := s.UpdateSpace(ctx, "nope", set("E")); !errors.Is(err, apierr.ErrNotFound) {
		t.Errorf("update of a missing space = %v, want not found", err)
	}
}

// PurgeSpace removes a space with its revisions when the purge says so,
// from the space as read; one it refuses stays, revisions aside.
func TestPurgeSpace(t *testing.T) {
	ctx := context.Background()
	s, _, db := newSpaceIn(t, "sp1")
	keep := errors.New("keep")
	if err := s.PurgeSpace(ctx, "sp1", func(sp space.Space) (kafkax.Event, error) { return kafkax.Event{}, keep }); !errors.Is(err, keep) {
		t.Errorf("a refused purge = %v, want its error", err)
	}
	load(t, s, "sp1")
	if err := s.PurgeSpace(ctx, "sp1", func(sp space.Space) (kafkax.Event, error) {
		return kafkax.NewEvent(contentapi.SpacePurged, sp.Organization, sp.ID, nil), nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Space(ctx, "sp1"); !errors.Is(err, apierr.ErrNotFound) {
		t.Errorf("reading a purged space = %v, want not found", err)
	}
	if _, err := s.CachedSpace(ctx, "sp1"); !errors.Is(err, apierr.ErrNotFound) {
		t.Errorf("the cached read of a purged space = %v, want not found", err)
	}
	if n, err := db.Collection(spacemongo.Revisions).CountDocuments(ctx, bson.M{"space": "sp1"}); err != nil || n != 0 {
		t.Errorf("%d revisions left (%v), want none", n, err)
	}
	if err := s.PurgeSpace(ctx, "sp1", func(space.Space) (kafkax.Event, error) { return kafkax.Event{}, nil }); !errors.Is(err, apierr.ErrNotFound) {
		t.Errorf("purging a purged space = %v, want not found", err)
	}
}

// UpdateCollection and RemoveCollection are UpdateSpace's and RemoveIf's
// for collections.
func TestUpdateAndRemoveCollection(t *testing.T) {
	ctx := context.Background()
	s, _ := newSpace(t, "sp1")
	col := space.Collection{ID: "c1", Organization: "org1", Title: "A", CreatedAt: t0, UpdatedAt: t0}
	colEv := func(c space.Collection) kafkax.Event {
		return kafkax.NewEvent(contentapi.CollectionUpdated, c.Organization, c.ID, nil)
	}
	if err := s.InsertCollection(ctx, col, colEv(col)); err != nil {
		t.Fatal(err)
	}
	got, err := s.UpdateCollection(ctx, "c1", func(c *space.Collection) (kafkax.Event, error) {
		c.Title = "B"
		return colEv(*c), nil
	})
	if err != nil || got.Title != "B" {
		t.Fatalf("update: %+v, %v; want title B", got, err)
	}
	if stored, err := s.Collection(ctx, "c1"); err != nil || stored.Title != "B" {
		t.Errorf("stored %+v, %v; want title B", stored, err)
	}
	if _, err := s.UpdateCollection(ctx, "nope", func(c *space.Collection) (kafkax.Event, error) { return kafkax.Event{}, nil }); !errors.Is(err, apierr.ErrNotFound) {
		t.Errorf("update of a missing collection = %v, want not found", err)
	}
	var title string
	if err := s.RemoveCollection(ctx, "c1", func(c space.Collection) (kafkax.Event, error) {
		title = c.Title
		return kafkax.NewEvent(contentapi.CollectionDeleted, c.Organization, c.ID, nil), nil
	}); err != nil {
		t.Fatal(err)
	}
	if title != "B" {
		t.Errorf("the removal read title %q, want the stored B", title)
	}
	if _, err := s.Collection(ctx, "c1"); !errors.Is(err, apierr.ErrNotFound) {
		t.Errorf("reading a removed collection = %v, want not found", err)
	}
}

// A position or merge mark written on one organization's space keeps
// the other organizations' lists kept, and names no other organization's
// space.
func TestMarksKeepOtherOrganizationsLists(t *testing.T) {
	ctx := context.Background()
	s, _, db := newSpaceIn(t, "sp1")
	other := space.Space{ID: "sp2", Organization: "org2", Title: "Other", Visibility: space.VisibilityPrivate,
		EditMode: space.EditLive, Position: 1, Revision: "r2", CreatedAt: t0, UpdatedAt: t0}
	if err := s.InsertSpace(ctx, other, space.Revision{ID: "r2", Space: "sp2", Organization: "org2", Type: "edits",
		Parents: []string{}, CreatedAt: t0}, ev("sp2")); err != nil {
		t.Fatal(err)
	}
	titles := func(org string) []string {
		t.Helper()
		sps, _, err := s.CachedSpaces(ctx, space.SpaceQuery{Organization: org, Sort: space.ByPosition, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, sp := range sps {
			out = append(out, sp.Title)
		}
		return out
	}
	if got := titles("org2"); !slices.Equal(got, []string{"Other"}) {
		t.Fatalf("org2's list %v", got)
	}
	// Another instance renames org2's space, untold: org2's list stays as
	// kept until something drops it.
	if _, err := db.Collection(spacemongo.Spaces).UpdateOne(ctx, bson.M{"_id": "sp2"}, bson.M{"$set": bson.M{"title": "Renamed"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetPosition(ctx, "org1", space.Node{Kind: space.KindSpace, ID: "sp1"}, 7); err != nil {
		t.Fatal(err)
	}
	if err := s.MoveHead(ctx, "sp1", "r1", space.Head{Revision: "r3", Merging: "cr1", UpdatedAt: t0}, ev("sp1")); err != nil {
		t.Fatal(err)
	}
	if err := s.ClearMerging(ctx, "org1", "sp1", "cr1"); err != nil {
		t.Fatal(err)
	}
	if got := titles("org2"); !slices.Equal(got, []string{"Other"}) {
		t.Errorf("org1's marks dropped org2's kept list: %v", got)
	}
	if got := load(t, s, "sp1"); got.Position != 7 || got.Merging != "" {
		t.Errorf("sp1 after its marks: position %d, merging %q", got.Position, got.Merging)
	}
	// Naming the wrong organization writes nothing.
	if err := s.SetPosition(ctx, "org2", space.Node{Kind: space.KindSpace, ID: "sp1"}, 9); !errors.Is(err, apierr.ErrNotFound) {
		t.Errorf("position through another organization = %v, want not found", err)
	}
	if err := s.MoveHead(ctx, "sp1", "r3", space.Head{Revision: "r4", Merging: "cr2", UpdatedAt: t0}, ev("sp1")); err != nil {
		t.Fatal(err)
	}
	if err := s.ClearMerging(ctx, "org2", "sp1", "cr2"); !errors.Is(err, apierr.ErrNotFound) {
		t.Errorf("merge mark cleared through another organization = %v, want not found", err)
	}
}

// MoveHead moves a live space from a revision only while no merge is
// unfinished on it; ClearMerging and ClearPendingIndex clear only their mark.
func TestMoveHeadAndItsMarks(t *testing.T) {
	ctx := context.Background()
	s, _, db := newSpaceIn(t, "sp1")
	if err := s.MoveHead(ctx, "sp1", "r0", space.Head{Revision: "r2", UpdatedAt: t0}, ev("sp1")); !errors.Is(err, apierr.ErrNotFound) {
		t.Errorf("move from a revision the space left = %v, want not found", err)
	}
	if err := s.MoveHead(ctx, "sp1", "r1", space.Head{Revision: "r2", Merging: "cr1", UpdatedAt: t0}, ev("sp1")); err != nil {
		t.Fatal(err)
	}
	if got := load(t, s, "sp1"); got.Revision != "r2" || got.Merging != "cr1" || versionOf(t, db, "sp1") != 1 {
		t.Errorf("after the move: revision %s merging %q version %d, want r2, cr1, 1", got.Revision, got.Merging, versionOf(t, db, "sp1"))
	}
	if err := s.MoveHead(ctx, "sp1", "r2", space.Head{Revision: "r3", UpdatedAt: t0}, ev("sp1")); !errors.Is(err, apierr.ErrNotFound) {
		t.Errorf("move while a merge is unfinished = %v, want not found", err)
	}
	if err := s.ClearMerging(ctx, "org1", "sp1", "cr2"); !errors.Is(err, apierr.ErrNotFound) {
		t.Errorf("clear another change request's merge = %v, want not found", err)
	}
	if err := s.ClearMerging(ctx, "org1", "sp1", "cr1"); err != nil {
		t.Fatal(err)
	}
	if err := s.MoveHead(ctx, "sp1", "r2", space.Head{Revision: "r3", UpdatedAt: t0}, ev("sp1")); err != nil {
		t.Errorf("move once the merge is settled = %v", err)
	}

	if _, err := s.UpdateSpace(ctx, "sp1", func(sp *space.Space) (kafkax.Event, error) {
		sp.Organization, sp.PendingIndex = "org2", true
		return ev("sp1"), nil
	}); err != nil {
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

// The stored shape of a space, its Git sync state, a collection and a
// revision's identity: their field names are read by this store's queries
// and indexes, by the other stores of content and by stored operation
// payloads (a duplication's copy), so every field lands under the name it
// always had, and reads back the same.
func TestStoredShape(t *testing.T) {
	ctx := context.Background()
	s, _, db := newSpaceIn(t, "sp1")
	deleted := t0.Add(time.Hour)
	want, err := s.UpdateSpace(ctx, "sp1", func(sp *space.Space) (kafkax.Event, error) {
		sp.Emoji, sp.Parent, sp.DefaultLevel, sp.Deleted, sp.DeletedAt = "1f600", "c1", "inherit", true, &deleted
		sp.GitSync = &space.GitSync{RepoName: "r", InstallationID: "i", InstallationProvider: "github", InstallationStatus: "active",
			Integration: "git", URL: "https://example.com/r.git", UpdatedAt: t0}
		sp.GitBookSpaceID, sp.Merging, sp.PendingIndex = "gb1", "cr1", true
		return ev(sp.ID), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, load(t, s, "sp1")); diff != "" {
		t.Errorf("read back (-written +read):\n%s", diff)
	}
	col := space.Collection{ID: "c1", Organization: "org1", Title: "C", Description: "d", Parent: "c0", Position: 3,
		DefaultLevel: "inherit", CreatedAt: t0, UpdatedAt: t0}
	if err := s.InsertCollection(ctx, col, ev("c1")); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Collection(ctx, "c1"); err != nil || !cmp.Equal(got, col) {
		t.Errorf("collection read back %+v, %v; want %+v", got, err, col)
	}
	keys := func(coll, id string, sub ...string) []string {
		t.Helper()
		raw, err := db.Collection(coll).FindOne(ctx, bson.M{"_id": id}).Raw()
		if err != nil {
			t.Fatal(err)
		}
		if len(sub) > 0 {
			raw = raw.Lookup(sub...).Document()
		}
		elems, err := raw.Elements()
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range elems {
			if k := e.Key(); !strings.HasPrefix(k, "_outbox") && k != docstore.VersionField {
				out = append(out, k)
			}
		}
		slices.Sort(out)
		return out
	}
	for _, tc := range []struct {
		coll, id string
		sub      []string
		want     []string
	}{
		{spacemongo.Spaces, "sp1", nil, []string{"_id", "createdAt", "defaultLevel", "deleted", "deletedAt", "editMode", "emoji",
			"gitSync", "gitbookSpaceId", "merging", "organization", "parent", "pendingIndex", "position", "revision", "title",
			"updatedAt", "visibility"}},
		{spacemongo.Spaces, "sp1", []string{"gitSync"}, []string{"installationId", "installationProvider", "installationStatus",
			"integration", "repoName", "updatedAt", "url"}},
		{spacemongo.Collections, "c1", nil, []string{"_id", "createdAt", "defaultLevel", "description", "organization", "parent",
			"position", "title", "updatedAt"}},
		{spacemongo.Revisions, "r1", nil, []string{"_id", "createdAt", "organization", "parents", "space", "type"}},
	} {
		if diff := cmp.Diff(keys(tc.coll, tc.id, tc.sub...), tc.want); diff != "" {
			t.Errorf("fields of %s %s %v (-stored +want):\n%s", tc.coll, tc.id, tc.sub, diff)
		}
	}
}
