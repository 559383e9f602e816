package sitemongo_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/internalapi/sitesapi"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/sites/internal/site"
	"github.com/docspub/platform/services/sites/internal/sitemongo"
	"github.com/google/go-cmp/cmp"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

func newStore(t *testing.T) (*sitemongo.Store, *int, *mongo.Database) {
	t.Helper()
	db := mongotest.Database(t)
	if err := mongox.EnsureIndexes(context.Background(), db, sitemongo.Indexes()...); err != nil {
		t.Fatal(err)
	}
	writes := new(int)
	s := sitemongo.NewStore(mongox.NewDB(db), func([]kafkax.Event) { *writes++ })
	return s, writes, db
}

func ev(typ, id string) kafkax.Event {
	return kafkax.NewEvent(typ, "org1", id, map[string]string{"id": id})
}

func newSite(id, org, title string, published bool) site.Site {
	now := time.Now().UTC().Truncate(time.Millisecond)
	return site.Site{ID: id, Organization: org, Type: "basic", Title: title, Visibility: "public", BasenameKey: id,
		Published: published, AgentsContext: "included", CreatedAt: now, UpdatedAt: now}
}

func siteIDs(sts []site.Site) []string {
	out := []string{}
	for _, s := range sts {
		out = append(out, s.ID)
	}
	return out
}

func TestSitesQueries(t *testing.T) {
	s, writes, _ := newStore(t)
	ctx := context.Background()
	for _, st := range []site.Site{
		newSite("a1", "org1", "Developer Docs", true),
		newSite("a2", "org1", "Help center", false),
		newSite("a3", "org1", "API docs", false),
		newSite("b1", "org2", "Docs", true),
	} {
		if err := s.InsertSite(ctx, st, ev(sitesapi.SiteCreated, st.ID)); err != nil {
			t.Fatal(err)
		}
	}
	if *writes != 4 {
		t.Errorf("written called %d times, want 4", *writes)
	}
	yes, no := true, false
	for _, tc := range []struct {
		name      string
		q         site.SiteQuery
		want      []string
		wantCount int
	}{
		{"all of org1", site.SiteQuery{Organization: "org1"}, []string{"a1", "a2", "a3"}, 3},
		{"first page", site.SiteQuery{Organization: "org1", Limit: 2}, []string{"a1", "a2"}, 3},
		{"after a cursor", site.SiteQuery{Organization: "org1", AfterID: "a2", Limit: 2}, []string{"a3"}, 3},
		{"title is case-insensitive", site.SiteQuery{Organization: "org1", Title: "DOCS"}, []string{"a1", "a3"}, 2},
		{"title is literal", site.SiteQuery{Organization: "org1", Title: "d.cs"}, []string{}, 0},
		{"published", site.SiteQuery{Organization: "org1", Published: &yes}, []string{"a1"}, 1},
		{"unpublished", site.SiteQuery{Organization: "org1", Published: &no}, []string{"a2", "a3"}, 2},
		{"ids", site.SiteQuery{Organization: "org1", IDs: []string{"a3", "b1"}}, []string{"a3"}, 1},
		{"no ids", site.SiteQuery{Organization: "org1", IDs: []string{}}, []string{}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, n, err := s.Sites(ctx, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(siteIDs(got), tc.want); diff != "" || n != tc.wantCount {
				t.Errorf("Sites(%+v) = %v (count %d), want %v (count %d)", tc.q, siteIDs(got), n, tc.want, tc.wantCount)
			}
		})
	}
}

func TestBasenameUniquePerOrganization(t *testing.T) {
	s, _, _ := newStore(t)
	ctx := context.Background()
	for _, st := range []site.Site{newSite("a1", "org1", "One", false), newSite("a2", "org1", "Two", false), newSite("b1", "org2", "Three", false)} {
		if err := s.InsertSite(ctx, st, ev(sitesapi.SiteCreated, st.ID)); err != nil {
			t.Fatal(err)
		}
	}
	set := func(id string) error {
		_, err := s.UpdateSite(ctx, id, func(st *site.Site) (kafkax.Event, error) {
			st.Basename, st.BasenameKey = "docs", "docs"
			return ev(sitesapi.SiteUpdated, id), nil
		})
		return err
	}
	if err := set("a1"); err != nil {
		t.Fatal(err)
	}
	if err := set("a2"); !errors.Is(err, apierr.ErrConflict) {
		t.Errorf("second site of org1 with basename docs: %v, want a conflict", err)
	}
	if err := set("b1"); err != nil {
		t.Errorf("another organization's site with basename docs: %v", err)
	}
	// Removing the site frees the basename.
	if err := s.RemoveSite(ctx, "a1", ev(sitesapi.SiteDeleted, "a1")); err != nil {
		t.Fatal(err)
	}
	if err := set("a2"); err != nil {
		t.Errorf("basename of a removed site: %v", err)
	}
	if _, err := s.Site(ctx, "a1"); !errors.Is(err, apierr.ErrNotFound) {
		t.Errorf("removed site: %v, want not found", err)
	}
}

func TestSiteSpaces(t *testing.T) {
	s, _, db := newStore(t)
	ctx := context.Background()
	if err := s.InsertSite(ctx, newSite("a1", "org1", "One", false), ev(sitesapi.SiteCreated, "a1")); err != nil {
		t.Fatal(err)
	}
	add := func(id, section, space, path string, pos int64, def bool) error {
		return s.InsertSiteSpace(ctx, site.SiteSpace{ID: id, Organization: "org1", Site: "a1", Section: section,
			Space: space, Path: path, Position: pos, Default: def}, ev(sitesapi.SiteSpaceCreated, id))
	}
	for _, r := range []struct {
		id, section, space, path string
		pos                      int64
		def                      bool
	}{
		{"x3", "", "s1", "guide", 1, true},
		{"x1", "", "s2", "api", 2, false},
		{"x2", "sec1", "s1", "guide", 3, true}, // same path in another section
		{"x4", "", "s3", "faq", 4, false},
	} {
		if err := add(r.id, r.section, r.space, r.path, r.pos, r.def); err != nil {
			t.Fatalf("add %s: %v", r.id, err)
		}
	}
	if err := add("x5", "", "s4", "api", 5, false); !errors.Is(err, apierr.ErrConflict) {
		t.Errorf("taken path: %v, want a conflict", err)
	}

	in, err := s.SiteSpacesIn(ctx, "a1", []string{""})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ss := range in {
		got = append(got, ss.ID)
	}
	if diff := cmp.Diff(got, []string{"x3", "x1", "x4"}); diff != "" {
		t.Errorf("SiteSpacesIn by position (-got +want):\n%s", diff)
	}

	page, n, err := s.SiteSpaces(ctx, site.SiteSpaceQuery{Site: "a1", ExcludeSpaces: []string{"s2"}, AfterPosition: 1, AfterID: "x3", Limit: 1})
	if err != nil || n != 3 || len(page) != 1 || page[0].ID != "x2" {
		t.Errorf("SiteSpaces page = %v (count %d), %v; want [x2] of 3", page, n, err)
	}
	def := true
	page, n, err = s.SiteSpaces(ctx, site.SiteSpaceQuery{Site: "a1", Default: &def})
	if err != nil || n != 2 {
		t.Errorf("default site spaces: %v (count %d), %v", page, n, err)
	}

	spaces, err := s.SpacesOf(ctx, "a1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(len(spaces), 3); diff != "" {
		t.Errorf("SpacesOf = %v", spaces)
	}
	sites, err := s.SitesWithSpace(ctx, "org1", "s1")
	if err != nil || len(sites) != 1 || sites[0] != "a1" {
		t.Errorf("SitesWithSpace = %v, %v", sites, err)
	}
	counts, err := s.CountSiteSpaces(ctx, []string{"a1", "zz"})
	if err != nil || counts["a1"] != 4 || counts["zz"] != 0 {
		t.Errorf("CountSiteSpaces = %v, %v", counts, err)
	}

	// Removal frees the path and hides the site space; the tombstone keeps the event.
	if err := s.RemoveSiteSpace(ctx, "x1", ev(sitesapi.SiteSpaceDeleted, "x1")); err != nil {
		t.Fatal(err)
	}
	if err := add("x5", "", "s4", "api", 5, false); err != nil {
		t.Errorf("path of a removed site space: %v", err)
	}
	if _, err := s.SiteSpace(ctx, "x1"); !errors.Is(err, apierr.ErrNotFound) {
		t.Errorf("removed site space: %v", err)
	}
	var tomb bson.M
	if err := db.Collection(sitemongo.SiteSpaces).FindOne(ctx, bson.M{"_id": "x1"}).Decode(&tomb); err != nil {
		t.Fatal(err)
	}
	if tomb[kafkax.TombstoneField] != true || len(tomb[kafkax.OutboxField].(bson.A)) != 2 {
		t.Errorf("tombstone %v: want _tombstone and two pending events", tomb)
	}

	// A removed site takes its site spaces along.
	if err := s.RemoveSite(ctx, "a1", ev(sitesapi.SiteDeleted, "a1")); err != nil {
		t.Fatal(err)
	}
	if in, err := s.SiteSpacesIn(ctx, "a1", []string{"", "sec1"}); err != nil || len(in) != 0 {
		t.Errorf("site spaces of a removed site: %v, %v", in, err)
	}
}

// TestAdaptiveSchemaApart: a site's adaptive schema lives in a document of
// its own, with its events; the site's document never holds it (reading a
// site stays small however large the schema and however many of its events
// wait for the relay), and it goes with the site.
func TestAdaptiveSchemaApart(t *testing.T) {
	s, _, db := newStore(t)
	ctx := context.Background()
	if err := s.InsertSite(ctx, newSite("a1", "org1", "Docs", false), ev(sitesapi.SiteCreated, "a1")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AdaptiveSchema(ctx, "a1"); !errors.Is(err, apierr.ErrNotFound) {
		t.Fatalf("schema of a site that set none: %v", err)
	}
	at := time.Now().UTC().Truncate(time.Millisecond)
	for i, schema := range []string{`{"a":1}`, `{"b":2}`} {
		sc := site.AdaptiveSchema{Site: "a1", Organization: "org1", JSON: schema, UpdatedAt: at.Add(time.Duration(i) * time.Second)}
		if err := s.SetAdaptiveSchema(ctx, sc, ev(sitesapi.SiteAdaptiveSchemaUpdated, "a1")); err != nil {
			t.Fatal(err)
		}
		got, err := s.AdaptiveSchema(ctx, "a1")
		if err != nil || got != sc {
			t.Errorf("after setting %s: %+v, %v", schema, got, err)
		}
	}
	var schemaDoc, siteDoc bson.M
	if err := db.Collection(sitemongo.Schemas).FindOne(ctx, bson.M{"_id": "a1"}).Decode(&schemaDoc); err != nil {
		t.Fatal(err)
	}
	if evs, _ := schemaDoc[kafkax.OutboxField].(bson.A); len(evs) != 2 {
		t.Errorf("the schema document's outbox: %v, want both events", schemaDoc[kafkax.OutboxField])
	}
	if err := db.Collection(sitemongo.Sites).FindOne(ctx, bson.M{"_id": "a1"}).Decode(&siteDoc); err != nil {
		t.Fatal(err)
	}
	if evs, _ := siteDoc[kafkax.OutboxField].(bson.A); len(evs) != 1 || siteDoc["adaptiveSchema"] != nil {
		t.Errorf("the site document holds schema data: %v", siteDoc)
	}
	if err := s.RemoveSite(ctx, "a1", ev(sitesapi.SiteDeleted, "a1")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AdaptiveSchema(ctx, "a1"); !errors.Is(err, apierr.ErrNotFound) {
		t.Errorf("schema of a removed site: %v", err)
	}
}

// TestUpdateSiteIsACompareAndSet: a change that lost a race with another
// runs again on the site as the other left it (both changes stay); one
// that keeps losing is a conflict; one that changes nothing writes nothing.
func TestUpdateSiteIsACompareAndSet(t *testing.T) {
	s, _, db := newStore(t)
	ctx := context.Background()
	if err := s.InsertSite(ctx, newSite("a", "org1", "One", false), ev(sitesapi.SiteCreated, "a")); err != nil {
		t.Fatal(err)
	}
	runs := 0
	got, err := s.UpdateSite(ctx, "a", func(st *site.Site) (kafkax.Event, error) {
		runs++
		if runs == 1 { // another change comes in between this one's read and its write
			if _, err := s.UpdateSite(ctx, "a", func(st *site.Site) (kafkax.Event, error) {
				st.Title = "Two"
				return ev(sitesapi.SiteUpdated, "a"), nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		st.Visibility = site.VisibilityUnlisted
		return ev(sitesapi.SiteUpdated, "a"), nil
	})
	if err != nil || runs != 2 || got.Title != "Two" || got.Visibility != site.VisibilityUnlisted {
		t.Fatalf("after a lost race: %+v, %v (%d runs), want title Two, unlisted, 2 runs", got, err, runs)
	}
	stored, err := s.Site(ctx, "a")
	if err != nil || stored.Title != "Two" || stored.Visibility != site.VisibilityUnlisted {
		t.Errorf("stored %+v, %v", stored, err)
	}
	_, err = s.UpdateSite(ctx, "a", func(st *site.Site) (kafkax.Event, error) {
		if _, err := s.UpdateSite(ctx, "a", func(st *site.Site) (kafkax.Event, error) {
			st.Title += "!"
			return kafkax.Event{}, nil
		}); err != nil {
			t.Fatal(err)
		}
		st.Proxy = "docs.acme.test/help"
		return ev(sitesapi.SiteUpdated, "a"), nil
	})
	if !errors.Is(err, apierr.ErrConflict) {
		t.Errorf("a change that always loses: %v, want a conflict", err)
	}
	var doc bson.M
	if err := db.Collection(sitemongo.Sites).FindOne(ctx, bson.M{"_id": "a"}).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	before := len(doc[kafkax.OutboxField].(bson.A))
	if _, err := s.UpdateSite(ctx, "a", func(*site.Site) (kafkax.Event, error) { return ev(sitesapi.SiteUpdated, "a"), nil }); err != nil {
		t.Fatal(err)
	}
	if err := db.Collection(sitemongo.Sites).FindOne(ctx, bson.M{"_id": "a"}).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	if n := len(doc[kafkax.OutboxField].(bson.A)); n != before || doc["proxy"] != nil {
		t.Errorf("a change of nothing: %d events (%d before), proxy %v", n, before, doc["proxy"])
	}
	// A field the change empties (omitempty) is removed from the document.
	for _, proxy := range []string{"docs.acme.test/help", ""} {
		if _, err := s.UpdateSite(ctx, "a", func(st *site.Site) (kafkax.Event, error) {
			st.Proxy = proxy
			return ev(sitesapi.SiteUpdated, "a"), nil
		}); err != nil {
			t.Fatal(err)
		}
		doc = bson.M{}
		if err := db.Collection(sitemongo.Sites).FindOne(ctx, bson.M{"_id": "a"}).Decode(&doc); err != nil {
			t.Fatal(err)
		}
		if got, ok := doc["proxy"]; ok != (proxy != "") || (ok && got != proxy) {
			t.Errorf("proxy set to %q: stored %v", proxy, doc["proxy"])
		}
	}
}
