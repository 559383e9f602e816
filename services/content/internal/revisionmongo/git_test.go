package revisionmongo_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/blob/blobtest"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/services/content/internal/limits"
	"github.com/docspub/platform/services/content/internal/revision"
	"github.com/docspub/platform/services/content/internal/revisionmongo"
	"github.com/google/go-cmp/cmp"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestGitSyncFieldsRoundTrip: what a Git import writes (the commit, pages'
// icon and hidden flag) is read back.
func TestGitSyncFieldsRoundTrip(t *testing.T) {
	t.Parallel()
	s, ctx := newStore(t)
	r := revision.Revision{ID: "g1", Space: "sp1", Organization: "org1", Type: revision.TypeEdits, Parents: []string{},
		Git: &revision.Git{OID: "abc123", Message: "docs: update", Ref: "refs/heads/main", URL: "https://git.example/c/abc123"},
		Pages: []revision.Page{{ID: "p1", Kind: revision.KindDocument, Title: "Install", Slug: "install", Icon: "download",
			Hidden: true, Markdown: "Run it.\n", Pages: []revision.Page{}, CreatedAt: t0, UpdatedAt: t0}},
		Files: []revision.File{}, ReusableContents: []revision.ReusableContent{}, CreatedAt: t0}
	if err := s.Insert(ctx, r); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, "g1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(r.Git, got.Git); diff != "" {
		t.Errorf("git (-want +got):\n%s", diff)
	}
	if p := got.Pages[0]; p.Icon != "download" || !p.Hidden || p.Markdown != "Run it.\n" {
		t.Errorf("page %+v", p)
	}
}

// TestRedirectsRoundTrip: a revision's redirects are stored with it and
// read back, in order, by another replica's store (from the database, not
// from the memory of the one that wrote them), whole or as a tree; a
// revision without any reads none.
func TestRedirectsRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := mongotest.Database(t)
	blobs := blobtest.Open(t, blobtest.Dir(t))
	redirects := []revision.Redirect{{Path: "previous/page", Page: "p1"}, {Path: "help", Page: "p1"}, {Path: "café", Page: "p1"}}
	r := revision.Revision{ID: "r1", Space: "sp1", Organization: "org1", Type: revision.TypeEdits, Parents: []string{},
		Pages: []revision.Page{{ID: "p1", Kind: revision.KindDocument, Title: "Page", Slug: "page", Markdown: "x\n",
			Pages: []revision.Page{}, CreatedAt: t0, UpdatedAt: t0}},
		Files: []revision.File{}, ReusableContents: []revision.ReusableContent{}, Redirects: redirects, CreatedAt: t0}
	if err := revisionmongo.NewStore(db, blobs).Insert(ctx, r); err != nil {
		t.Fatal(err)
	}
	plain := r
	plain.ID, plain.Redirects = "r2", nil
	if err := revisionmongo.NewStore(db, blobs).Insert(ctx, plain); err != nil {
		t.Fatal(err)
	}
	other := revisionmongo.NewStore(db, blobs)
	got, err := other.Get(ctx, "r1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(redirects, got.Redirects); diff != "" {
		t.Errorf("redirects read (-want +got):\n%s", diff)
	}
	tree, err := revisionmongo.NewStore(db, blobs).Tree(ctx, "r1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(redirects, tree.Redirects); diff != "" {
		t.Errorf("redirects of the tree (-want +got):\n%s", diff)
	}
	if got, err := other.Get(ctx, "r2"); err != nil || got.Redirects != nil {
		t.Errorf("a revision without redirects reads %+v (%v)", got.Redirects, err)
	}
	var doc bson.M
	if err := db.Collection(revisionmongo.Revisions).FindOne(ctx, bson.M{"_id": "r2"}).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	if _, ok := doc["redirects"]; ok {
		t.Errorf("a revision without redirects stores the field: %v", doc)
	}

	many := r
	many.ID, many.Redirects = "r3", make([]revision.Redirect, limits.RevisionRedirects+1)
	for i := range many.Redirects {
		many.Redirects[i] = revision.Redirect{Path: fmt.Sprintf("old/%d", i), Page: "p1"}
	}
	var ae *apierr.Error
	if err := other.Insert(ctx, many); !errors.As(err, &ae) || ae.Status != http.StatusRequestEntityTooLarge {
		t.Errorf("%d redirects stored: %v, want a 413", len(many.Redirects), err)
	}
}
