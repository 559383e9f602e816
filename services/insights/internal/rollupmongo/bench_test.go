package rollupmongo_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/insights/internal/rollup"
	"github.com/docspub/platform/services/insights/internal/rollupmongo"
	"github.com/docspub/platform/services/insights/internal/visit"
)

// BenchmarkAggregateYear rolls up BENCH_EVENTS events (default 1,000,000)
// spread over the last 365 days into the embedded database, once, then
// answers two lastYear queries b.N times each: events per day
// (datetime/day) and the top 10 urlPath by events; it reports their p50 and p95.
//
//	go test -run '^$' -bench AggregateYear -benchtime 20x -timeout 60m ./services/insights/internal/rollupmongo/
func BenchmarkAggregateYear(b *testing.B) {
	ctx := context.Background()
	year.once.Do(func() { year.store, year.now = loadYear(b) })
	store, now := year.store, year.now
	if store == nil {
		b.Fatal("the year of events could not be rolled up")
	}
	byDay := &rollup.Request{Range: []byte(`"lastYear"`),
		Select:  []rollup.ColumnRef{{Column: "datetime", Interval: ptr("day")}, {Column: "eventsCount"}},
		GroupBy: []rollup.ColumnRef{{Column: "datetime", Interval: ptr("day")}}}
	topPaths := &rollup.Request{Range: []byte(`"lastYear"`), Limit: ptr(10),
		Select:  []rollup.ColumnRef{{Column: "urlPath"}, {Column: "eventsCount"}},
		GroupBy: []rollup.ColumnRef{{Column: "urlPath"}},
		Order:   &rollup.Order{By: &rollup.ColumnRef{Column: "eventsCount"}, Direction: "desc"}}
	var days, paths []time.Duration
	b.ResetTimer()
	for range b.N {
		for _, q := range []struct {
			req *rollup.Request
			out *[]time.Duration
		}{{byDay, &days}, {topPaths, &paths}} {
			t0 := time.Now()
			res, err := rollup.Aggregate(ctx, store, "site", q.req, now)
			if err != nil {
				b.Fatal(err)
			}
			*q.out = append(*q.out, time.Since(t0))
			if len(res.Columns[0].Values) == 0 {
				b.Fatal("empty answer")
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(ms(pct(days, 50)), "byDay-p50-ms")
	b.ReportMetric(ms(pct(days, 95)), "byDay-p95-ms")
	b.ReportMetric(ms(pct(paths, 50)), "topPaths-p50-ms")
	b.ReportMetric(ms(pct(paths, 95)), "topPaths-p95-ms")
}

// year is the rolled-up year, loaded once per process (the benchmark
// function runs more than once).
var year struct {
	once  sync.Once
	store *rollupmongo.Store
	now   time.Time
}

// loadYear rolls up BENCH_EVENTS events over the last 365 days into a
// database of its own (it goes with the package's server).
func loadYear(b *testing.B) (*rollupmongo.Store, time.Time) {
	n := 1_000_000
	if s := os.Getenv("BENCH_EVENTS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	ctx := context.Background()
	store := rollupmongo.NewStore(mongox.NewDB(mongotest.Client(b).Database(mongotest.DatabaseName())))
	now := time.Now().UTC()
	start := now.Add(-365 * 24 * time.Hour)
	rng := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(rng, 1.2, 1, 199)
	browsers := []string{"chrome", "chrome", "safari", "firefox", "edge"}
	oses := []string{"windows", "macos", "ios", "android", "linux"}
	devices := []string{"desktop", "desktop", "mobile", "tablet"}
	types := []string{"page_view", "page_view", "page_view", "page_view", "search_type_query", "link_click"}
	refs := []string{"", "", "google.com", "github.com", "news.ycombinator.com"}
	step := 365 * 24 * time.Hour / time.Duration(n)
	applier := rollup.NewApplier(store, nil)
	const chunk = 50000
	loadStart := time.Now()
	for i := 0; i < n; i += chunk {
		vs := make([]visit.Visit, 0, chunk)
		for j := i; j < min(n, i+chunk); j++ {
			vs = append(vs, visit.Visit{
				Time:    start.Add(time.Duration(j) * step),
				Visitor: fmt.Sprintf("v%d", rng.IntN(50000)), Session: fmt.Sprintf("s%d", j/5),
				Dims: visit.Dims{EventType: types[rng.IntN(len(types))], URLPath: fmt.Sprintf("/docs/page-%d", zipf.Uint64()),
					Browser: browsers[rng.IntN(len(browsers))], OS: oses[rng.IntN(len(oses))], Device: devices[rng.IntN(len(devices))],
					ReferrerDomain: refs[rng.IntN(len(refs))], DisplayContext: "site"},
			})
		}
		for attempt := 1; ; attempt++ { // as the consumer does: a slow database is retried
			err := applier.Apply(ctx, []rollup.Batch{{ID: fmt.Sprint("bench-", i), Org: "o", Site: "site", Visits: vs}})
			if err == nil {
				break
			}
			if attempt == 5 {
				b.Fatal(err)
			}
			b.Logf("apply (attempt %d): %v", attempt, err)
		}
		if (i/chunk)%4 == 3 {
			b.Logf("%d events rolled up in %s", i+chunk, time.Since(loadStart).Round(time.Second))
		}
	}
	b.Logf("rolled up %d events in %s", n, time.Since(loadStart).Round(time.Second))
	return store, now
}

func ptr[T any](v T) *T { return &v }

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func pct(d []time.Duration, p int) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[(len(s)-1)*p/100]
}
