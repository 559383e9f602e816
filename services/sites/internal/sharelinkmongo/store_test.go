package sharelinkmongo_test

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
	"github.com/docspub/platform/services/sites/internal/sharelink"
	"github.com/docspub/platform/services/sites/internal/sharelinkmongo"
	"github.com/google/go-cmp/cmp"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

func newStore(t *testing.T) (*sharelinkmongo.Store, *mongo.Database, *int) {
	t.Helper()
	db := mongotest.Database(t)
	if err := sharelinkmongo.EnsureIndexes(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	writes := new(int)
	s := sharelinkmongo.NewStore(mongox.NewDB(db), func([]kafkax.Event) { *writes++ })
	return s, db, writes
}

var at = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

func link(site, id, key string) sharelink.Link {
	return sharelink.Link{ID: id, Organization: "o1", Site: site, Name: "link " + id, Active: true,
		Key: key, KeyHash: sharelink.HashKey(key), CreatedAt: at, UpdatedAt: at}
}

func ev(typ string) kafkax.Event { return kafkax.NewEvent(typ, "o1", "l", nil) }

func insert(t *testing.T, s *sharelinkmongo.Store, ls ...sharelink.Link) {
	t.Helper()
	for _, l := range ls {
		if err := s.Insert(context.Background(), l, ev(sitesapi.ShareLinkCreated)); err != nil {
			t.Fatalf("insert %s: %v", l.ID, err)
		}
	}
}

// stored is a link as it lies in the database, with its pending events.
type stored struct {
	sharelink.Link `bson:",inline"`
	kafkax.Pending `bson:",inline"`
}

func raw(t *testing.T, db *mongo.Database, id string) stored {
	t.Helper()
	var d stored
	if err := db.Collection(sharelinkmongo.Links).FindOne(context.Background(), bson.M{"_id": id}).Decode(&d); err != nil {
		t.Fatalf("read %s as stored: %v", id, err)
	}
	return d
}

func outbox(d stored) []string {
	out := []string{}
	for _, e := range d.Outbox {
		out = append(out, e.Type)
	}
	return out
}

func TestInsertAndRead(t *testing.T) {
	ctx := context.Background()
	s, db, writes := newStore(t)
	l := link("s1", "l1", "key1")
	insert(t, s, l)
	if *writes != 1 {
		t.Errorf("written called %d times, want 1", *writes)
	}
	for _, tc := range []struct {
		name    string
		read    func() (sharelink.Link, error)
		wantErr error
	}{
		{"by site and id", func() (sharelink.Link, error) { return s.Link(ctx, "s1", "l1") }, nil},
		{"by key hash", func() (sharelink.Link, error) { return s.ByKeyHash(ctx, sharelink.HashKey("key1")) }, nil},
		{"from another site", func() (sharelink.Link, error) { return s.Link(ctx, "s2", "l1") }, apierr.ErrNotFound},
		{"unknown id", func() (sharelink.Link, error) { return s.Link(ctx, "s1", "nope") }, apierr.ErrNotFound},
		{"unknown hash", func() (sharelink.Link, error) { return s.ByKeyHash(ctx, sharelink.HashKey("key2")) }, apierr.ErrNotFound},
		{"the key instead of its hash", func() (sharelink.Link, error) { return s.ByKeyHash(ctx, "key1") }, apierr.ErrNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.read()
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if err != nil {
				if err.Error() != "share link not found" {
					t.Errorf("message %q, want %q", err, "share link not found")
				}
				return
			}
			if diff := cmp.Diff(l, got); diff != "" {
				t.Errorf("link (-want +got):\n%s", diff)
			}
		})
	}
	if diff := cmp.Diff([]string{sitesapi.ShareLinkCreated}, outbox(raw(t, db, "l1"))); diff != "" {
		t.Errorf("outbox (-want +got):\n%s", diff)
	}
}

func TestKeyHashUnique(t *testing.T) {
	s, _, _ := newStore(t)
	insert(t, s, link("s1", "l1", "same"))
	err := s.Insert(context.Background(), link("s2", "l2", "same"), ev(sitesapi.ShareLinkCreated))
	if !errors.Is(err, apierr.ErrConflict) {
		t.Fatalf("second link with the same key: %v, want a conflict", err)
	}
}

func TestLinksPageInCreationOrder(t *testing.T) {
	ctx := context.Background()
	s, _, _ := newStore(t)
	insert(t, s, link("s1", "c", "k3"), link("s1", "a", "k1"), link("s2", "b", "k2"), link("s1", "d", "k4"), link("s1", "e", "k5"))
	if err := s.Remove(ctx, "s1", "d", ev(sitesapi.ShareLinkDeleted)); err != nil {
		t.Fatal(err)
	}
	ids := func(ls []sharelink.Link) []string {
		out := []string{}
		for _, l := range ls {
			out = append(out, l.ID)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		page sharelink.Page
		want []string
	}{
		{"all", sharelink.Page{}, []string{"a", "c", "e"}},
		{"first page", sharelink.Page{Limit: 2}, []string{"a", "c"}},
		{"after a", sharelink.Page{AfterID: "a", Limit: 1}, []string{"c"}},
		{"after c", sharelink.Page{AfterID: "c", Limit: 5}, []string{"e"}},
		{"after the last", sharelink.Page{AfterID: "e"}, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, n, err := s.Links(ctx, "s1", tc.page)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, ids(got)); diff != "" || n != 3 {
				t.Errorf("ids (-want +got):\n%s; count %d, want 3", diff, n)
			}
		})
	}
}

func TestUpdateWritesOnlyTheChange(t *testing.T) {
	ctx := context.Background()
	name, off := "renamed", false
	later := at.Add(time.Hour)
	for _, tc := range []struct {
		name    string
		site    string
		ch      sharelink.Change
		wantErr error
		want    sharelink.Link
	}{
		{"name", "s1", sharelink.Change{Name: &name, UpdatedAt: later},
			nil, func() sharelink.Link { l := link("s1", "l1", "k"); l.Name, l.UpdatedAt = name, later; return l }()},
		{"active", "s1", sharelink.Change{Active: &off, UpdatedAt: later},
			nil, func() sharelink.Link { l := link("s1", "l1", "k"); l.Active, l.UpdatedAt = false, later; return l }()},
		{"another site's link", "s2", sharelink.Change{Active: &off, UpdatedAt: later}, apierr.ErrNotFound, link("s1", "l1", "k")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, db, _ := newStore(t)
			insert(t, s, link("s1", "l1", "k"))
			err := s.Update(ctx, tc.site, "l1", tc.ch, ev(sitesapi.ShareLinkUpdated))
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			d := raw(t, db, "l1")
			if diff := cmp.Diff(tc.want, d.Link); diff != "" {
				t.Errorf("stored (-want +got):\n%s", diff)
			}
			want := []string{sitesapi.ShareLinkCreated}
			if tc.wantErr == nil {
				want = append(want, sitesapi.ShareLinkUpdated)
			}
			if diff := cmp.Diff(want, outbox(d)); diff != "" {
				t.Errorf("outbox (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRemoveErasesTheKey(t *testing.T) {
	ctx := context.Background()
	s, db, _ := newStore(t)
	insert(t, s, link("s1", "l1", "k1"))
	if err := s.Remove(ctx, "s2", "l1", ev(sitesapi.ShareLinkDeleted)); !errors.Is(err, apierr.ErrNotFound) {
		t.Fatalf("remove from another site: %v, want not found", err)
	}
	if err := s.Remove(ctx, "s1", "l1", ev(sitesapi.ShareLinkDeleted)); err != nil {
		t.Fatal(err)
	}
	d := raw(t, db, "l1")
	if !d.Tombstone || d.Key != "" || d.KeyHash == sharelink.HashKey("k1") || d.Active {
		t.Errorf("removed link stored as %+v, tombstone %v", d.Link, d.Tombstone)
	}
	if diff := cmp.Diff([]string{sitesapi.ShareLinkCreated, sitesapi.ShareLinkDeleted}, outbox(d)); diff != "" {
		t.Errorf("outbox (-want +got):\n%s", diff)
	}
	for name, read := range map[string]func() error{
		"by id":       func() error { _, err := s.Link(ctx, "s1", "l1"); return err },
		"by key hash": func() error { _, err := s.ByKeyHash(ctx, sharelink.HashKey("k1")); return err },
		"update": func() error {
			return s.Update(ctx, "s1", "l1", sharelink.Change{UpdatedAt: at}, ev(sitesapi.ShareLinkUpdated))
		},
		"remove": func() error { return s.Remove(ctx, "s1", "l1", ev(sitesapi.ShareLinkDeleted)) },
	} {
		if err := read(); !errors.Is(err, apierr.ErrNotFound) {
			t.Errorf("%s after removal: %v, want not found", name, err)
		}
	}
	if _, n, err := s.Links(ctx, "s1", sharelink.Page{}); err != nil || n != 0 {
		t.Errorf("listed after removal: %d, %v", n, err)
	}
}

func TestDeleteSite(t *testing.T) {
	ctx := context.Background()
	s, db, _ := newStore(t)
	insert(t, s, link("s1", "a", "k1"), link("s1", "b", "k2"), link("s2", "c", "k3"))
	if err := s.DeleteSite(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		site string
		want int64
	}{{"s1", 0}, {"s2", 1}} {
		n, err := db.Collection(sharelinkmongo.Links).CountDocuments(ctx, bson.M{"site": tc.site})
		if err != nil || n != tc.want {
			t.Errorf("%s: %d documents, %v; want %d", tc.site, n, err, tc.want)
		}
	}
}

func TestIndexesAndCollections(t *testing.T) {
	var unique []string
	for _, ix := range sharelinkmongo.Indexes() {
		if ix.Model.Options != nil {
			unique = append(unique, ix.Collection)
		}
	}
	if diff := cmp.Diff([]string{sharelinkmongo.Links}, unique); diff != "" {
		t.Errorf("unique indexes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"share_links"}, sharelinkmongo.Collections()); diff != "" {
		t.Errorf("collections (-want +got):\n%s", diff)
	}
}
