package space

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/services/content/internal/revision"
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
