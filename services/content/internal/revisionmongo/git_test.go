package revisionmongo_test

import (
	"testing"

	"github.com/docspub/platform/services/content/internal/revision"
	"github.com/google/go-cmp/cmp"
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
