package merge_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/docspub/platform/services/content/internal/merge"
	"github.com/docspub/platform/services/content/internal/revision"
)

// md is a page's markdown: lines "<id> line 1" … "<id> line 6".
func md(id string) string {
	var b strings.Builder
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(&b, "%s line %d\n", id, i)
	}
	return b.String()
}

// tree builds pages from an outline such as "a b(c d) e": ids separated by
// spaces, children in parentheses. A page's slug is its id, its title
// "Title <id>", its markdown md(id).
func tree(t *testing.T, outline string) []revision.Page {
	t.Helper()
	s := strings.NewReplacer("(", " ( ", ")", " ) ").Replace(outline)
	toks := strings.Fields(s)
	var parse func() []revision.Page
	parse = func() []revision.Page {
		var out []revision.Page
		for len(toks) > 0 {
			tok := toks[0]
			switch tok {
			case ")":
				return out
			case "(":
				t.Fatalf("outline %q: children without a page", outline)
			}
			toks = toks[1:]
			p := revision.Page{ID: tok, Kind: revision.KindDocument, Title: "Title " + tok, Slug: tok, Markdown: md(tok)}
			if len(toks) > 0 && toks[0] == "(" {
				toks = toks[1:]
				p.Pages = parse()
				if len(toks) == 0 || toks[0] != ")" {
					t.Fatalf("outline %q: unclosed parenthesis", outline)
				}
				toks = toks[1:]
			}
			out = append(out, p)
		}
		return out
	}
	pages := parse()
	if len(toks) != 0 {
		t.Fatalf("outline %q: unexpected %q", outline, toks[0])
	}
	return pages
}

// outline is tree's inverse: it lists ids only.
func outline(pages []revision.Page) string {
	parts := make([]string, len(pages))
	for i, p := range pages {
		parts[i] = p.ID
		if len(p.Pages) > 0 {
			parts[i] += "(" + outline(p.Pages) + ")"
		}
	}
	return strings.Join(parts, " ")
}

// edit returns pages with the page id changed by f (the input is not
// changed).
func edit(t *testing.T, pages []revision.Page, id string, f func(p *revision.Page)) []revision.Page {
	t.Helper()
	out := clonePages(pages)
	if !editIn(out, id, f) {
		t.Fatalf("edit: no page %s in %s", id, outline(pages))
	}
	return out
}

func editIn(pages []revision.Page, id string, f func(p *revision.Page)) bool {
	for i := range pages {
		if pages[i].ID == id {
			f(&pages[i])
			return true
		}
		if editIn(pages[i].Pages, id, f) {
			return true
		}
	}
	return false
}

func clonePages(pages []revision.Page) []revision.Page {
	if pages == nil {
		return nil
	}
	out := slices.Clone(pages)
	for i := range out {
		out[i].Pages = clonePages(out[i].Pages)
	}
	return out
}

// replaceLine changes line n (1-based) of a page's markdown.
func replaceLine(n int, s string) func(p *revision.Page) {
	return func(p *revision.Page) {
		ls := strings.SplitAfter(p.Markdown, "\n")
		ls[n-1] = s + "\n"
		p.Markdown = strings.Join(ls, "")
	}
}

func find(pages []revision.Page, id string) (revision.Page, bool) {
	r := revision.Revision{Pages: pages}
	f, ok := r.FindPage(id)
	if !ok {
		return revision.Page{}, false
	}
	return *f.Page, true
}

// conflictIDs lists the conflicts as "page:<id>", "file:<id>" or
// "reusable:<id>".
func conflictIDs(cs []merge.Conflict) []string {
	var out []string
	for _, c := range cs {
		switch {
		case c.PageID != "":
			out = append(out, "page:"+c.PageID)
		case c.FileID != "":
			out = append(out, "file:"+c.FileID)
		default:
			out = append(out, "reusable:"+c.ReusableContentID)
		}
	}
	return out
}

func TestRevisionsPages(t *testing.T) {
	t.Parallel()
	type row struct {
		name          string
		base          string // outline
		ours, theirs  func(t *testing.T, base []revision.Page) []revision.Page
		want          string   // outline of the merge
		wantConflicts []string // conflictIDs
		wantReason    string   // in the first conflict's reason
		check         func(t *testing.T, got []revision.Page)
	}
	same := func(t *testing.T, base []revision.Page) []revision.Page { return clonePages(base) }
	outlined := func(o string) func(t *testing.T, base []revision.Page) []revision.Page {
		return func(t *testing.T, _ []revision.Page) []revision.Page { return tree(t, o) }
	}
	edited := func(id string, f func(p *revision.Page)) func(t *testing.T, base []revision.Page) []revision.Page {
		return func(t *testing.T, base []revision.Page) []revision.Page { return edit(t, base, id, f) }
	}
	// outlinedEdited is an outline with one page edited.
	outlinedEdited := func(o, id string, f func(p *revision.Page)) func(t *testing.T, base []revision.Page) []revision.Page {
		return func(t *testing.T, _ []revision.Page) []revision.Page { return edit(t, tree(t, o), id, f) }
	}
	markdown := func(id, want string) func(t *testing.T, got []revision.Page) {
		return func(t *testing.T, got []revision.Page) {
			t.Helper()
			p, ok := find(got, id)
			if !ok {
				t.Fatalf("page %s missing from %s", id, outline(got))
			}
			if diff := cmp.Diff(want, p.Markdown); diff != "" {
				t.Errorf("page %s markdown mismatch (-want +got):\n%s", id, diff)
			}
		}
	}
	title := func(id, want string) func(t *testing.T, got []revision.Page) {
		return func(t *testing.T, got []revision.Page) {
			t.Helper()
			p, ok := find(got, id)
			if !ok {
				t.Fatalf("page %s missing from %s", id, outline(got))
			}
			if p.Title != want {
				t.Errorf("page %s title = %q, want %q", id, p.Title, want)
			}
		}
	}
	lines := func(id string, change map[int]string) string {
		ls := strings.SplitAfter(md(id), "\n")
		for n, s := range change {
			ls[n-1] = s + "\n"
		}
		return strings.Join(ls, "")
	}

	tests := []row{
		// No-ops.
		{name: "nothing changed", base: "a b(c d) e", ours: same, theirs: same, want: "a b(c d) e"},
		{name: "empty space", base: "", ours: same, theirs: same, want: ""},

		// The classic cases.
		{
			name: "two change requests edit different pages: both merge",
			base: "a b(c d) e",
			ours: edited("a", replaceLine(2, "ours")), theirs: edited("d", replaceLine(5, "theirs")),
			want: "a b(c d) e",
			check: func(t *testing.T, got []revision.Page) {
				markdown("a", lines("a", map[int]string{2: "ours"}))(t, got)
				markdown("d", lines("d", map[int]string{5: "theirs"}))(t, got)
			},
		},
		{
			name: "same lines of the same page: conflict, ours kept",
			base: "a b(c d) e",
			ours: edited("c", replaceLine(3, "ours")), theirs: edited("c", replaceLine(3, "theirs")),
			want: "a b(c d) e", wantConflicts: []string{"page:c"}, wantReason: "line 3",
			check: markdown("c", lines("c", map[int]string{3: "ours"})),
		},
		{
			name: "different lines of the same page merge",
			base: "a b(c d) e",
			ours: edited("c", replaceLine(1, "ours")), theirs: edited("c", replaceLine(6, "theirs")),
			want:  "a b(c d) e",
			check: markdown("c", lines("c", map[int]string{1: "ours", 6: "theirs"})),
		},
		{
			name: "identical changes on both sides",
			base: "a b(c d) e",
			ours: edited("c", replaceLine(3, "both")), theirs: edited("c", replaceLine(3, "both")),
			want:  "a b(c d) e",
			check: markdown("c", lines("c", map[int]string{3: "both"})),
		},

		// Fields.
		{
			name: "different fields of the same page merge",
			base: "a b",
			ours: edited("a", func(p *revision.Page) { p.Emoji = "🚀"; p.Description = "ours" }),
			theirs: edited("a", func(p *revision.Page) {
				p.Title, p.Slug, p.Kind = "New title", "new-slug", revision.KindGroup
			}),
			want: "a b",
			check: func(t *testing.T, got []revision.Page) {
				p, _ := find(got, "a")
				g := [5]string{p.Title, p.Slug, p.Kind, p.Emoji, p.Description}
				want := [5]string{"New title", "new-slug", revision.KindGroup, "🚀", "ours"}
				if g != want {
					t.Errorf("page a fields = %q, want %q", g, want)
				}
			},
		},
		{
			name: "the same field changed to the same value",
			base: "a b",
			ours: edited("a", func(p *revision.Page) { p.Title = "Same" }), theirs: edited("a", func(p *revision.Page) { p.Title = "Same" }),
			want: "a b", check: title("a", "Same"),
		},
		{
			name: "title changed differently: conflict",
			base: "a b",
			ours: edited("a", func(p *revision.Page) { p.Title = "Ours" }), theirs: edited("a", func(p *revision.Page) { p.Title = "Theirs" }),
			want: "a b", wantConflicts: []string{"page:a"}, wantReason: "title", check: title("a", "Ours"),
		},
		{
			name: "their layout, cover and link destination kept",
			base: "a b",
			ours: same, theirs: edited("a", func(p *revision.Page) {
				p.Layout, p.Cover, p.Href = &revision.Layout{Width: "wide"}, &revision.Cover{Src: "c.png"}, "x.md#y"
			}),
			want: "a b", check: func(t *testing.T, got []revision.Page) {
				t.Helper()
				p, _ := find(got, "a")
				if p.Layout == nil || p.Layout.Width != "wide" || p.Cover == nil || p.Cover.Src != "c.png" || p.Href != "x.md#y" {
					t.Errorf("page a: layout %+v, cover %+v, href %q", p.Layout, p.Cover, p.Href)
				}
			},
		},
		{
			name:   "layout changed differently: conflict",
			base:   "a b",
			ours:   edited("a", func(p *revision.Page) { p.Layout = &revision.Layout{Width: "wide"} }),
			theirs: edited("a", func(p *revision.Page) { p.Layout = &revision.Layout{Width: "default", Title: true} }),
			want:   "a b", wantConflicts: []string{"page:a"}, wantReason: "layout",
		},
		{
			name: "slug changed differently: conflict",
			base: "a b",
			ours: edited("b", func(p *revision.Page) { p.Slug = "ours" }), theirs: edited("b", func(p *revision.Page) { p.Slug = "theirs" }),
			want: "a b", wantConflicts: []string{"page:b"}, wantReason: "slug",
		},
		{
			name: "kind, emoji and description changed differently: three conflicts",
			base: "a",
			ours: edited("a", func(p *revision.Page) {
				p.Kind, p.Emoji, p.Description = revision.KindGroup, "1", "ours"
			}),
			theirs: edited("a", func(p *revision.Page) { p.Kind, p.Emoji, p.Description = "other", "2", "theirs" }),
			want:   "a", wantConflicts: []string{"page:a", "page:a", "page:a"}, wantReason: "kind",
		},

		// Additions.
		{
			name: "theirs adds a page between two siblings",
			base: "a b(c d) e",
			ours: same, theirs: outlined("a b(c x d) e"),
			want: "a b(c x d) e",
			check: func(t *testing.T, got []revision.Page) {
				markdown("x", md("x"))(t, got)
				title("x", "Title x")(t, got)
			},
		},
		{
			name: "both add pages in different places",
			base: "a b(c d) e",
			ours: outlined("o a b(c d) e"), theirs: outlined("a b(c d t(u)) e"),
			want: "o a b(c d t(u)) e",
		},
		{
			name: "both add pages at the same place: ours first",
			base: "a b(c d) e",
			ours: outlined("a b(c o d) e"), theirs: outlined("a b(c t1 t2 d) e"),
			want: "a b(c o t1 t2 d) e",
		},
		{
			name: "both add pages at the end: ours first",
			base: "a b",
			ours: outlined("a b o"), theirs: outlined("a b t"),
			want: "a b o t",
		},
		{
			name: "both add the same page identically",
			base: "a",
			ours: outlined("a n"), theirs: outlined("a n"),
			want: "a n",
		},
		{
			name: "both add the same page differently: conflict",
			base: "a",
			ours: outlined("a n"), theirs: outlinedEdited("a n", "n", func(p *revision.Page) { p.Markdown = "other\n" }),
			want: "a n", wantConflicts: []string{"page:n"}, wantReason: "markdown",
		},
		{
			name: "both add the same page under different parents: conflict",
			base: "a b",
			ours: outlined("a(n) b"), theirs: outlined("a b(n)"),
			want: "a(n) b", wantConflicts: []string{"page:n"}, wantReason: "different parents",
		},
		{
			name: "theirs adds under a page ours deleted: conflict",
			base: "a b(c) e",
			ours: outlined("a e"), theirs: outlined("a b(c x(y)) e"),
			want: "a e", wantConflicts: []string{"page:x"}, wantReason: "ours deleted",
		},
		{
			name: "ours adds under a page theirs deleted: conflict, ours kept",
			base: "a b(c) e",
			ours: outlined("a b(c x) e"), theirs: outlined("a e"),
			want: "a b(x) e", wantConflicts: []string{"page:b"}, wantReason: "deleted by theirs",
		},

		// Deletions.
		{
			name: "theirs deletes a page ours left alone",
			base: "a b(c d) e",
			ours: same, theirs: outlined("a b(d) e"),
			want: "a b(d) e",
		},
		{
			name: "ours deletes a page theirs left alone",
			base: "a b(c d) e",
			ours: outlined("a e"), theirs: edited("a", replaceLine(1, "theirs")),
			want:  "a e",
			check: markdown("a", lines("a", map[int]string{1: "theirs"})),
		},
		{
			name: "both delete the same page",
			base: "a b(c d) e",
			ours: outlined("a b(d) e"), theirs: outlined("a b(d) e"),
			want: "a b(d) e",
		},
		{
			name: "theirs deletes a page ours changed: conflict, ours kept",
			base: "a b(c d) e",
			ours: edited("c", replaceLine(1, "ours")), theirs: outlined("a b(d) e"),
			want: "a b(c d) e", wantConflicts: []string{"page:c"}, wantReason: "deleted by theirs but changed by ours",
		},
		{
			name: "ours deletes a page theirs changed: conflict, ours kept",
			base: "a b(c d) e",
			ours: outlined("a b(d) e"), theirs: edited("c", func(p *revision.Page) { p.Title = "New" }),
			want: "a b(d) e", wantConflicts: []string{"page:c"}, wantReason: "deleted by ours but changed by theirs",
		},
		{
			name: "theirs deletes a page ours moved: conflict",
			base: "a b(c d) e",
			ours: outlined("a b(d) e(c)"), theirs: outlined("a b(d) e"),
			want: "a b(d) e(c)", wantConflicts: []string{"page:c"}, wantReason: "deleted by theirs",
		},
		{
			name: "theirs deletes a subtree with a page ours changed: conflict",
			base: "a b(c d) e",
			ours: edited("d", replaceLine(2, "ours")), theirs: outlined("a e"),
			want: "a b(d) e", wantConflicts: []string{"page:d", "page:b"}, wantReason: "deleted by theirs but changed by ours",
		},

		// Moves.
		{
			name: "theirs moves a page to another parent",
			base: "a b(c d) e",
			ours: edited("c", replaceLine(1, "ours")), theirs: outlined("a b(d) e(c)"),
			want:  "a b(d) e(c)",
			check: markdown("c", lines("c", map[int]string{1: "ours"})),
		},
		{
			name: "ours moves a page to another parent",
			base: "a b(c d) e",
			ours: outlined("a(d) b(c) e"), theirs: edited("d", replaceLine(1, "theirs")),
			want:  "a(d) b(c) e",
			check: markdown("d", lines("d", map[int]string{1: "theirs"})),
		},
		{
			name: "both move a page to the same parent",
			base: "a b(c d) e",
			ours: outlined("a(c) b(d) e"), theirs: outlined("a(c) b(d) e"),
			want: "a(c) b(d) e",
		},
		{
			name: "both move a page to different parents: conflict, ours kept",
			base: "a b(c d) e",
			ours: outlined("a(c) b(d) e"), theirs: outlined("a b(d) e(c)"),
			want: "a(c) b(d) e", wantConflicts: []string{"page:c"}, wantReason: "different parents",
		},
		{
			name: "theirs reorders siblings, ours adds one",
			base: "a b c d",
			ours: outlined("a b o c d"), theirs: outlined("d a b c"),
			want: "d a b o c",
		},
		{
			name: "both reorder different siblings",
			base: "a b c d e f",
			ours: outlined("b a c d e f"), theirs: outlined("a b c d f e"),
			want: "b a c d f e",
		},
		{
			name: "both move the same page to different places among its siblings: conflict",
			base: "a b c d e",
			ours: outlined("b c d a e"), theirs: outlined("b c a d e"),
			want: "b c d a e", wantConflicts: []string{"page:a"}, wantReason: "different places",
		},
		{
			name: "both make the same reorder",
			base: "a b c d e",
			ours: outlined("b c a d e"), theirs: outlined("b c a d e"),
			want: "b c a d e",
		},
		{
			name: "theirs moves a page under one ours moved",
			base: "a b c",
			ours: outlined("a(b) c"), theirs: outlined("a b(c)"),
			want: "a(b(c))",
		},
		{
			name: "moves that would make a cycle: conflict",
			base: "a b",
			ours: outlined("a(b)"), theirs: outlined("b(a)"),
			want: "a(b)", wantConflicts: []string{"page:a"}, wantReason: "own ancestor",
		},
		{
			name: "theirs moves a page under one ours deleted: conflict, ours' place kept",
			base: "a b c",
			ours: outlined("a c"), theirs: outlined("a b(c)"),
			want: "a c", wantConflicts: []string{"page:c"}, wantReason: "ours deleted",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base := tree(t, tc.base)
			ours, theirs := tc.ours(t, base), tc.theirs(t, base)
			keep := [3][]revision.Page{clonePages(base), clonePages(ours), clonePages(theirs)}

			got := merge.Revisions(revision.Revision{Pages: base}, revision.Revision{Pages: ours}, revision.Revision{Pages: theirs})

			if diff := cmp.Diff(tc.want, outline(got.Pages)); diff != "" {
				t.Errorf("Revisions() tree mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantConflicts, conflictIDs(got.Conflicts)); diff != "" {
				t.Errorf("Revisions() conflicts mismatch (-want +got):\n%s\n%v", diff, got.Conflicts)
			}
			if tc.wantReason != "" && len(got.Conflicts) > 0 && !strings.Contains(got.Conflicts[0].Reason, tc.wantReason) {
				t.Errorf("Revisions() first conflict = %q, want it to mention %q", got.Conflicts[0].Reason, tc.wantReason)
			}
			if err := got.Err(); (err != nil) != (len(tc.wantConflicts) > 0) || (err != nil && !errors.Is(err, merge.ErrConflict)) {
				t.Errorf("Result.Err() = %v, want an ErrConflict exactly when there are conflicts", err)
			}
			if tc.check != nil {
				tc.check(t, got.Pages)
			}
			if diff := cmp.Diff(keep, [3][]revision.Page{base, ours, theirs}); diff != "" {
				t.Errorf("Revisions() changed its inputs (-before +after):\n%s", diff)
			}
		})
	}
}

// TestRevisionsBothOrders merges the same pair of change requests into a
// space one way and the other: clean merges give the same content.
func TestRevisionsBothOrders(t *testing.T) {
	t.Parallel()
	base := tree(t, "a b(c d) e(f g)")
	x := edit(t, base, "c", replaceLine(1, "x"))
	x = edit(t, x, "f", func(p *revision.Page) { p.Title = "X" })
	x = append(x, tree(t, "xnew")...)
	y := edit(t, base, "c", replaceLine(6, "y"))
	y = edit(t, y, "g", func(p *revision.Page) { p.Emoji = "✅" })
	y = edit(t, y, "d", func(p *revision.Page) { p.Slug = "dee" })
	y = edit(t, y, "b", func(p *revision.Page) { p.Pages = append(p.Pages, tree(t, "ynew")...) })

	rb, ro, rt := revision.Revision{Pages: base}, revision.Revision{Pages: x}, revision.Revision{Pages: y}
	xy, yx := merge.Revisions(rb, ro, rt), merge.Revisions(rb, rt, ro)
	if len(xy.Conflicts)+len(yx.Conflicts) > 0 {
		t.Fatalf("conflicts: %v / %v", xy.Conflicts, yx.Conflicts)
	}
	if diff := cmp.Diff(xy.Pages, yx.Pages, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("merging in the other order differs (-x into y +y into x):\n%s", diff)
	}
	c, _ := find(xy.Pages, "c")
	if !strings.HasPrefix(c.Markdown, "x\n") || !strings.HasSuffix(c.Markdown, "y\n") {
		t.Errorf("page c markdown = %q, want both sides' lines", c.Markdown)
	}
}

func TestRevisionsFastForward(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	base := tree(t, "a b(c d) e(f)")
	for i := range base {
		base[i].CreatedAt, base[i].UpdatedAt = at, at
	}
	changed := tree(t, "n a(f) e b(d c(m))")
	changed = edit(t, changed, "d", func(p *revision.Page) {
		p.Title, p.Markdown, p.UpdatedAt = "D", "new\n", at.Add(time.Hour)
	})
	for _, p := range []string{"a", "b", "e"} {
		changed = edit(t, changed, p, func(p *revision.Page) { p.CreatedAt, p.UpdatedAt = at, at })
	}
	files := []revision.File{{ID: "f1", Name: "a.png", Blob: "b1"}}
	rcs := []revision.ReusableContent{{ID: "r1", Title: "R", Markdown: "r\n"}}
	rb := revision.Revision{Pages: base, Files: files, ReusableContents: rcs}
	next := revision.Revision{
		Pages:            changed,
		Files:            []revision.File{{ID: "f1", Name: "b.png", Blob: "b2", Size: 9}, {ID: "f2", Name: "c.png", Blob: "b3"}},
		ReusableContents: []revision.ReusableContent{{ID: "r2", Title: "S", Markdown: "s\n"}},
	}
	for _, tc := range []struct {
		name         string
		ours, theirs revision.Revision
	}{
		{"ours is base: theirs wins whole", rb, next},
		{"theirs is base: ours stays whole", next, rb},
		{"both are the same", next, next},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := merge.Revisions(rb, tc.ours, tc.theirs)
			if len(got.Conflicts) > 0 {
				t.Fatalf("conflicts: %v", got.Conflicts)
			}
			want := merge.Result{Pages: next.Pages, Files: next.Files, ReusableContents: next.ReusableContents}
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Revisions() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRevisionsFiles(t *testing.T) {
	t.Parallel()
	f := func(id, name, blob string) revision.File {
		return revision.File{ID: id, Name: name, ContentType: "image/png", Blob: blob, Size: int64(len(blob))}
	}
	base := []revision.File{f("1", "one.png", "b1"), f("2", "two.png", "b2"), f("3", "three.png", "b3")}
	with := func(fs []revision.File, g func(fs []revision.File) []revision.File) []revision.File {
		return g(slices.Clone(fs))
	}
	set := func(i int, v revision.File) func(fs []revision.File) []revision.File {
		return func(fs []revision.File) []revision.File { fs[i] = v; return fs }
	}
	del := func(i int) func(fs []revision.File) []revision.File {
		return func(fs []revision.File) []revision.File { return slices.Delete(fs, i, i+1) }
	}
	add := func(v revision.File) func(fs []revision.File) []revision.File {
		return func(fs []revision.File) []revision.File { return append(fs, v) }
	}
	tests := []struct {
		name          string
		ours, theirs  []revision.File
		want          []revision.File
		wantConflicts []string
	}{
		{name: "nothing changed", ours: base, theirs: base, want: base},
		{
			name: "both add files", ours: with(base, add(f("o", "o.png", "bo"))), theirs: with(base, add(f("t", "t.png", "bt"))),
			want: append(slices.Clone(base), f("o", "o.png", "bo"), f("t", "t.png", "bt")),
		},
		{name: "theirs deletes an unchanged file", ours: base, theirs: with(base, del(1)), want: with(base, del(1))},
		{name: "ours deletes an unchanged file", ours: with(base, del(0)), theirs: base, want: with(base, del(0))},
		{
			name: "theirs deletes a file ours replaced: conflict",
			ours: with(base, set(1, f("2", "two.png", "new"))), theirs: with(base, del(1)),
			want: with(base, set(1, f("2", "two.png", "new"))), wantConflicts: []string{"file:2"},
		},
		{
			name: "ours deletes a file theirs renamed: conflict",
			ours: with(base, del(1)), theirs: with(base, set(1, f("2", "2.png", "b2"))),
			want: with(base, del(1)), wantConflicts: []string{"file:2"},
		},
		{
			name: "ours renames, theirs replaces the content: both",
			ours: with(base, set(0, f("1", "uno.png", "b1"))), theirs: with(base, set(0, f("1", "one.png", "b1-new"))),
			want: with(base, set(0, f("1", "uno.png", "b1-new"))),
		},
		{
			name: "both replace the content the same way",
			ours: with(base, set(2, f("3", "three.png", "x"))), theirs: with(base, set(2, f("3", "three.png", "x"))),
			want: with(base, set(2, f("3", "three.png", "x"))),
		},
		{
			name: "both replace the content differently: conflict",
			ours: with(base, set(2, f("3", "three.png", "x"))), theirs: with(base, set(2, f("3", "three.png", "y"))),
			want: with(base, set(2, f("3", "three.png", "x"))), wantConflicts: []string{"file:3"},
		},
		{
			name: "both rename differently: conflict",
			ours: with(base, set(2, f("3", "x.png", "b3"))), theirs: with(base, set(2, f("3", "y.png", "b3"))),
			want: with(base, set(2, f("3", "x.png", "b3"))), wantConflicts: []string{"file:3"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := merge.Revisions(revision.Revision{Files: base}, revision.Revision{Files: tc.ours}, revision.Revision{Files: tc.theirs})
			if diff := cmp.Diff(tc.want, got.Files, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Revisions() files mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantConflicts, conflictIDs(got.Conflicts)); diff != "" {
				t.Errorf("Revisions() conflicts mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRevisionsReusableContents(t *testing.T) {
	t.Parallel()
	rc := func(id, title, markdown string) revision.ReusableContent {
		return revision.ReusableContent{ID: id, Title: title, Markdown: markdown}
	}
	body := "1\n2\n3\n4\n5\n"
	base := []revision.ReusableContent{rc("r1", "One", body), rc("r2", "Two", body)}
	tests := []struct {
		name          string
		ours, theirs  []revision.ReusableContent
		want          []revision.ReusableContent
		wantConflicts []string
	}{
		{name: "nothing changed", ours: base, theirs: base, want: base},
		{
			name:   "different lines and the title merge",
			ours:   []revision.ReusableContent{rc("r1", "Uno", "one\n2\n3\n4\n5\n"), rc("r2", "Two", body)},
			theirs: []revision.ReusableContent{rc("r1", "One", "1\n2\n3\n4\nfive\n"), rc("r2", "Two", body), rc("r3", "New", "n\n")},
			want:   []revision.ReusableContent{rc("r1", "Uno", "one\n2\n3\n4\nfive\n"), rc("r2", "Two", body), rc("r3", "New", "n\n")},
		},
		{
			name:          "the same line changed differently: conflict",
			ours:          []revision.ReusableContent{rc("r1", "One", "1\nours\n3\n4\n5\n"), rc("r2", "Two", body)},
			theirs:        []revision.ReusableContent{rc("r1", "One", "1\ntheirs\n3\n4\n5\n"), rc("r2", "Two", body)},
			want:          []revision.ReusableContent{rc("r1", "One", "1\nours\n3\n4\n5\n"), rc("r2", "Two", body)},
			wantConflicts: []string{"reusable:r1"},
		},
		{
			name:          "deleted by theirs, changed by ours: conflict",
			ours:          []revision.ReusableContent{rc("r1", "One", body), rc("r2", "Deux", body)},
			theirs:        []revision.ReusableContent{rc("r1", "One", body)},
			want:          []revision.ReusableContent{rc("r1", "One", body), rc("r2", "Deux", body)},
			wantConflicts: []string{"reusable:r2"},
		},
		{
			name:   "deleted by ours, left alone by theirs",
			ours:   []revision.ReusableContent{rc("r2", "Two", body)},
			theirs: base,
			want:   []revision.ReusableContent{rc("r2", "Two", body)},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := merge.Revisions(revision.Revision{ReusableContents: base}, revision.Revision{ReusableContents: tc.ours}, revision.Revision{ReusableContents: tc.theirs})
			if diff := cmp.Diff(tc.want, got.ReusableContents, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Revisions() reusable contents mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantConflicts, conflictIDs(got.Conflicts)); diff != "" {
				t.Errorf("Revisions() conflicts mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRevisionsRedirects: redirects merge by their path: one side's
// additions, removals and new pages are kept; both sides sending a path to
// different pages is a conflict naming it.
func TestRevisionsRedirects(t *testing.T) {
	t.Parallel()
	rd := func(path, page string) revision.Redirect { return revision.Redirect{Path: path, Page: page} }
	base := []revision.Redirect{rd("a", "p1"), rd("b", "p2")}
	tests := []struct {
		name          string
		ours, theirs  []revision.Redirect
		want          []revision.Redirect
		wantConflicts []string
	}{
		{name: "nothing changed", ours: base, theirs: base, want: base},
		{name: "none anywhere", want: nil},
		{name: "theirs' import replaced them", ours: base, theirs: []revision.Redirect{rd("b", "p3"), rd("c", "p1")},
			want: []revision.Redirect{rd("b", "p3"), rd("c", "p1")}},
		{name: "each side changed another", ours: []revision.Redirect{rd("a", "p9"), rd("b", "p2")}, theirs: []revision.Redirect{rd("a", "p1"), rd("b", "p8")},
			want: []revision.Redirect{rd("a", "p9"), rd("b", "p8")}},
		{name: "different pages: conflict", ours: []revision.Redirect{rd("a", "p9"), rd("b", "p2")}, theirs: []revision.Redirect{rd("a", "p8"), rd("b", "p2")},
			want: []revision.Redirect{rd("a", "p9"), rd("b", "p2")}, wantConflicts: []string{`redirect "a": sent to different pages on both sides (ours p9, theirs p8)`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := base
			if tc.name == "none anywhere" {
				b = nil
			}
			got := merge.Revisions(revision.Revision{Redirects: b}, revision.Revision{Redirects: tc.ours}, revision.Revision{Redirects: tc.theirs})
			if diff := cmp.Diff(tc.want, got.Redirects); diff != "" {
				t.Errorf("redirects (-want +got):\n%s", diff)
			}
			var reasons []string
			for _, c := range got.Conflicts {
				reasons = append(reasons, c.Reason)
			}
			if diff := cmp.Diff(tc.wantConflicts, reasons); diff != "" {
				t.Errorf("conflicts (-want +got):\n%s", diff)
			}
		})
	}
}

func TestChanged(t *testing.T) {
	t.Parallel()
	base := tree(t, "a b(c d) e(f)")
	tests := []struct {
		name string
		next []revision.Page
		want []string
	}{
		{name: "nothing changed", next: base, want: nil},
		{name: "siblings reordered only", next: tree(t, "e(f) b(d c) a"), want: nil},
		{name: "a page added", next: tree(t, "a b(c x d) e(f)"), want: []string{"x"}},
		{name: "a subtree removed", next: tree(t, "a e(f)"), want: []string{"b", "c", "d"}},
		{name: "markdown changed", next: edit(t, base, "d", replaceLine(2, "new")), want: []string{"d"}},
		{name: "title changed", next: edit(t, base, "a", func(p *revision.Page) { p.Title = "A" }), want: []string{"a"}},
		{name: "moved to another parent", next: tree(t, "a b(c) e(f d)"), want: []string{"d"}},
		{
			name: "a parent's slug changed: its pages' paths too",
			next: edit(t, base, "b", func(p *revision.Page) { p.Slug = "bee" }),
			want: []string{"b", "c", "d"},
		},
		{
			name: "timestamps only",
			next: edit(t, base, "a", func(p *revision.Page) { p.UpdatedAt = time.Now() }),
			want: nil,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := merge.Changed(revision.Revision{Pages: base}, revision.Revision{Pages: tc.next})
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Changed() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
