package search

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"slices"
	"strings"

	"github.com/docspub/platform/services/content/internal/revision"
)

// Build makes the index entries of a space's pages: one Page per page with
// its sections, and the postings of every term. Group pages are indexed by
// their title alone.
func Build(org, space string, pages []revision.Page) SpaceIndex {
	idx := SpaceIndex{Organization: org, Space: space, Terms: map[string][]Posting{}}
	flat := revision.Flatten(pages)
	titles, parents := map[string]string{}, map[string]string{}
	for _, f := range flat {
		titles[f.Page.ID], parents[f.Page.ID] = f.Page.Title, f.Parent
	}
	for _, f := range flat {
		p := f.Page
		pg := Page{
			Organization: org, Space: space, ID: p.ID, Title: p.Title, Description: p.Description,
			Path: f.Path, Ancestors: []string{},
		}
		for id := f.Parent; id != ""; id = parents[id] {
			pg.Ancestors = append([]string{titles[id]}, pg.Ancestors...)
		}
		md := ""
		if p.Kind != revision.KindGroup {
			md = withoutConditions(p.Markdown)
		}
		for i, rs := range splitSections(md) {
			text := plain(rs.Text)
			title := rs.Heading
			if i == 0 {
				title = p.Title
			}
			if i > 0 || text != "" || len(pg.Sections) == 0 {
				pg.Sections = append(pg.Sections, Section{Anchor: rs.Anchor, Title: title, Body: snippet(text, snippetLength)})
			}
			tw := headingWeight
			if i == 0 {
				tw = pageTitleWeight
			}
			for term, w := range weigh(title, tw, text) {
				idx.Terms[term] = append(idx.Terms[term], Posting{Page: p.ID, Section: rs.Anchor, Weight: w})
			}
		}
		pg.Hash = hash(pg)
		idx.Pages = append(idx.Pages, pg)
	}
	for term, ps := range idx.Terms {
		slices.SortStableFunc(ps, func(a, b Posting) int { return cmp.Compare(b.Weight, a.Weight) })
		if len(ps) > MaxPostingsPerTerm {
			ps = ps[:MaxPostingsPerTerm]
		}
		idx.Terms[term] = ps
	}
	keepBestTerms(idx.Terms, MaxTermsPerSpace)
	return idx
}

// keepBestTerms leaves the max terms whose best posting weighs most (ties
// by term, so the same text always keeps the same terms). Each term's
// postings are sorted, best first.
func keepBestTerms(terms map[string][]Posting, max int) {
	if len(terms) <= max {
		return
	}
	type best struct {
		term   string
		weight float64
	}
	all := make([]best, 0, len(terms))
	for t, ps := range terms {
		all = append(all, best{t, ps[0].Weight})
	}
	slices.SortFunc(all, func(a, b best) int {
		if c := cmp.Compare(b.weight, a.weight); c != 0 {
			return c
		}
		return strings.Compare(a.term, b.term)
	})
	for _, b := range all[max:] {
		delete(terms, b.term)
	}
}

// weigh scores the terms of a section: titleWeight for a term of its title,
// plus 1+ln(n) for n occurrences in its text.
func weigh(title string, titleWeight float64, text string) map[string]float64 {
	w := map[string]float64{}
	for _, t := range Terms(title, math.MaxInt) {
		w[t] += titleWeight
	}
	n := map[string]int{}
	for _, t := range Tokenize(text) {
		n[t]++
	}
	for t, c := range n {
		w[t] += bodyWeight * (1 + math.Log(float64(c)))
	}
	for t := range w {
		w[t] = math.Round(w[t]*1000) / 1000
	}
	return w
}

func hash(p Page) string {
	p.Hash = ""
	b, _ := json.Marshal(p)
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:12])
}

// TermHash fingerprints a term's postings, so that a store rewrites only the
// terms whose postings changed.
func TermHash(ps []Posting) string {
	b, _ := json.Marshal(ps)
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:12])
}
