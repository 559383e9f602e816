package changerequestmongo_test

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
	"github.com/docspub/platform/services/content/internal/changerequest"
	"github.com/docspub/platform/services/content/internal/changerequestmongo"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func ev(id string) kafkax.Event {
	return kafkax.NewEvent(contentapi.ChangeRequestUpdated, "org1", id, nil)
}

// Update writes what changed while the change request's status, revision,
// merged ancestor and claim are still those that were read.
func TestUpdateIsACompareAndSet(t *testing.T) {
	ctx := context.Background()
	db := mongotest.Database(t)
	if err := mongox.EnsureIndexes(ctx, db, changerequestmongo.Indexes()...); err != nil {
		t.Fatal(err)
	}
	s := changerequestmongo.NewStore(mongox.NewDB(db), nil)
	cr := changerequest.ChangeRequest{ID: "cr1", Space: "sp1", Organization: "org1", Number: 1, Status: changerequest.StatusOpen,
		Subject: "a", CreatedBy: "ada", Contributors: []string{"ada"}, CreatedAt: t0, UpdatedAt: t0,
		Revision: "r1", RevisionInitial: "r0", RevisionMergedAncestor: "r0"}
	if err := s.Insert(ctx, cr, ev("cr1")); err != nil {
		t.Fatal(err)
	}
	get := func() changerequest.ChangeRequest {
		t.Helper()
		got, err := s.Get(ctx, "sp1", "cr1")
		if err != nil {
			t.Fatal(err)
		}
		return got
	}

	// An import moves the revision; an update that read the old one loses.
	imported := cr
	imported.Revision, imported.Contributors = "r2", []string{"ada", "bob"}
	if err := s.Update(ctx, cr, imported, ev("cr1")); err != nil {
		t.Fatal(err)
	}
	renamed := cr
	renamed.Subject = "b"
	if err := s.Update(ctx, cr, renamed, ev("cr1")); !errors.Is(err, apierr.ErrNotFound) {
		t.Errorf("update from a revision the change request left = %v, want not found", err)
	}
	if got := get(); got.Subject != "a" || got.Revision != "r2" || len(got.Contributors) != 2 {
		t.Errorf("after a lost update: %+v, want subject a at r2 with 2 contributors", got)
	}

	// A claim stops every change that read the change request unclaimed.
	claimed := imported
	claimed.MergingTo, claimed.MergingFrom, claimed.MergingBy, claimed.MergingUntil = "r3", "r0", "ada", t0
	if err := s.Update(ctx, imported, claimed); err != nil {
		t.Fatal(err)
	}
	archived := imported
	archived.Status = changerequest.StatusArchived
	if err := s.Update(ctx, imported, archived, ev("cr1")); !errors.Is(err, apierr.ErrNotFound) {
		t.Errorf("update of a claimed change request = %v, want not found", err)
	}
	// Undoing the claim clears it.
	if err := s.Update(ctx, claimed, imported); err != nil {
		t.Fatal(err)
	}
	if got := get(); got.MergingTo != "" || got.MergingFrom != "" || got.MergingBy != "" || !got.MergingUntil.IsZero() {
		t.Errorf("claim after undoing it: %+v, want none", got)
	}
	if err := s.Update(ctx, imported, archived, ev("cr1")); err != nil {
		t.Errorf("update once unclaimed = %v", err)
	}
	if got := get(); got.Status != changerequest.StatusArchived {
		t.Errorf("status = %s, want archived", got.Status)
	}
}
