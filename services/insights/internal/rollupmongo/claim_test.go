package rollupmongo_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/insights/internal/rollup"
	"github.com/docspub/platform/services/insights/internal/rollupmongo"
	"go.mongodb.org/mongo-driver/v2/bson"
	"golang.org/x/sync/errgroup"
)

// Consumers applying the same batches at once (a rebalance hands a
// partition over while its old owner still applies) count each batch once:
// the batch goes to the chunk that claimed it first.
func TestConcurrentAppliersCountBatchesOnce(t *testing.T) {
	ctx := context.Background()
	store := rollupmongo.NewStore(mongox.NewDB(mongotest.Database(t)))
	now := time.Now().UTC()
	at := now.Add(-2 * time.Hour).Truncate(time.Hour)
	var batches []rollup.Batch
	for i := range 6 {
		batches = append(batches, rollup.Batch{ID: fmt.Sprintf("b%d", i), Org: "o", Site: "site",
			Visits: visits(25, at, func(j int) string { return fmt.Sprintf("/p%d", j%3) })})
	}
	var g errgroup.Group
	for range 3 {
		a := rollup.NewApplier(store, nil)
		g.Go(func() error { return a.Apply(ctx, batches) })
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	if ev, _, _ := total(t, store, "site", now); ev != 150 {
		t.Errorf("events = %v, want 150", ev)
	}
	if left, err := store.Unfinished(ctx, time.Now().Add(time.Minute)); err != nil || len(left) != 0 {
		t.Errorf("%d chunk records left (%v), want none", len(left), err)
	}
}

// A chunk recorded before claims (its batches marked applied, without a
// chunk, before its buckets were written) is finished by Recover with all
// its batches.
func TestRecoverChunkRecordedBeforeClaims(t *testing.T) {
	ctx := context.Background()
	db := mongotest.Database(t)
	store := rollupmongo.NewStore(mongox.NewDB(db))
	now := time.Now().UTC()
	at := now.Add(-2 * time.Hour).Truncate(time.Hour)
	batches := []rollup.Batch{{ID: "b1", Org: "o", Site: "site", Visits: visits(40, at, func(int) string { return "/" })}}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if err := json.NewEncoder(zw).Encode(batches); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := store.SaveChunk(ctx, rollup.Chunk{ID: "old", At: now.Add(-time.Hour), Batches: []string{"b1"}, Data: buf.Bytes()}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Collection(rollupmongo.Applied).InsertOne(ctx, bson.M{"_id": "b1", "at": now.Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	a := rollup.NewApplier(store, nil)
	if err := a.Apply(ctx, batches); err != nil { // delivered again: applied before
		t.Fatal(err)
	}
	if err := a.Recover(ctx, now); err != nil {
		t.Fatal(err)
	}
	if ev, _, _ := total(t, store, "site", now); ev != 40 {
		t.Errorf("events = %v, want 40", ev)
	}
}

// An applier starts a chunk from the shards it wrote last; when another
// applier wrote them since, its write loses the compare-and-set and it reads
// them: no count is lost or doubled.
func TestAppliersTakingTurnsOnOneBucket(t *testing.T) {
	ctx := context.Background()
	store := rollupmongo.NewStore(mongox.NewDB(mongotest.Database(t)))
	now := time.Now().UTC()
	at := now.Add(-2 * time.Hour).Truncate(time.Hour)
	a, b := rollup.NewApplier(store, nil), rollup.NewApplier(store, nil)
	want := 0
	for i, ap := range []*rollup.Applier{a, b, a, a, b, a} {
		n := 10 + i
		batch := rollup.Batch{ID: fmt.Sprintf("b%d", i), Org: "o", Site: "site",
			Visits: visits(n, at, func(j int) string { return fmt.Sprintf("/p%d", (i+j)%4) })}
		if err := ap.Apply(ctx, []rollup.Batch{batch}); err != nil {
			t.Fatal(err)
		}
		want += n
	}
	if ev, _, _ := total(t, store, "site", now); ev != float64(want) {
		t.Errorf("events = %v, want %d", ev, want)
	}
}
