package changerequest_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/docspub/platform/services/content/internal/changerequest"
	"github.com/docspub/platform/services/content/internal/revision"
)

// claim leaves a change request as a merge that died after claiming it
// leaves it: claimed for a merged revision (stored) of its content into the
// space's head, with the claim's lease ending at until.
func (e *env) claim(cr string, until time.Time) revision.Revision {
	e.t.Helper()
	ctx := context.Background()
	v := e.get(cr)
	head, err := e.revs.Get(ctx, e.grant().Revision)
	if err != nil {
		e.t.Fatal(err)
	}
	theirs, err := e.revs.Get(ctx, v.Revision)
	if err != nil {
		e.t.Fatal(err)
	}
	next := revision.Build(head, revision.TypeMerge, theirs.Pages, theirs.Files, time.Now())
	next.Parents = []string{head.ID, theirs.ID}
	if err := e.revs.Insert(ctx, next); err != nil {
		e.t.Fatal(err)
	}
	was, err := e.store.Get(ctx, e.space, v.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	now := was
	now.MergingTo, now.MergingFrom, now.MergingBy, now.MergingUntil = next.ID, head.ID, "ada", until.UTC().Truncate(time.Millisecond)
	if err := e.store.Update(ctx, was, now); err != nil {
		e.t.Fatal(err)
	}
	return next
}

// A merge that died after moving the space is finished by the recovery;
// one that died before is undone once its lease ran out, and until then
// the change request refuses changes.
func TestRecoverSettlesUnfinishedMerges(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()

	moved := e.create("moved").ID
	e.importPages(moved, map[string]string{"moved": "text\n"})
	next := e.claim(moved, time.Now().Add(-time.Second))
	if err := e.spaces.Advance(ctx, e.grant(), e.grant().Revision, next.ID, moved); err != nil {
		t.Fatal(err)
	}
	// Another merge meanwhile waits for it to be finished.
	other := e.create("other").ID
	e.importPages(other, map[string]string{"other": "text\n"})

	stuck := e.create("stuck").ID
	e.importPages(stuck, map[string]string{"stuck": "text\n"})
	e.claim(stuck, time.Now().Add(-time.Second))

	running := e.create("running").ID
	e.importPages(running, map[string]string{"running": "text\n"})
	e.claim(running, time.Now().Add(time.Minute))
	if _, err := e.crs.Import(ctx, e.grant(), running, "website", "https://example.com/"); !errors.Is(err, changerequest.ErrMerging) {
		t.Errorf("import into a change request being merged = %v, want ErrMerging", err)
	}

	n, err := e.crs.Recover(ctx)
	if err != nil || n != 2 {
		t.Fatalf("Recover = %d, %v; want the 2 lapsed claims", n, err)
	}
	if v := e.get(moved); v.Status != changerequest.StatusMerged || v.RevisionMerged != next.ID {
		t.Errorf("moved: %s merged into %q, want merged into %s", v.Status, v.RevisionMerged, next.ID)
	}
	if head, merging, err := e.spaces.Head(ctx, e.space); err != nil || head != next.ID || merging != "" {
		t.Errorf("space at %s marked %q (%v), want at %s unmarked", head, merging, err, next.ID)
	}
	if v := e.get(stuck); v.Status != changerequest.StatusOpen {
		t.Errorf("stuck: %s, want open again", v.Status)
	}
	e.importPages(stuck, map[string]string{"stuck": "again\n"})
	if out := e.merge(other); out.Result != changerequest.ResultMerge {
		t.Errorf("merge after recovery: %+v", out)
	}
}
