package space

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/services/content/internal/limits"
	"github.com/docspub/platform/services/content/internal/revision"
	"github.com/google/go-cmp/cmp"
)

// TestBuildImport: an import's pages keep the ids of the parent's pages at
// the same path (and their times when unchanged), files the ids of the
// parent's files of the same name; slugs are made from titles when absent
// or malformed; the revision is at the given clock.
func TestBuildImport(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	now := t0.Add(48 * time.Hour)
	parent := revision.Revision{ID: "r1", Space: "s1", Organization: "o1",
		Pages: []revision.Page{
			{ID: "pg-guide", Kind: revision.KindGroup, Title: "Guide", Slug: "guide", CreatedAt: t0, UpdatedAt: t0, Pages: []revision.Page{
				{ID: "pg-install", Kind: revision.KindDocument, Title: "Install", Slug: "install", Markdown: "old", CreatedAt: t0, UpdatedAt: t0},
				{ID: "pg-same", Kind: revision.KindDocument, Title: "Same", Slug: "same", Markdown: "same", CreatedAt: t0, UpdatedAt: t0},
			}},
		},
		Files: []revision.File{{ID: "f-logo", Name: "logo.png", Blob: "b0", Size: 1}},
	}
	in := GitImport{Parent: "r1", Pages: []ImportPage{
		{Kind: revision.KindGroup, Title: "Guide", Slug: "guide", Pages: []ImportPage{
			{Kind: revision.KindDocument, Title: "Install", Slug: "install", Markdown: "new"},
			{Kind: revision.KindDocument, Title: "Same", Slug: "same", Markdown: "same"},
			{Kind: revision.KindGroup, Title: "A Nested Group", Slug: "Not A Slug", Markdown: "md"},
		}},
	}, Files: []ImportFile{{Name: "logo.png", Blob: "b1", Size: 2}, {Name: "new.png", Blob: "b2", Size: 3}},
		Git: &revision.Git{OID: "abc", Message: "import"}}
	rev, err := buildImport(parent, in, now)
	if err != nil {
		t.Fatal(err)
	}
	guide := rev.Pages[0]
	install, same, nested := guide.Pages[0], guide.Pages[1], guide.Pages[2]
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"revision parent", strings.Join(rev.Parents, ","), "r1"},
		{"revision time", rev.CreatedAt, now},
		{"group id", guide.ID, "pg-guide"},
		{"changed page id", install.ID, "pg-install"},
		{"changed page created", install.CreatedAt, t0},
		{"changed page updated", install.UpdatedAt, now},
		{"unchanged page updated", same.UpdatedAt, t0},
		{"nested group is a document", nested.Kind, revision.KindDocument},
		{"malformed slug", nested.Slug, "a-nested-group"},
		{"kept file id", rev.Files[0].ID, "f-logo"},
		{"kept file blob", rev.Files[0].Blob, "b1"},
		{"git", rev.Git.OID, "abc"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if nested.ID == "" || strings.HasPrefix(nested.ID, "pg-") || rev.Files[1].ID == "" || rev.Files[1].ID == "f-logo" {
		t.Errorf("new page %q, new file %q: want new ids", nested.ID, rev.Files[1].ID)
	}
}

// TestBuildImportRefuses: what is over the limits, or names no blob, is a
// 400 naming its field.
func TestBuildImportRefuses(t *testing.T) {
	t.Parallel()
	deep := []ImportPage{{Title: "x"}}
	for range MaxImportDepth {
		deep = []ImportPage{{Title: "x", Pages: deep}}
	}
	many := make([]ImportPage, MaxImportPages+1)
	for i := range many {
		many[i] = ImportPage{Title: "p"}
	}
	for _, tc := range []struct {
		name  string
		in    GitImport
		field string
	}{
		{"too deep", GitImport{Pages: deep}, "pages"},
		{"too many pages", GitImport{Pages: many}, "pages"},
		{"a file without a blob", GitImport{Files: []ImportFile{{Name: "a.png"}}}, "files[0]"},
		{"a reusable content without a title", GitImport{ReusableContents: []ImportReusable{{Title: " "}}}, "reusableContents[0]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := buildImport(revision.Revision{ID: "r1"}, tc.in, time.Now())
			var ae *apierr.Error
			if !errors.As(err, &ae) || ae.Status != 400 || ae.Field != tc.field {
				t.Errorf("got %v, want a 400 naming %s", err, tc.field)
			}
		})
	}
}

// TestImportReusable: an import's reusable contents are added to the
// parent's; one of the same title keeps its id and takes the new markdown;
// none is removed.
func TestImportReusable(t *testing.T) {
	t.Parallel()
	parent := []revision.ReusableContent{{ID: "rc1", Title: "note", Markdown: "old"}, {ID: "rc2", Title: "made in the app", Markdown: "app"}}
	got, err := importReusable(parent, []ImportReusable{{Title: "note", Markdown: "new"}, {Title: "tip", Markdown: "tip"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0] != (revision.ReusableContent{ID: "rc1", Title: "note", Markdown: "new"}) ||
		got[1] != parent[1] || got[2].Title != "tip" || got[2].Markdown != "tip" || got[2].ID == "" {
		t.Errorf("reusable contents %+v", got)
	}
	if parent[0].Markdown != "old" {
		t.Error("the parent's reusable contents changed")
	}
}

// TestImportRedirects: an import's redirects name pages by their place in
// the import and are stored with the ids those pages take (a page kept
// from the parent keeps its id); nil keeps the parent's redirects, an
// empty list removes them.
func TestImportRedirects(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	parent := revision.Revision{ID: "r1", Space: "s1", Organization: "o1",
		Pages: []revision.Page{
			{ID: "pg-home", Kind: revision.KindDocument, Title: "Home", Slug: "home", CreatedAt: t0, UpdatedAt: t0},
			{ID: "pg-guide", Kind: revision.KindGroup, Title: "Guide", Slug: "guide", CreatedAt: t0, UpdatedAt: t0, Pages: []revision.Page{
				{ID: "pg-install", Kind: revision.KindDocument, Title: "Install", Slug: "install", CreatedAt: t0, UpdatedAt: t0},
			}},
		},
		Redirects: []revision.Redirect{{Path: "old", Page: "pg-install"}},
	}
	pages := []ImportPage{
		{Kind: revision.KindDocument, Title: "Home", Slug: "home"},
		{Kind: revision.KindGroup, Title: "Guide", Slug: "guide", Pages: []ImportPage{
			{Kind: revision.KindDocument, Title: "Install", Slug: "install"},
			{Kind: revision.KindDocument, Title: "Upgrade", Slug: "upgrade"},
		}},
	}
	for _, tc := range []struct {
		name string
		in   []ImportRedirect
		want func(rev revision.Revision) []revision.Redirect
	}{
		{"nil keeps the parent's", nil, func(revision.Revision) []revision.Redirect { return parent.Redirects }},
		{"empty removes them", []ImportRedirect{}, func(revision.Revision) []revision.Redirect { return []revision.Redirect{} }},
		{"pages by place", []ImportRedirect{{Path: "previous/install", Page: []int{1, 0}}, {Path: "new", Page: []int{1, 1}}, {Path: "start", Page: []int{0}}},
			func(rev revision.Revision) []revision.Redirect {
				return []revision.Redirect{{Path: "previous/install", Page: "pg-install"}, {Path: "new", Page: rev.Pages[1].Pages[1].ID},
					{Path: "start", Page: "pg-home"}}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rev, err := buildImport(parent, GitImport{Parent: "r1", Pages: pages, Redirects: tc.in}, t0.Add(time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want(rev), rev.Redirects); diff != "" {
				t.Errorf("redirects (-want +got):\n%s", diff)
			}
		})
	}
	if parent.Redirects[0].Page != "pg-install" {
		t.Error("the parent's redirects changed")
	}

	many := make([]ImportRedirect, limits.RevisionRedirects+1)
	for i := range many {
		many[i] = ImportRedirect{Path: fmt.Sprintf("old/%d", i), Page: []int{0}}
	}
	for _, tc := range []struct {
		name  string
		in    []ImportRedirect
		field string
	}{
		{"too many", many, "redirects"},
		{"a group", []ImportRedirect{{Path: "g", Page: []int{1}}}, "redirects[0].page"},
		{"no such place", []ImportRedirect{{Path: "x", Page: []int{1, 2}}}, "redirects[0].page"},
		{"a negative place", []ImportRedirect{{Path: "x", Page: []int{-1}}}, "redirects[0].page"},
		{"no place", []ImportRedirect{{Path: "x"}}, "redirects[0].page"},
		{"no path", []ImportRedirect{{Page: []int{0}}}, "redirects[0].path"},
		{"a leading slash", []ImportRedirect{{Path: "/x", Page: []int{0}}}, "redirects[0].path"},
		{"a dot segment", []ImportRedirect{{Path: "a/../x", Page: []int{0}}}, "redirects[0].path"},
		{"a control character", []ImportRedirect{{Path: "a\nb", Page: []int{0}}}, "redirects[0].path"},
		{"too long", []ImportRedirect{{Path: strings.Repeat("x", limits.RedirectPath+1), Page: []int{0}}}, "redirects[0].path"},
		{"twice", []ImportRedirect{{Path: "x", Page: []int{0}}, {Path: "x", Page: []int{1, 0}}}, "redirects[1].path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := buildImport(parent, GitImport{Parent: "r1", Pages: pages, Redirects: tc.in}, t0)
			var ae *apierr.Error
			if !errors.As(err, &ae) || ae.Status != 400 || ae.Field != tc.field {
				t.Errorf("got %v, want a 400 naming %s", err, tc.field)
			}
		})
	}
}
