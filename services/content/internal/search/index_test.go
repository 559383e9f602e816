package search

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/docspub/platform/services/content/internal/revision"
)

// A space with more distinct terms than MaxTermsPerSpace keeps that many,
// its titles' terms first (they weigh most), the same ones on every build.
func TestBuildKeepsTheBestTermsOfASpace(t *testing.T) {
	var b strings.Builder
	for i := range MaxTermsPerSpace + 5000 {
		fmt.Fprintf(&b, "w%07d ", i)
	}
	pages := []revision.Page{{ID: "p1", Kind: revision.KindDocument, Title: "Zebra handbook", Markdown: b.String()}}
	idx := Build("acme", "s1", pages)
	if len(idx.Terms) != MaxTermsPerSpace {
		t.Fatalf("%d terms, want %d", len(idx.Terms), MaxTermsPerSpace)
	}
	for _, title := range []string{"zebra", "handbook"} {
		if _, ok := idx.Terms[title]; !ok {
			t.Errorf("the title's term %q was left out", title)
		}
	}
	for _, phrase := range []string{Phrase("zebra", "handbook"), Exact("Zebra handbook")} {
		if _, ok := idx.Terms[phrase]; ok {
			t.Errorf("the title's phrase %q was kept before the text's words", phrase)
		}
	}
	again := Build("acme", "s1", pages)
	for term := range idx.Terms {
		if _, ok := again.Terms[term]; !ok {
			t.Fatalf("%q kept once, left out the next build", term)
		}
	}
}

// A page edited, or one more page, changes the postings of its own terms
// and of few others: the store rewrites the lists that changed, not the
// space's.
func TestBuildChangesFewListsForOnePage(t *testing.T) {
	var pages []revision.Page
	for i := range 60 {
		md := fmt.Sprintf("Common words here and topic%d there.\n\n## Part\n\nMore common text of topic%d.\n", i, i)
		pages = append(pages, revision.Page{ID: fmt.Sprintf("p%d", i), Kind: revision.KindDocument, Title: fmt.Sprintf("Page %d", i), Markdown: md})
	}
	before := Build("acme", "s1", pages)
	edited := slices.Clone(pages)
	edited[7].Markdown += "\nA sentence more about zebras.\n"
	for name, after := range map[string]SpaceIndex{
		"edited":   Build("acme", "s1", edited),
		"one more": Build("acme", "s1", append(slices.Clone(pages), revision.Page{ID: "new", Kind: revision.KindDocument, Title: "New", Markdown: "Common words.\n"})),
	} {
		changed := 0
		for term, ps := range after.Terms {
			if TermHash(ps) != TermHash(before.Terms[term]) {
				changed++
			}
		}
		if changed > 10 {
			t.Errorf("%s: %d of %d posting lists changed", name, changed, len(after.Terms))
		}
	}
}
