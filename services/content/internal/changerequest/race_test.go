package changerequest_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/docspub/platform/libs/racetest"
	"github.com/docspub/platform/services/content/internal/access"
	"github.com/docspub/platform/services/content/internal/changerequest"
	"github.com/docspub/platform/services/content/internal/changerequestmongo"
	"github.com/docspub/platform/services/content/internal/revision"
	"github.com/docspub/platform/services/content/internal/space"
	"github.com/docspub/platform/services/content/internal/spacemongo"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// The race suite of change requests: each test runs two conflicting
// requests at once, racetest.Count() times, and checks that nothing was
// lost: a request that succeeded left its mark, a merged change request's
// content is the space's.

// freshSpace empties the database's spaces, revisions and change requests
// and moves the env to a new space. The embedded database looks documents
// up by _id only and scans for anything else, so a suite that kept every
// repetition's documents would slow down with each.
func (e *env) freshSpace() {
	e.t.Helper()
	for _, coll := range []string{spacemongo.Spaces, spacemongo.Revisions, changerequestmongo.ChangeRequests, changerequestmongo.Numbers} {
		if _, err := e.db.Collection(coll).DeleteMany(context.Background(), bson.M{}); err != nil {
			e.t.Fatal(err)
		}
	}
	sp, err := e.spaces.CreateSpace(context.Background(), e.caller, "org1", space.CreateSpaceInput{})
	if err != nil {
		e.t.Fatal(err)
	}
	e.space = sp.ID
}

// mergeNow merges as a request would (re-entering the space when it moved on).
func (e *env) mergeNow(cr string) (changerequest.Outcome, error) {
	return e.crs.Merge(context.Background(), e.grant(), cr, func(context.Context) (access.Grant, error) { return e.grant(), nil })
}

// slugs lists the slugs of a revision's pages.
func (e *env) slugs(rev string) []string {
	e.t.Helper()
	r, err := e.revs.Get(context.Background(), rev)
	if err != nil {
		e.t.Fatal(err)
	}
	var out []string
	for _, p := range revision.Flatten(r.Pages) {
		out = append(out, p.Page.Slug)
	}
	return out
}

func (e *env) get(cr string) changerequest.View {
	e.t.Helper()
	v, err := e.crs.Get(context.Background(), e.grant(), cr)
	if err != nil {
		e.t.Fatal(err)
	}
	return v
}

// An import racing the merge of its change request: the import either
// lands before the merge claims the change request (and is merged) or is
// refused; an import that answered success is never lost.
func TestRaceImportAndMerge(t *testing.T) {
	e := newEnv(t)
	var cr, slug string
	var importErr, mergeErr error
	racetest.Run(t, func(i int) {
		e.freshSpace()
		cr, slug = e.create("r").ID, fmt.Sprintf("imported-%d", i)
		e.imp.mu.Lock()
		e.imp.next = map[string]string{slug: "content " + slug + "\n"}
		e.imp.mu.Unlock()
	}, func(int) {
		_, importErr = e.crs.Import(context.Background(), e.grant(), cr, "website", "https://example.com/")
	}, func(int) {
		_, mergeErr = e.mergeNow(cr)
	}, func(i int) {
		v := e.get(cr)
		if mergeErr == nil && v.Status != changerequest.StatusMerged {
			t.Errorf("merge answered success, change request is %s", v.Status)
		}
		if v.Status != changerequest.StatusMerged {
			if _, err := e.mergeNow(cr); err != nil { // the lost merge, again
				t.Fatalf("merging again: %v", err)
			}
			v = e.get(cr)
		}
		if head := e.grant().Revision; v.RevisionMerged != head {
			t.Errorf("space at %s, change request merged %s", head, v.RevisionMerged)
		}
		if importErr == nil && !slices.Contains(e.slugs(e.grant().Revision), slug) {
			t.Errorf("import answered success (merge: %v) but page %s is not in the merged space", mergeErr, slug)
		}
		if importErr == nil && !slices.Contains(e.slugs(v.Revision), slug) {
			t.Errorf("import answered success but page %s is not in the change request", slug)
		}
	})
}

// Archiving a change request while it is merged: one of the two wins, and
// the change request's status is the winner's.
func TestRaceArchiveAndMerge(t *testing.T) {
	e := newEnv(t)
	var cr, head string
	var archiveErr, mergeErr error
	archived := changerequest.StatusArchived
	racetest.Run(t, func(i int) {
		e.freshSpace()
		cr = e.create("r").ID
		e.importPages(cr, map[string]string{fmt.Sprintf("page-%d", i): "text\n"})
		head = e.grant().Revision
	}, func(int) {
		_, archiveErr = e.crs.Update(context.Background(), e.grant(), cr, changerequest.Patch{Status: &archived})
	}, func(int) {
		_, mergeErr = e.mergeNow(cr)
	}, func(int) {
		v, now := e.get(cr), e.grant().Revision
		switch {
		case archiveErr == nil && mergeErr == nil:
			t.Errorf("both the archive and the merge answered success; status %s", v.Status)
		case archiveErr == nil && (v.Status != archived || now != head):
			t.Errorf("archive answered success, change request is %s and the space moved %v", v.Status, now != head)
		case mergeErr == nil && (v.Status != changerequest.StatusMerged || v.RevisionMerged != now):
			t.Errorf("merge answered success, change request is %s merged into %s, space at %s", v.Status, v.RevisionMerged, now)
		}
	})
}

// Updating a change request from its space while it is merged: a merged
// change request's revision is the one that was merged.
func TestRaceUpdateAndMerge(t *testing.T) {
	e := newEnv(t)
	var cr string
	var updateErr, mergeErr error
	racetest.Run(t, func(i int) {
		e.freshSpace()
		cr = e.create("r").ID
		other := e.create("o").ID // moves the space on: cr is outdated
		e.importPages(other, map[string]string{fmt.Sprintf("other-%d", i): "text\n"})
		if _, err := e.mergeNow(other); err != nil {
			t.Fatal(err)
		}
		e.importPages(cr, map[string]string{fmt.Sprintf("mine-%d", i): "text\n"})
	}, func(int) {
		_, updateErr = e.crs.UpdateFromSpace(context.Background(), e.grant(), cr)
	}, func(int) {
		_, mergeErr = e.mergeNow(cr)
	}, func(int) {
		v := e.get(cr)
		if mergeErr != nil {
			return
		}
		merged, err := e.revs.Get(context.Background(), v.RevisionMerged)
		if err != nil {
			t.Fatal(err)
		}
		if len(merged.Parents) != 2 || merged.Parents[1] != v.Revision {
			t.Errorf("merged %v but the change request is now at %s (update: %v)", merged.Parents, v.Revision, updateErr)
		}
	})
}
