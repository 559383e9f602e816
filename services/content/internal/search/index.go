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
// their title alone. A term's weight in a section is BM25's: its
// occurrences, saturating and relative to the section's length, times how
// rare the term is among the space's pages, plus the weight of the title
// (or heading) and description holding it; a page's whole title is a
// term too (Exact), so that a query that is a title finds it before the
// titles that hold its words among others. The whole space is built at
// once, so the rarity is exact; a page changed rewrites the lists of its
// own terms and of those whose rarity it changes (spaceStats).
func Build(org, space string, pages []revision.Page) SpaceIndex {
	idx := SpaceIndex{Organization: org, Space: space, Format: IndexFormat, Terms: map[string][]Posting{}}
	secs := sectionsOf(org, space, pages, &idx)
	st := statsOf(secs)
	for _, sec := range secs {
		for term, w := range st.weigh(sec) {
			idx.Terms[term] = append(idx.Terms[term], Posting{Page: sec.page, Section: sec.anchor, Weight: w})
		}
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

// indexedSection is what a section gives the index: its terms in its
// title (the page's title for the first section, else its heading), in
// its page's description (first section only) and counted in its text.
type indexedSection struct {
	page, anchor string
	titleWeight  float64
	title        []string
	description  []string
	counts       map[string]int
	length       int  // terms in the text
	hidden       bool // its page or an ancestor is hidden
}

// sectionsOf adds the Page of each of pages to idx and returns their
// sections' terms.
func sectionsOf(org, space string, pages []revision.Page, idx *SpaceIndex) []indexedSection {
	var out []indexedSection
	flat := revision.Flatten(pages)
	titles, parents, hidden := map[string]string{}, map[string]string{}, map[string]bool{}
	for _, f := range flat {
		titles[f.Page.ID], parents[f.Page.ID] = f.Page.Title, f.Parent
	}
	for _, f := range flat {
		p := f.Page
		hidden[p.ID] = p.Hidden || hidden[f.Parent] // Flatten lists a parent first
		if p.Kind == revision.KindLink {
			continue // a link in the table of contents: nothing to find
		}
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
			sec := indexedSection{page: p.ID, anchor: rs.Anchor, titleWeight: headingWeight, title: Terms(rs.Heading, math.MaxInt), hidden: hidden[p.ID]}
			if i == 0 {
				sec.titleWeight, sec.title, sec.description = pageTitleWeight, phraseTerms(p.Title), Terms(p.Description, math.MaxInt)
				if e := Exact(p.Title); e != "" {
					sec.title = append(sec.title, e)
				}
			}
			title := rs.Heading
			if i == 0 {
				title = p.Title
			}
			if i > 0 || text != "" || len(pg.Sections) == 0 {
				pg.Sections = append(pg.Sections, Section{Anchor: rs.Anchor, Title: title, Body: snippet(text, snippetLength)})
			}
			sec.counts = map[string]int{}
			for _, t := range Tokenize(text) {
				sec.counts[t]++
				sec.length++
			}
			out = append(out, sec)
		}
		pg.Hash = hash(pg)
		idx.Pages = append(idx.Pages, pg)
	}
	return out
}

// spaceStats are what BM25 weighs a term with: in how many pages each
// term is, and how many pages there are, rounded up to a power of two.
// Every weight of a space depends on that count: exact, a page added
// would change it, and the store would rewrite every posting list of the
// space instead of the page's; rounded, it changes when the space doubles.
// For the same reason a section's length is weighed against a fixed
// sectionLength, not the space's mean: a word written anywhere would
// change the mean.
type spaceStats struct {
	pages map[string]int
	n     float64
}

func statsOf(secs []indexedSection) spaceStats {
	st := spaceStats{pages: map[string]int{}}
	seen := map[string]string{} // term → the last page counted
	count := func(page, t string) {
		if seen[t] != page {
			seen[t] = page
			st.pages[t]++
		}
	}
	last := ""
	for _, sec := range secs {
		if sec.page != last {
			st.n++
			last = sec.page
		}
		for _, t := range sec.title {
			count(sec.page, t)
		}
		for _, t := range sec.description {
			count(sec.page, t)
		}
		for t := range sec.counts {
			count(sec.page, t)
		}
	}
	st.n = coarse(st.n)
	return st
}

// coarse is x rounded up to a power of two, at least 1.
func coarse(x float64) float64 { return math.Exp2(math.Ceil(math.Log2(max(1, x)))) }

// weigh scores the terms of a section (see Build); a hidden page's terms
// weigh hiddenFactor of that.
func (st spaceStats) weigh(sec indexedSection) map[string]float64 {
	w := map[string]float64{}
	for _, t := range sec.title {
		w[t] += sec.titleWeight
	}
	for _, t := range sec.description {
		w[t] += descriptionWeight
	}
	norm := bm25K1 * (1 - bm25B + bm25B*max(float64(sec.length), sectionLength)/sectionLength)
	for t, c := range sec.counts {
		tf := float64(c)
		w[t] += bodyWeight * tf * (bm25K1 + 1) / (tf + norm)
	}
	for t := range w {
		idf := st.idf(float64(st.pages[t])) / st.idf(1)
		if sec.hidden {
			idf *= hiddenFactor
		}
		w[t] = math.Round(w[t]*idf*1000) / 1000
	}
	return w
}

// idf is BM25's inverse document frequency of a term in df of the space's
// pages. Weights are of idf/idf(1), a term of one page weighing 1 whatever
// the space's size: spaces are ranked against each other by their pages'
// scores, and a small space's rare term is no less a match than a big one's.
func (st spaceStats) idf(df float64) float64 {
	return math.Log(1 + (st.n-df+0.5)/(df+0.5))
}

// phraseTerms are the terms of a page's title and the phrases of two of
// them in a row (Phrase): a query of the words of a title in their order
// ranks it above pages that have them apart. Headings have none: their
// phrases, nearly all distinct, tripled the posting lists of a space
// (deployments/docs/benchmarks/search.md).
func phraseTerms(title string) []string {
	ts := Tokenize(title)
	out := Terms(title, math.MaxInt)
	for i := 1; i < len(ts); i++ {
		out = append(out, Phrase(ts[i-1], ts[i]))
	}
	return out
}

// keepBestTerms leaves the max terms whose best posting weighs most (ties
// by term, so the same text always keeps the same terms), the words of
// the text before any phrase or whole title (Phrase, Exact): those only
// rank what the words find. Each term's postings are sorted, best first.
func keepBestTerms(terms map[string][]Posting, max int) {
	if len(terms) <= max {
		return
	}
	type best struct {
		term   string
		phrase bool
		weight float64
	}
	all := make([]best, 0, len(terms))
	for t, ps := range terms {
		all = append(all, best{t, strings.ContainsAny(t, "_="), ps[0].Weight})
	}
	slices.SortFunc(all, func(a, b best) int {
		if a.phrase != b.phrase {
			if a.phrase {
				return 1
			}
			return -1
		}
		if c := cmp.Compare(b.weight, a.weight); c != 0 {
			return c
		}
		return strings.Compare(a.term, b.term)
	})
	for _, b := range all[max:] {
		delete(terms, b.term)
	}
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
