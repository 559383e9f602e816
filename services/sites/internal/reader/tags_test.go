package reader

import (
	"fmt"
	"slices"
	"testing"

	"github.com/docspub/platform/libs/internalapi/readerapi"
	"github.com/docspub/platform/services/sites/internal/site"
)

// TestTagsBounded: an answer is tagged with its organization, site and
// every space shown, up to readerapi.MaxSpaceTags; a site of more spaces
// by organization and site alone.
func TestTagsBounded(t *testing.T) {
	with := func(n int) *read {
		sec := &vsection{}
		for i := range n {
			sec.variants = append(sec.variants, &variant{ss: site.SiteSpace{Space: fmt.Sprintf("sp%d", i)}})
		}
		return &read{site: &site.Site{ID: "s1", Organization: "o1"}, st: &structure{all: []*vsection{sec}}}
	}
	small := with(2).tags()
	if want := []string{"org:o1", "site:s1", "space:sp0", "space:sp1"}; !slices.Equal(small, want) {
		t.Errorf("tags %q, want %q", small, want)
	}
	if n := len(with(readerapi.MaxSpaceTags).tags()); n != readerapi.MaxSpaceTags+2 {
		t.Errorf("%d tags at the bound", n)
	}
	if big := with(readerapi.MaxSpaceTags + 1).tags(); !slices.Equal(big, []string{"org:o1", "site:s1"}) {
		t.Errorf("past the bound: %d tags", len(big))
	}
}
