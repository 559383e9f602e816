package merge_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/services/content/internal/merge"
	"github.com/docspub/platform/services/content/internal/revision"
)

// benchSpace is a space of 100 groups of 9 documents (1,000 pages), each
// document about 40 lines of markdown, and the edits of two sides: theirs
// changes 100 pages, ours 50 others.
func benchSpace(tb testing.TB) (base, ours, theirs revision.Revision, oursEdited, theirsEdited []string) {
	tb.Helper()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	body := func(id string) string {
		var b strings.Builder
		for i := 1; i <= 40; i++ {
			switch i % 8 {
			case 0:
				b.WriteString("\n")
			case 1:
				fmt.Fprintf(&b, "## Section %d of %s\n", i/8+1, id)
			default:
				fmt.Fprintf(&b, "Line %d of page %s explains one more thing about the product in plain words.\n", i, id)
			}
		}
		return b.String()
	}
	page := func(id, kind string) revision.Page {
		p := revision.Page{ID: id, Kind: kind, Title: "Page " + id, Slug: "page-" + id, CreatedAt: at, UpdatedAt: at}
		if kind == revision.KindDocument {
			p.Markdown = body(id)
		}
		return p
	}
	var pages []revision.Page
	for g := range 100 {
		grp := page(fmt.Sprintf("g%03d", g), revision.KindGroup)
		for d := range 9 {
			grp.Pages = append(grp.Pages, page(fmt.Sprintf("g%03dd%d", g, d), revision.KindDocument))
		}
		pages = append(pages, grp)
	}
	base = revision.Revision{ID: "base", Pages: pages}
	ours = revision.Revision{ID: "ours", Pages: clonePages(pages)}
	theirs = revision.Revision{ID: "theirs", Pages: clonePages(pages)}
	for g := range 100 {
		// theirs: one document of every group, a line rewritten and one added.
		d := &theirs.Pages[g].Pages[g%9]
		d.Markdown = strings.Replace(d.Markdown, "Line 20 ", "Line twenty ", 1) + "A line theirs added.\n"
		d.UpdatedAt = at.Add(time.Hour)
		theirsEdited = append(theirsEdited, d.ID)
		// ours: another document of every other group, its title and a line.
		if g%2 == 0 {
			d := &ours.Pages[g].Pages[(g+4)%9]
			d.Title += " (revised)"
			d.Markdown = strings.Replace(d.Markdown, "Line 3 ", "Line three ", 1)
			d.UpdatedAt = at.Add(2 * time.Hour)
			oursEdited = append(oursEdited, d.ID)
		}
	}
	if len(revision.Flatten(base.Pages)) != 1000 || len(theirsEdited) != 100 || len(oursEdited) != 50 {
		tb.Fatalf("bench space: %d pages, %d/%d edited", len(revision.Flatten(base.Pages)), len(theirsEdited), len(oursEdited))
	}
	return base, ours, theirs, oursEdited, theirsEdited
}

// TestBenchSpace checks that the benchmark measures a real, clean merge.
func TestBenchSpace(t *testing.T) {
	t.Parallel()
	base, ours, theirs, oe, te := benchSpace(t)
	r := merge.Revisions(base, ours, theirs)
	if len(r.Conflicts) > 0 {
		t.Fatalf("conflicts: %v", r.Conflicts)
	}
	got := merge.Changed(base, revision.Revision{Pages: r.Pages})
	want := append(slices.Clone(oe), te...)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("merged pages changed = %d pages, want the %d both sides edited", len(got), len(want))
	}
	for _, id := range te {
		f, _ := (&revision.Revision{Pages: r.Pages}).FindPage(id)
		if !strings.Contains(f.Page.Markdown, "Line twenty") {
			t.Fatalf("page %s lost theirs' edit", id)
		}
	}
}

func BenchmarkMerge100Of1000(b *testing.B) {
	base, ours, theirs, _, _ := benchSpace(b)
	var times []time.Duration
	for b.Loop() {
		start := time.Now()
		r := merge.Revisions(base, ours, theirs)
		times = append(times, time.Since(start))
		if len(r.Conflicts) > 0 {
			b.Fatalf("conflicts: %v", r.Conflicts)
		}
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2])/float64(time.Millisecond), "ms/merge-p50")
}
