package search

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math/bits"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/paging"
	"github.com/docspub/platform/libs/sizedcache"
	"github.com/docspub/platform/services/content/internal/links"
	"github.com/docspub/platform/services/content/internal/revision"
)

// Service indexes spaces and answers searches.
type Service struct {
	store Store
	urls  links.URLs
	// results holds result pages under what they were made from
	// (resultKey): a query asked again, of spaces unchanged, by a caller
	// reading the same spaces, is answered without ranking again.
	results *sizedcache.Cache[resultKey, *kept]
	// resultMax is the weight of the largest result page kept: a larger
	// one is answered but not kept, so that one caller's large result
	// never pushes out many others'.
	resultMax int64
}

// New returns a service over store.
func New(store Store, urls links.URLs) *Service {
	return &Service{store: store, urls: urls,
		results:   sizedcache.New[resultKey, *kept](resultEntries, resultBytes).Observe("content.search.results"),
		resultMax: resultMaxBytes}
}

// KeepingResultsUpTo makes s keep only result pages weighing at most
// bytes (resultSize, with their encoding); by default resultMaxBytes.
func (s *Service) KeepingResultsUpTo(bytes int64) *Service {
	s.resultMax = bytes
	return s
}

// IndexRevision makes pages the space's indexed content, replacing what was
// indexed before. Call it after a space's content changed; calling it again
// with the same pages changes nothing.
func (s *Service) IndexRevision(ctx context.Context, org, spaceID string, pages []revision.Page) error {
	if err := s.store.ReplaceSpace(ctx, Build(org, spaceID, pages)); err != nil {
		return fmt.Errorf("index space %s: %w", spaceID, err)
	}
	return nil
}

// RemoveSpace drops a space from the index (a deleted space).
func (s *Service) RemoveSpace(ctx context.Context, spaceID string) error {
	if err := s.store.RemoveSpace(ctx, spaceID); err != nil {
		return fmt.Errorf("unindex space %s: %w", spaceID, err)
	}
	return nil
}

// Cursor is the place of the last space of a result page in the ranking.
type Cursor struct {
	Matched int
	Score   float64
	Space   string
}

// Result is one page of search results: spaces in rank order, Count the
// spaces with hits, the next page's cursor holding the last one's Cursor
// keys (matched, score, space).
type Result = paging.List[SpaceResult]

// SpaceResult is a space with its best pages (api.md "search result item").
type SpaceResult struct {
	Type  string       `json:"type"` // always "space"
	ID    string       `json:"id"`
	Title string       `json:"title"`
	Score float64      `json:"score"`
	Pages []PageResult `json:"pages"`
}

// PageResult is a page with its best sections.
type PageResult struct {
	ID          string          `json:"id"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	Path        string          `json:"path"`
	Score       float64         `json:"score"`
	Rank        int             `json:"rank"`
	ResultType  string          `json:"resultType"` // "page"
	Ancestors   []Ancestor      `json:"ancestors"`
	Sections    []SectionResult `json:"sections"`
	URLs        URLs            `json:"urls"`
}

// SectionResult is a section of a page that matched.
type SectionResult struct {
	ID         string  `json:"id"` // page id, then "#" and the anchor for a heading's section
	Title      string  `json:"title"`
	Path       string  `json:"path"` // page path, then "#" and the anchor
	Score      float64 `json:"score"`
	ResultType string  `json:"resultType"` // "section"
	Body       string  `json:"body"`
	URLs       URLs    `json:"urls"`
}

// Ancestor is a parent page of a hit.
type Ancestor struct {
	Title string `json:"title"`
}

// URLs of a hit.
type URLs struct {
	App string `json:"app"`
}

type sectionHit struct {
	anchor string
	mask   uint32
	score  float64
}

type pageHit struct {
	key      PageKey
	mask     uint32
	score    float64
	sections []sectionHit // a page has few sections: a slice searched in turn beats a map
	// best and others are the weights of the term being gathered: its
	// best section's and the sum of the others'.
	best, others float64
}

// How much a page's sections other than its best weigh, per term: a share
// of their weights, at most maxOthers times the best's.
const (
	otherSections = 0.1
	maxOthers     = 3.0
)

type spaceHit struct {
	id    string
	best  *pageHit
	pages []*pageHit
}

func (p *pageHit) matched() int { return bits.OnesCount32(p.mask) }

// rank orders hits: more of the query's terms first, then higher score, then id.
func rank(am, bm int, as, bs float64, aid, bid string) int {
	if c := cmp.Compare(bm, am); c != 0 {
		return c
	}
	if c := cmp.Compare(bs, as); c != 0 {
		return c
	}
	return cmp.Compare(aid, bid)
}

// Search finds query in the spaces of org that the caller can read
// (spaces: their titles by id) and answers up to limit spaces after the
// cursor (nil: from the top). Hits rank by how many of the query's terms
// they have, then by their terms' weights (Build: a term in a title weighs
// more than in a body, a rare term more than a common one), each term
// counted in a page's best section (pageHits), plus the weights of the
// query's phrases found in page titles, and of a page title that
// is the whole query. A query reads the postings of at most
// MaxQueryTerms terms, MaxQueryPhrases phrases and its Exact term.
func (s *Service) Search(ctx context.Context, org string, spaces map[string]string, query string, limit int, after *Cursor) (Result, error) {
	k, err := s.search(ctx, org, spaces, query, limit, after)
	if err != nil {
		return Result{}, err
	}
	return k.res, nil
}

// SearchJSON is Search's result page encoded as JSON, encoded once for
// as long as the result is kept (results).
func (s *Service) SearchJSON(ctx context.Context, org string, spaces map[string]string, query string, limit int, after *Cursor) (Encoded, error) {
	k, err := s.search(ctx, org, spaces, query, limit, after)
	if err != nil {
		return Encoded{}, err
	}
	return k.encoded()
}

// search is Search's result page as kept in results.
func (s *Service) search(ctx context.Context, org string, spaces map[string]string, query string, limit int, after *Cursor) (*kept, error) {
	query, limit, err := checkSearch(query, limit)
	if err != nil {
		return nil, err
	}
	terms := Terms(query, MaxQueryTerms)
	phrases := Phrases(query, MaxQueryPhrases)
	if e := Exact(query); e != "" {
		phrases = append(phrases, e)
	}
	if len(terms) == 0 || len(spaces) == 0 {
		return &kept{res: Result{Items: []SpaceResult{}}}, nil
	}

	r, err := s.store.Reader(ctx, org)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	sorted := slices.Sorted(maps.Keys(spaces))
	key := keyOf(org, query, limit, after, sorted, spaces, r)
	if k, ok := s.results.Get(key); ok {
		return k, nil
	}
	byTerm, err := r.Postings(ctx, sorted, append(slices.Clone(terms), phrases...))
	if err != nil {
		return nil, fmt.Errorf("search postings: %w", err)
	}
	hits := spaceHits(pageHits(terms, phrases, byTerm, spaces))
	ranked := rankSpaces(hits, after)
	page, _ := paging.Fetch(paging.Request{Limit: limit}, func(n int) ([]*spaceHit, int, error) {
		return ranked[:min(n, len(ranked))], len(hits), nil
	}, func(sh *spaceHit) string { return paging.Cursor(sh.best.matched(), sh.best.score, sh.id) })
	items, err := s.view(ctx, r, page.Items, spaces)
	if err != nil {
		return nil, err
	}
	k := &kept{res: paging.With(page, items)}
	if size := 2 * resultSize(k.res); size <= s.resultMax { // and its encoding, once made
		s.results.Add(key, k, size)
	}
	return k, nil
}

// checkSearch checks a search's query and limit and returns them
// trimmed and defaulted.
func checkSearch(query string, limit int) (string, int, error) {
	query = strings.TrimSpace(query)
	switch n := utf8.RuneCountInString(query); {
	case n == 0:
		return "", 0, apierr.Invalid("query", "is required")
	case n > MaxQueryLength:
		return "", 0, apierr.Invalid("query", "must be at most %d characters", MaxQueryLength)
	}
	switch {
	case limit == 0:
		limit = DefaultLimit
	case limit < 0 || limit > MaxLimit:
		return "", 0, apierr.Invalid("limit", "must be from 1 to %d", MaxLimit)
	}
	return query, limit, nil
}

// pageHits gathers the postings of the readable spaces by page and
// section: which of the terms each has (bit i for terms[i]; a phrase adds
// weight, not a term matched) and their weights. A section scores the sum
// of its terms' weights; a page, per term, its best section's weight and
// a little of its others' (otherSections): a long page that names a term in
// many sections does not outrank the page about it.
func pageHits(terms, phrases []string, byTerm map[string]map[string][]Posting, readable map[string]string) []pageHit {
	n := 0
	for _, ps := range byTerm {
		for _, p := range ps {
			n += len(p)
		}
	}
	pages := make([]pageHit, 0, n) // one allocation for all, found by index
	index := make(map[PageKey]int, n)
	var touched []int // the pages of the current term
	for i, term := range append(slices.Clone(terms), phrases...) {
		touched = touched[:0]
		for space, ps := range byTerm[term] {
			if _, ok := readable[space]; !ok {
				continue
			}
			for _, p := range ps {
				k := PageKey{Space: space, Page: p.Page}
				at, ok := index[k]
				if !ok {
					at = len(pages)
					index[k] = at
					pages = append(pages, pageHit{key: k})
				}
				ph := &pages[at]
				if ph.best == 0 && ph.others == 0 {
					touched = append(touched, at)
				}
				ph.add(p, i, i < len(terms))
			}
		}
		for _, at := range touched {
			ph := &pages[at]
			ph.score += ph.best + otherSections*min(ph.others, maxOthers*ph.best)
			ph.best, ph.others = 0, 0
		}
	}
	return pages
}

// add counts a posting of the query's term i (a term matched, or a
// phrase) in the page's section.
func (ph *pageHit) add(p Posting, i int, matched bool) {
	j := slices.IndexFunc(ph.sections, func(h sectionHit) bool { return h.anchor == p.Section })
	if j < 0 {
		j = len(ph.sections)
		ph.sections = append(ph.sections, sectionHit{anchor: p.Section})
	}
	sh := &ph.sections[j]
	if matched {
		ph.mask |= 1 << i
		sh.mask |= 1 << i
	}
	sh.score += p.Weight
	if p.Weight > ph.best {
		ph.best, p.Weight = p.Weight, ph.best
	}
	ph.others += p.Weight
}

// spaceHits groups page hits by space, each space with its best page.
func spaceHits(pages []pageHit) map[string]*spaceHit {
	spaces := map[string]*spaceHit{}
	for i := range pages {
		ph := &pages[i]
		sh := spaces[ph.key.Space]
		if sh == nil {
			sh = &spaceHit{id: ph.key.Space}
			spaces[ph.key.Space] = sh
		}
		sh.pages = append(sh.pages, ph)
		if sh.best == nil || rank(ph.matched(), sh.best.matched(), ph.score, sh.best.score, ph.key.Page, sh.best.key.Page) < 0 {
			sh.best = ph
		}
	}
	return spaces
}

// rankSpaces orders the spaces by their best pages, leaving out those up
// to the cursor.
func rankSpaces(spaces map[string]*spaceHit, after *Cursor) []*spaceHit {
	ranked := make([]*spaceHit, 0, len(spaces))
	for _, sh := range spaces {
		if after != nil && rank(sh.best.matched(), after.Matched, sh.best.score, after.Score, sh.id, after.Space) <= 0 {
			continue
		}
		ranked = append(ranked, sh)
	}
	slices.SortFunc(ranked, func(a, b *spaceHit) int {
		return rank(a.best.matched(), b.best.matched(), a.best.score, b.best.score, a.id, b.id)
	})
	return ranked
}

// view loads the metadata of the best pages of each space and shapes the
// result, each space named by its title in titles.
func (s *Service) view(ctx context.Context, r Reader, ranked []*spaceHit, titles map[string]string) ([]SpaceResult, error) {
	var keys []PageKey
	for _, sh := range ranked {
		sh.pages = first(sh.pages, MaxPagesPerSpace, func(a, b *pageHit) int {
			return rank(a.matched(), b.matched(), a.score, b.score, a.key.Page, b.key.Page)
		})
		for _, ph := range sh.pages {
			keys = append(keys, ph.key)
		}
	}
	meta, err := r.Pages(ctx, keys)
	if err != nil {
		return nil, fmt.Errorf("search pages: %w", err)
	}
	items := make([]SpaceResult, 0, len(ranked))
	for _, sh := range ranked {
		item := SpaceResult{Type: "space", ID: sh.id, Title: titles[sh.id], Score: sh.best.score, Pages: []PageResult{}}
		for _, ph := range sh.pages {
			pg, ok := meta[ph.key]
			if !ok {
				continue // indexed meanwhile without this page
			}
			item.Pages = append(item.Pages, s.pageResult(sh.id, pg, ph, len(item.Pages)+1))
		}
		items = append(items, item)
	}
	return items, nil
}

func (s *Service) pageResult(space string, pg Page, ph *pageHit, rank int) PageResult {
	app := s.urls.InApp("/s/" + space + "/" + pg.Path)
	out := PageResult{
		ID: pg.ID, Title: pg.Title, Description: pg.Description, Path: pg.Path, Score: ph.score,
		Rank: rank, ResultType: "page", Ancestors: []Ancestor{}, Sections: []SectionResult{}, URLs: URLs{App: app},
	}
	for _, a := range pg.Ancestors {
		out.Ancestors = append(out.Ancestors, Ancestor{Title: a})
	}
	hits := make([]*sectionHit, len(ph.sections))
	for i := range ph.sections {
		hits[i] = &ph.sections[i]
	}
	slices.SortFunc(hits, rank2)
	for _, h := range hits {
		if len(out.Sections) == MaxSectionsPerPage {
			break
		}
		i := slices.IndexFunc(pg.Sections, func(sec Section) bool { return sec.Anchor == h.anchor })
		if i < 0 {
			continue
		}
		sec := pg.Sections[i]
		id, path, url := pg.ID, pg.Path, app
		if sec.Anchor != "" {
			id, path, url = id+"#"+sec.Anchor, path+"#"+sec.Anchor, url+"#"+sec.Anchor
		}
		out.Sections = append(out.Sections, SectionResult{
			ID: id, Title: sec.Title, Path: path, Score: h.score, ResultType: "section", Body: sec.Body, URLs: URLs{App: url},
		})
	}
	return out
}

func rank2(a, b *sectionHit) int {
	return rank(bits.OnesCount32(a.mask), bits.OnesCount32(b.mask), a.score, b.score, a.anchor, b.anchor)
}

// first returns the n first of items in cmp's order, in that order,
// without sorting all of them: a space's hundreds of pages for its ten best.
func first[T any](items []T, n int, cmp func(a, b T) int) []T {
	if len(items) <= n {
		slices.SortFunc(items, cmp)
		return items
	}
	top := make([]T, 0, n+1)
	for _, it := range items {
		if len(top) == n && cmp(it, top[n-1]) >= 0 {
			continue
		}
		i, _ := slices.BinarySearchFunc(top, it, cmp)
		top = slices.Insert(top, i, it)
		if len(top) > n {
			top = top[:n]
		}
	}
	return top
}
