package sitemongo_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/services/sites/internal/site"
	"github.com/docspub/platform/services/sites/internal/sitemongo"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestHostnameClaims: a hostname is one site's. A fresh claim whose site
// does not name the hostname yet (it names it right after claiming) holds;
// an old one (its claimer crashed in between) is taken over; a claim whose
// site names it always holds. Only the claimer releases it, and only the
// site that claimed and names it is found by it.
func TestHostnameClaims(t *testing.T) {
	s, _, db := newStore(t)
	ctx := context.Background()
	for _, id := range []string{"a", "b", "c"} {
		if err := s.InsertSite(ctx, newSite(id, "org1", "Site "+id, true), ev("site.created", id)); err != nil {
			t.Fatal(err)
		}
	}
	const host = "docs.acme.test"
	claim := func(site string) error { return s.ClaimHostname(ctx, host, "org1", site) }
	if err := claim("a"); err != nil {
		t.Fatal(err)
	}
	if err := claim("a"); err != nil {
		t.Errorf("claiming again: %v", err)
	}
	if err := claim("b"); !errors.Is(err, apierr.ErrConflict) {
		t.Errorf("a fresh claim taken over: %v", err)
	}
	if _, err := s.SiteByHostname(ctx, host); !errors.Is(err, apierr.ErrNotFound) {
		t.Errorf("a site that does not name its hostname is found: %v", err)
	}
	// a crashed between claiming and naming: its claim ages.
	if _, err := db.Collection(sitemongo.Hostnames).UpdateOne(ctx, bson.M{"_id": host},
		bson.M{"$set": bson.M{"at": time.Now().Add(-2 * time.Minute)}}); err != nil {
		t.Fatal(err)
	}
	if err := claim("b"); err != nil {
		t.Fatalf("taking over a stale claim: %v", err)
	}
	if err := s.SetSite(ctx, "b", site.Fields{"hostname": host}, ev("site.updated", "b")); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Collection(sitemongo.Hostnames).UpdateOne(ctx, bson.M{"_id": host},
		bson.M{"$set": bson.M{"at": time.Now().Add(-time.Hour)}}); err != nil {
		t.Fatal(err)
	}
	if err := claim("c"); !errors.Is(err, apierr.ErrConflict) {
		t.Errorf("the hostname of a site that names it taken: %v", err)
	}
	if st, err := s.SiteByHostname(ctx, host); err != nil || st.ID != "b" {
		t.Errorf("by hostname: %v %v", st.ID, err)
	}
	if err := s.ReleaseHostname(ctx, host, "a"); err != nil {
		t.Fatal(err)
	}
	if st, err := s.SiteByHostname(ctx, host); err != nil || st.ID != "b" {
		t.Errorf("released by another site: %v %v", st.ID, err)
	}
	if err := s.RemoveSite(ctx, "b", ev("site.deleted", "b")); err != nil {
		t.Fatal(err)
	}
	if err := claim("c"); err != nil {
		t.Errorf("the hostname of a deleted site: %v", err)
	}
}

// TestSiteByName: a site is found by its basename, or by its id, in its
// organization only.
func TestSiteByName(t *testing.T) {
	s, _, _ := newStore(t)
	ctx := context.Background()
	named := newSite("s1", "org1", "Named", true)
	named.Basename, named.BasenameKey = "docs", "docs"
	for _, st := range []site.Site{named, newSite("s2", "org1", "Plain", true)} {
		if err := s.InsertSite(ctx, st, ev("site.created", st.ID)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ org, name, want string }{
		{"org1", "docs", "s1"}, {"org1", "s1", "s1"}, {"org1", "s2", "s2"}, {"org2", "docs", ""}, {"org2", "s1", ""}, {"org1", "nope", ""},
	} {
		st, err := s.SiteByName(ctx, tc.org, tc.name)
		if tc.want == "" {
			if !errors.Is(err, apierr.ErrNotFound) {
				t.Errorf("SiteByName(%s, %s) = %v, %v; want not found", tc.org, tc.name, st.ID, err)
			}
			continue
		}
		if err != nil || st.ID != tc.want {
			t.Errorf("SiteByName(%s, %s) = %v, %v; want %s", tc.org, tc.name, st.ID, err, tc.want)
		}
	}
}
