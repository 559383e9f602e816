package siteviewmongo_test

import (
	"context"
	"testing"
	"time"

	"github.com/docspub/platform/libs/internalapi/sitesapi"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/insights/internal/siteview"
	"github.com/docspub/platform/services/insights/internal/siteviewmongo"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

func TestProjectionFollowsSiteEvents(t *testing.T) {
	ctx := context.Background()
	s := siteview.New(siteviewmongo.NewStore(mongox.NewDB(mongotest.Database(t))), nil)
	t0 := time.Now().UTC()
	type event struct {
		typ string
		at  time.Time
	}
	ev := func(typ string, at time.Time) event { return event{typ, at} }
	apply := func(e event) error { return s.Apply(ctx, e.typ, "org", "site", e.at) }
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
	for _, e := range []event{ev(sitesapi.SiteCreated, t0), ev(sitesapi.SitePublished, t0.Add(time.Second))} {
		if err := apply(e); err != nil {
			t.Fatal(err)
		}
	}
	if !exists("org") || exists("other") {
		t.Fatalf("after site.created: in org %v, in another %v; want true, false", exists("org"), exists("other"))
	}
	if err := apply(ev(sitesapi.SiteDeleted, t0.Add(2*time.Second))); err != nil {
		t.Fatal(err)
	}
	if exists("org") {
		t.Error("a deleted site exists")
	}
	// A late, older event does not bring the site back.
	if err := apply(ev(sitesapi.SiteUpdated, t0.Add(time.Second))); err != nil {
		t.Fatal(err)
	}
	if exists("org") {
		t.Error("an older site.updated brought a deleted site back")
	}
}
