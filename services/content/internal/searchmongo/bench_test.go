package searchmongo_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/services/content/internal/links"
	"github.com/docspub/platform/services/content/internal/revision"
	"github.com/docspub/platform/services/content/internal/search"
	"github.com/docspub/platform/services/content/internal/searchmongo"
)

// BenchmarkSearch10kPages indexes 10,000 pages (10 spaces of 1,000, words
// drawn from a Zipf distribution over a 5,000-word vocabulary) on the
// embedded server and measures 200 distinct queries of one to three terms,
// asked in turn, reporting the median and 99th percentile latency of all
// (ms-p50, ms-p99) and of each query's first run (ms-p50-first: terms
// and pages not read before, the store's cache cold for them). The index
// does not change meanwhile: every run after a query's first hits the
// cache. Run it with -benchtime 1000x (make bench).
func BenchmarkSearch10kPages(b *testing.B) {
	ctx := context.Background()
	db := mongotest.Database(b)
	if err := searchmongo.EnsureIndexes(ctx, db); err != nil {
		b.Fatal(err)
	}
	st := searchmongo.NewStore(db)
	svc := search.New(st, links.New("http://gw.test", "http://app.test"))

	rng := rand.New(rand.NewPCG(1, 2))
	vocab := make([]string, 5000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%dx", i)
	}
	zipf := rand.NewZipf(rng, 1.1, 2, uint64(len(vocab)-1))
	words := func(n int) string {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = vocab[zipf.Uint64()]
		}
		return strings.Join(ws, " ")
	}
	const spaces, perSpace = 10, 1000
	var idxs []search.SpaceIndex
	spaceIDs := map[string]string{}
	start := time.Now()
	for s := range spaces {
		id := fmt.Sprintf("space%02d", s)
		spaceIDs[id] = "Space " + id
		pages := make([]revision.Page, perSpace)
		for p := range pages {
			md := words(40) + "\n\n## " + words(3) + "\n\n" + words(40) + "\n\n## " + words(2) + "\n\n" + words(30) + "\n"
			pages[p] = revision.Page{ID: fmt.Sprintf("%s-p%04d", id, p), Kind: revision.KindDocument, Title: words(3), Slug: fmt.Sprintf("page-%d", p), Markdown: md}
		}
		idxs = append(idxs, search.Build("acme", id, pages))
	}
	b.Logf("built in %s", time.Since(start).Round(time.Millisecond))
	if err := st.Load(ctx, idxs); err != nil {
		b.Fatal(err)
	}
	b.Logf("indexed %d pages in %s", spaces*perSpace, time.Since(start).Round(time.Millisecond))

	// Mixed queries: a rare or a common word alone, and two or three words.
	queries := make([]string, 200)
	for i := range queries {
		n := 1 + i%3
		ws := make([]string, n)
		for j := range ws {
			ws[j] = vocab[rng.IntN(len(vocab)/(1+j*4))]
		}
		queries[i] = strings.Join(ws, " ")
	}
	var lat, first []time.Duration
	i := 0
	for b.Loop() {
		q := queries[i%len(queries)]
		t := time.Now()
		if _, err := svc.Search(ctx, "acme", spaceIDs, q, 0, nil); err != nil {
			b.Fatal(err)
		}
		d := time.Since(t)
		lat = append(lat, d)
		if i < len(queries) {
			first = append(first, d)
		}
		i++
	}
	pct := func(lat []time.Duration, p float64) float64 {
		slices.Sort(lat)
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(lat, 0.50), "ms-p50")
	b.ReportMetric(pct(lat, 0.99), "ms-p99")
	b.ReportMetric(pct(first, 0.50), "ms-p50-first")
}
