package sitemongo_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/internalapi/sitesapi"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/services/sites/internal/site"
	"github.com/docspub/platform/services/sites/internal/sitemongo"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestVerifiedHostnames: a verified hostname is one site's, found only
// while that site still holds it verified. A record whose site no longer
// holds it (changed, deleted, or recorded before hostnames were verified)
// is taken over; one whose site holds it is a conflict. Only its holder
// releases it.
func TestVerifiedHostnames(t *testing.T) {
	s, _, db := newStore(t)
	ctx := context.Background()
	const host = "docs.acme.test"
	holds := func(id, state string) {
		t.Helper()
		claim := &site.HostnameClaim{Token: "t-" + id, State: state, ClaimedAt: time.Now().UTC()}
		if _, err := s.UpdateSite(ctx, id, func(st *site.Site) (kafkax.Event, error) {
			st.Hostname, st.HostnameClaim = host, claim
			return ev(sitesapi.SiteUpdated, id), nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []string{"a", "b", "c"} {
		if err := s.InsertSite(ctx, newSite(id, "org1", "Site "+id, true), ev(sitesapi.SiteCreated, id)); err != nil {
			t.Fatal(err)
		}
	}
	// A record of the old kind (no verified field) opens nothing and is taken over.
	if _, err := db.Collection(sitemongo.Hostnames).InsertOne(ctx, bson.M{"_id": host, "site": "c", "organization": "org1", "at": time.Now()}); err != nil {
		t.Fatal(err)
	}
	holds("c", site.HostnamePending)
	if _, err := s.SiteByHostname(ctx, host); !errors.Is(err, apierr.ErrNotFound) {
		t.Errorf("an unverified record is found: %v", err)
	}
	holds("a", site.HostnameVerified)
	if err := s.VerifyHostname(ctx, host, "org1", "a"); err != nil {
		t.Fatalf("taking over an old record: %v", err)
	}
	if err := s.VerifyHostname(ctx, host, "org1", "a"); err != nil {
		t.Errorf("verifying again: %v", err)
	}
	if st, err := s.SiteByHostname(ctx, host); err != nil || st.ID != "a" {
		t.Errorf("by hostname: %v %v", st.ID, err)
	}
	if err := s.VerifyHostname(ctx, host, "org2", "b"); !errors.Is(err, apierr.ErrConflict) {
		t.Errorf("a verified hostname taken over: %v", err)
	}
	if err := s.ReleaseHostname(ctx, host, "b"); err != nil {
		t.Fatal(err)
	}
	if st, err := s.SiteByHostname(ctx, host); err != nil || st.ID != "a" {
		t.Errorf("released by another site: %v %v", st.ID, err)
	}
	// a records its verification (pending until it stores it): not
	// found yet, and not taken over.
	holds("a", site.HostnamePending)
	if _, err := s.SiteByHostname(ctx, host); !errors.Is(err, apierr.ErrNotFound) {
		t.Errorf("a site whose claim is pending is found: %v", err)
	}
	if err := s.VerifyHostname(ctx, host, "org2", "b"); !errors.Is(err, apierr.ErrConflict) {
		t.Errorf("taken over while its site records its verification: %v", err)
	}
	// a's claim failed: taken over.
	holds("a", site.HostnameFailed)
	holds("b", site.HostnameVerified)
	if err := s.VerifyHostname(ctx, host, "org2", "b"); err != nil {
		t.Fatalf("taking over a record whose site no longer holds it: %v", err)
	}
	if err := s.RemoveSite(ctx, "b", ev(sitesapi.SiteDeleted, "b")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SiteByHostname(ctx, host); !errors.Is(err, apierr.ErrNotFound) {
		t.Errorf("the hostname of a deleted site: %v", err)
	}
	holds("c", site.HostnameVerified)
	if err := s.VerifyHostname(ctx, host, "org1", "c"); err != nil {
		t.Errorf("the hostname of a deleted site: %v", err)
	}
	// Claims: pending ones, checked longest ago first.
	holds("a", site.HostnamePending)
	got, err := s.HostnameClaims(ctx, time.Now().Add(time.Minute), 10)
	if err != nil || len(got) != 1 || got[0].ID != "a" {
		t.Errorf("pending claims %v %v", siteIDs(got), err)
	}
	if got, err := s.SitesClaiming(ctx, host, "c"); err != nil || len(got) != 1 || got[0].ID != "a" {
		t.Errorf("sites claiming %v %v", siteIDs(got), err)
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
		if err := s.InsertSite(ctx, st, ev(sitesapi.SiteCreated, st.ID)); err != nil {
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
