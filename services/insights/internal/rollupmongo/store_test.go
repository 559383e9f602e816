package rollupmongo_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/insights/internal/rollup"
	"github.com/docspub/platform/services/insights/internal/rollupmongo"
	"github.com/docspub/platform/services/insights/internal/visit"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

// crashing fails the writes of one bucket, as a consumer that stops
// half-way through a chunk would.
type crashing struct {
	*rollupmongo.Store
	gran  rollup.Gran
	start time.Time
}

var errCrash = errors.New("crash")

func (c *crashing) PutShards(ctx context.Context, bs []rollup.Bucket) ([]bool, error) {
	var others []rollup.Bucket
	for _, b := range bs {
		if !(b.Gran == c.gran && b.Start.Equal(c.start)) {
			others = append(others, b)
		}
	}
	if len(others) < len(bs) {
		_, _ = c.Store.PutShards(ctx, others)
		return make([]bool, len(bs)), errCrash
	}
	return c.Store.PutShards(ctx, bs)
}

func visits(n int, at time.Time, path func(i int) string) []visit.Visit {
	out := make([]visit.Visit, n)
	for i := range out {
		out[i] = visit.Visit{Time: at.Add(time.Duration(i) * time.Minute), Visitor: fmt.Sprintf("v%d", i%7),
			Session: fmt.Sprintf("s%d", i%11), Dims: visit.Dims{EventType: "page_view", URLPath: path(i), Browser: "chrome"}}
	}
	return out
}

func total(t *testing.T, s *rollupmongo.Store, site string, now time.Time) (events, visitors, sessions float64) {
	t.Helper()
	res, err := rollup.Aggregate(context.Background(), s, site, &rollup.Request{Range: []byte(`"last7Days"`),
		Select: []rollup.ColumnRef{{Column: "eventsCount"}, {Column: "visitorsCount"}, {Column: "sessionsCount"}}}, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Columns[0].Values) == 0 {
		return 0, 0, 0
	}
	f := func(i int) float64 { return float64(toInt(res.Columns[i].Values[0])) }
	return f(0), f(1), f(2)
}

func toInt(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case uint64:
		return int64(x)
	}
	return -1
}

// A chunk that stopped half-way is finished by Recover, and its batches
// delivered again are skipped: every visit counts once.
func TestChunkAppliedOnceAfterCrash(t *testing.T) {
	ctx := context.Background()
	store := rollupmongo.NewStore(mongox.NewDB(mongotest.Database(t)))
	now := time.Now().UTC()
	at := now.Add(-3 * time.Hour).Truncate(time.Hour)
	batches := []rollup.Batch{
		{ID: "b1", Org: "o", Site: "site", Visits: visits(100, at, func(i int) string { return fmt.Sprintf("/p%d", i%5) })},
		{ID: "b2", Org: "o", Site: "site", Visits: visits(50, at.Add(2*time.Hour), func(int) string { return "/" })},
	}
	// Two hours in b1 (100 minutes), one more in b2, and their days: the
	// hour of b2 is not written.
	if err := rollup.NewApplier(&crashing{Store: store, gran: rollup.Hourly, start: at.Add(2 * time.Hour)}, nil).Apply(ctx, batches); !errors.Is(err, errCrash) {
		t.Fatalf("apply = %v, want the crash", err)
	}
	if left, err := store.Unfinished(ctx, time.Now().Add(time.Minute)); err != nil || len(left) != 1 {
		t.Fatalf("after the crash %d chunks are left (%v); want the one", len(left), err)
	}
	a := rollup.NewApplier(store, nil)
	if err := a.Apply(ctx, batches); err != nil { // the log delivers the batches again
		t.Fatal(err)
	}
	if err := a.Recover(ctx, time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := a.Apply(ctx, batches); err != nil { // and once more
		t.Fatal(err)
	}
	ev, vis, ses := total(t, store, "site", now)
	if ev != 150 || vis != 7 || ses != 11 {
		t.Errorf("events, visitors, sessions = %v, %v, %v; want 150, 7, 11", ev, vis, ses)
	}
}

// A bucket with more distinct rows than one shard holds splits into shards,
// and queries merge them.
func TestBucketSplitsIntoShards(t *testing.T) {
	ctx := context.Background()
	store := rollupmongo.NewStore(mongox.NewDB(mongotest.Database(t)))
	now := time.Now().UTC()
	at := now.Add(-2 * time.Hour).Truncate(time.Hour)
	n := rollup.MaxShardRows + 500
	vs := visits(n, at, func(i int) string { return fmt.Sprintf("/page/%d", i) })
	for i := range vs {
		vs[i].Time = at // one hour
	}
	if err := rollup.NewApplier(store, nil).Apply(ctx, []rollup.Batch{{ID: "big", Org: "o", Site: "s", Visits: vs}}); err != nil {
		t.Fatal(err)
	}
	shards, err := store.Buckets(ctx, "s", []rollup.Key{{Gran: rollup.Hourly, Start: at}}, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(shards) != 2 {
		t.Fatalf("%d shards; want 2", len(shards))
	}
	for _, s := range shards {
		if len(s.Rows) > rollup.MaxShardRows {
			t.Errorf("shard %d has %d rows", s.Shard, len(s.Rows))
		}
	}
	if ev, _, _ := total(t, store, "s", now); ev != float64(n) {
		t.Errorf("events = %v; want %d", ev, n)
	}
}
