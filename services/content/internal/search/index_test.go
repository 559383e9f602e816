package search

import (
	"fmt"
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
	again := Build("acme", "s1", pages)
	for term := range idx.Terms {
		if _, ok := again.Terms[term]; !ok {
			t.Fatalf("%q kept once, left out the next build", term)
		}
	}
}
