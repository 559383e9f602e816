package rollupmongo_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/insights/internal/rollup"
	"github.com/docspub/platform/services/insights/internal/rollupmongo"
	"github.com/docspub/platform/services/insights/internal/visit"
	"github.com/docspub/platform/services/insights/internal/visitbin"
)

// timed is the store with the time spent in each of its methods.
type timed struct {
	*rollupmongo.Store
	mu    sync.Mutex
	spent map[string]time.Duration
}

func (s *timed) note(name string, t0 time.Time) {
	s.mu.Lock()
	s.spent[name] += time.Since(t0)
	s.mu.Unlock()
}

func (s *timed) Claim(ctx context.Context, chunk string, ids []string) (map[string]bool, error) {
	defer s.note("Claim", time.Now())
	return s.Store.Claim(ctx, chunk, ids)
}

func (s *timed) SaveChunk(ctx context.Context, c rollup.Chunk) error {
	defer s.note("SaveChunk", time.Now())
	return s.Store.SaveChunk(ctx, c)
}

func (s *timed) DropChunk(ctx context.Context, id string) error {
	defer s.note("DropChunk", time.Now())
	return s.Store.DropChunk(ctx, id)
}

func (s *timed) Buckets(ctx context.Context, site string, keys []rollup.Key, sets bool) ([]rollup.Bucket, error) {
	defer s.note("Buckets", time.Now())
	return s.Store.Buckets(ctx, site, keys, sets)
}

func (s *timed) PutShards(ctx context.Context, bs []rollup.Bucket) ([]bool, error) {
	defer s.note("PutShards", time.Now())
	return s.Store.PutShards(ctx, bs)
}

// BenchmarkApplyChunks applies chunks of batches shaped like the ingest
// benchmark's (deployments/local BenchmarkInsightsIngest: 100 events a
// batch over 25 paths and 3 browsers) to the embedded database and reports
// the events applied per second and the share of the time in each store
// method (their calls may overlap). b.N is the number of chunks. Two
// shapes: 300 batches of 40 visitors and 60 sessions each, in JSON; and
// the sustained mode's, distinct visitors of 4 events each (2 a session)
// in binary batches, 459 a chunk (its last chunk in a timed run).
//
//	go test -run '^$' -bench ApplyChunks -benchtime 10x ./services/insights/internal/rollupmongo/
func BenchmarkApplyChunks(b *testing.B) {
	b.Run("repeat visitors", func(b *testing.B) {
		benchmarkApplyChunks(b, 300, false, func(_, _, j int) (string, string) {
			return fmt.Sprintf("v%d", j%40), fmt.Sprintf("s%d", j%60)
		})
	})
	b.Run("distinct visitors", func(b *testing.B) {
		benchmarkApplyChunks(b, 459, true, func(n, i, j int) (string, string) {
			seq := (n*459+i)*100 + j
			return fmt.Sprintf("v%d", seq/4), fmt.Sprintf("s%d", seq/2)
		})
	})
}

// benchmarkApplyChunks applies b.N chunks of perChunk batches, binary or
// JSON, whose event j of batch i of chunk n is who(n, i, j)'s.
func benchmarkApplyChunks(b *testing.B, perChunk int, binary bool, who func(n, i, j int) (visitor, session string)) {
	ctx := context.Background()
	store := &timed{Store: rollupmongo.NewStore(mongox.NewDB(mongotest.Database(b))), spent: map[string]time.Duration{}}
	a := rollup.NewApplier(store, nil)
	now := time.Now().UTC()
	browsers := []string{"chrome", "firefox", "safari"}
	chunk := func(n int) []rollup.Batch {
		bs := make([]rollup.Batch, perChunk)
		for i := range bs {
			bs[i] = rollup.Batch{ID: fmt.Sprintf("c%d-b%d", n, i), Org: "org", Site: "site"}
			for j := range 100 {
				visitor, session := who(n, i, j)
				bs[i].Visits = append(bs[i].Visits, visit.Visit{Time: now, Visitor: visitor, Session: session,
					Dims: visit.Dims{EventType: "page_view", URLPath: fmt.Sprintf("/guides/%d", j%25), Browser: browsers[j%3],
						URL: fmt.Sprintf("https://docs.example.com/guides/%d", j%25), Device: "desktop", OS: "linux"}})
			}
			if binary {
				bs[i].Binary = visitbin.Append(nil, bs[i].Visits)
			}
		}
		return bs
	}
	var applying time.Duration
	b.ResetTimer()
	for n := range b.N {
		b.StopTimer()
		bs := chunk(n)
		b.StartTimer()
		t0 := time.Now()
		if err := a.Apply(ctx, bs); err != nil {
			b.Fatal(err)
		}
		applying += time.Since(t0)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N*perChunk*100)/applying.Seconds(), "events/s")
	var names []string
	for name := range store.spent {
		names = append(names, name)
	}
	sort.Strings(names)
	var parts []string
	for _, name := range names {
		parts = append(parts, fmt.Sprintf("%s %.0f%%", name, 100*store.spent[name].Seconds()/applying.Seconds()))
	}
	b.Log(strings.Join(parts, ", "))
}
