package siteview_test

import (
	"context"
	"testing"
	"time"

	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/insights/internal/siteview"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

func TestProjectionFollowsSiteEvents(t *testing.T) {
	ctx := context.Background()
	s := siteview.NewStore(mongotest.Database(t), mongox.NewDocLocks())
	t0 := time.Now().UTC()
	ev := func(typ string, at time.Time) kafkax.Event {
		return kafkax.Event{ID: kafkax.NewID(), Type: typ, Organization: "org", Subject: "site", OccurredAt: at}
	}
	exists := func(org string) bool {
		t.Helper()
		ok, err := s.Exists(ctx, org, "site")
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if exists("org") {
		t.Fatal("an unknown site exists")
	}
	for _, e := range []kafkax.Event{ev("site.created", t0), ev("site.published", t0.Add(time.Second))} {
		if err := s.Handle(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	if !exists("org") || exists("other") {
		t.Fatalf("after site.created: in org %v, in another %v; want true, false", exists("org"), exists("other"))
	}
	if err := s.Handle(ctx, ev("site.deleted", t0.Add(2*time.Second))); err != nil {
		t.Fatal(err)
	}
	if exists("org") {
		t.Error("a deleted site exists")
	}
	// A late, older event does not bring the site back.
	if err := s.Handle(ctx, ev("site.updated", t0.Add(time.Second))); err != nil {
		t.Fatal(err)
	}
	if exists("org") {
		t.Error("an older site.updated brought a deleted site back")
	}
}
