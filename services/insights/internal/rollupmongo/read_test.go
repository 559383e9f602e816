package rollupmongo_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/insights/internal/rollup"
	"github.com/docspub/platform/services/insights/internal/rollupmongo"
	"github.com/docspub/platform/services/insights/internal/visit"
	"github.com/google/go-cmp/cmp"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// finds records the filters of the find commands a client sends.
type finds struct {
	mu      sync.Mutex
	filters []bson.Raw
}

func (f *finds) take() []bson.Raw {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.filters
	f.filters = nil
	return out
}

// monitored returns a database on the package's server whose client records
// the filters of its finds on buckets.
func monitored(t *testing.T, name string) (*mongo.Database, *finds) {
	t.Helper()
	f := &finds{}
	mon := &event.CommandMonitor{Started: func(_ context.Context, e *event.CommandStartedEvent) {
		if e.CommandName != "find" || e.Command.Lookup("find").StringValue() != rollupmongo.Buckets {
			return
		}
		f.mu.Lock()
		f.filters = append(f.filters, append(bson.Raw(nil), e.Command.Lookup("filter").Document()...))
		f.mu.Unlock()
	}}
	client, err := mongo.Connect(options.Client().ApplyURI(mongotest.URI(t)).SetMonitor(mon))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Disconnect(context.Background()) })
	return client.Database(name), f
}

// A year of a site is answered from the buckets of its range read by _id
// (the only filter the embedded FerretDB does not answer by scanning the
// whole collection, every site's): months of a marginal and the two partial
// days at the ends by hour, 15 lookups. The answers equal the counts computed from
// the visits themselves, on months, days, weeks and days of the week.
func TestYearReadsBucketsByID(t *testing.T) {
	ctx := context.Background()
	name := mongotest.DatabaseName()
	db, seen := monitored(t, name)
	t.Cleanup(func() { _ = db.Drop(context.Background()) })
	store := rollupmongo.NewStore(mongox.NewDB(db))
	now := time.Date(2026, 11, 24, 9, 40, 0, 0, time.UTC)

	// 400 days of visits on site s, 3 a day at changing hours; as many on
	// another site, whose buckets a query of s must not read.
	var vs []visit.Visit
	for d := range 400 {
		for i := range 3 {
			at := now.AddDate(0, 0, -d).Truncate(time.Hour).Add(-time.Duration((d*5+i*7)%24) * time.Hour)
			vs = append(vs, visit.Visit{Time: at, Visitor: fmt.Sprintf("v%d", (d+i)%13), Session: fmt.Sprintf("s%d-%d", d, i),
				Dims: visit.Dims{EventType: "page_view", URLPath: fmt.Sprintf("/p%d", (d*3+i)%7), Browser: "chrome"}})
		}
	}
	a := rollup.NewApplier(store, nil)
	for _, site := range []string{"s", "other"} {
		if err := a.Apply(ctx, []rollup.Batch{{ID: "year-" + site, Org: "o", Site: site, Visits: vs}}); err != nil {
			t.Fatal(err)
		}
	}
	from, to := now.Add(-365*24*time.Hour), now
	inRange := func(v visit.Visit) bool {
		h := v.Time.Truncate(time.Hour)
		return !h.Before(from) && h.Before(to)
	}
	// expected counts events per key of each visit in range.
	expected := func(key func(v visit.Visit) string) map[string]int64 {
		m := map[string]int64{}
		for _, v := range vs {
			if inRange(v) {
				m[key(v)]++
			}
		}
		return m
	}
	day := func(t time.Time) time.Time { return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC) }
	stamp := func(t time.Time) string { return t.Format(time.RFC3339) }
	tests := []struct {
		name  string
		req   string
		key   func(v visit.Visit) string
		reads int // at most: 13 months (whole or partial) and the two partial days by hour
	}{
		{"events by day", `{"range":"lastYear","select":[{"column":"datetime","interval":"day"},{"column":"eventsCount"}]}`,
			func(v visit.Visit) string { return stamp(day(v.Time)) }, 15},
		{"top paths", `{"range":"lastYear","select":[{"column":"urlPath"},{"column":"eventsCount"}],"limit":10}`,
			func(v visit.Visit) string { return v.Dims.URLPath }, 15},
		{"paths by month", `{"range":"lastYear","select":[{"column":"datetime","interval":"month"},{"column":"urlPath"},{"column":"eventsCount"}]}`,
			func(v visit.Visit) string {
				return stamp(time.Date(v.Time.Year(), v.Time.Month(), 1, 0, 0, 0, 0, time.UTC)) + " " + v.Dims.URLPath
			}, 15},
		{"paths by week", `{"range":"lastYear","select":[{"column":"datetime","interval":"week"},{"column":"urlPath"},{"column":"eventsCount"}]}`,
			func(v visit.Visit) string {
				d := day(v.Time)
				return stamp(d.AddDate(0, 0, -(int(d.Weekday())+6)%7)) + " " + v.Dims.URLPath
			}, 15},
		{"day of week", `{"range":"lastYear","select":[{"column":"dayOfWeek"},{"column":"eventsCount"}]}`,
			func(v visit.Visit) string { return fmt.Sprint((int(v.Time.Weekday())+6)%7 + 1) }, 15},
		{"hour of day", `{"range":"lastYear","select":[{"column":"hourOfDay"},{"column":"eventsCount"}]}`,
			func(v visit.Visit) string { return fmt.Sprint(v.Time.Hour()) }, 366}, // every day by hour
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var req rollup.Request
			if err := json.Unmarshal([]byte(tc.req), &req); err != nil {
				t.Fatal(err)
			}
			seen.take()
			res, err := rollup.Aggregate(ctx, store, "s", &req, now)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]int64{}
			cols := res.Columns
			for i := range cols[0].Values {
				k := ""
				for _, c := range cols[:len(cols)-1] {
					if k != "" {
						k += " "
					}
					k += fmt.Sprint(c.Values[i])
				}
				got[k] = cols[len(cols)-1].Values[i].(int64)
			}
			if diff := cmp.Diff(expected(tc.key), got); diff != "" {
				t.Errorf("counts (-want +got):\n%s", diff)
			}
			filters := seen.take()
			if len(filters) == 0 || len(filters) > tc.reads {
				t.Errorf("the query read %d buckets; want 1..%d", len(filters), tc.reads)
			}
			for _, f := range filters {
				elems, _ := f.Elements()
				if len(elems) != 1 || elems[0].Key() != "_id" || elems[0].Value().Type != bson.TypeString {
					t.Fatalf("the query read buckets with filter %s; want {_id: <string>} only", f)
				}
			}
		})
	}
}

// A bucket write is a compare-and-set on its version (a stale version
// loses): the replace's filter is {_id, version}, the same on MongoDB and
// on the embedded server (which finds the document by its _id index, then
// checks its version, under its collection's write lock).
func TestPutShardComparesVersionsByID(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	var filters []bson.Raw
	mon := &event.CommandMonitor{Started: func(_ context.Context, e *event.CommandStartedEvent) {
		if e.CommandName != "update" {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		updates, _ := e.Command.Lookup("updates").Array().Values()
		for _, u := range updates {
			filters = append(filters, append(bson.Raw(nil), u.Document().Lookup("q").Document()...))
		}
	}}
	db := monitoredDB(t, mon)
	store := rollupmongo.NewStore(mongox.NewDB(db))
	at := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	b := rollup.Bucket{ID: rollup.BucketID("s", rollup.Hourly, at, 0), Org: "o", Site: "s", Gran: rollup.Hourly, Start: at, Version: 1,
		Rows: []rollup.Row{{Key: "a", Dims: visit.Dims{EventType: "page_view"}, Events: 1}}}
	for _, step := range []struct {
		version int64
		want    bool
	}{{1, true}, {1, false}, {2, true}, {2, false}, {4, false}, {3, true}} {
		b.Version = step.version
		if ok, err := store.PutShard(ctx, b); err != nil || ok != step.want {
			t.Fatalf("put version %d = %v, %v; want %v", step.version, ok, err, step.want)
		}
	}
	got, err := store.Buckets(ctx, "s", []rollup.Key{{Gran: rollup.Hourly, Start: at}}, true)
	if err != nil || len(got) != 1 || got[0].Version != 3 {
		t.Fatalf("stored %+v, %v; want version 3", got, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(filters) == 0 {
		t.Fatal("no update was sent")
	}
	for _, f := range filters {
		elems, _ := f.Elements()
		if len(elems) != 2 || elems[0].Key() != "_id" || elems[1].Key() != "version" {
			t.Errorf("a bucket was written with filter %s; want {_id, version}", f)
		}
	}
}

// A shard's distinct sets live in a document of their own: a query that
// counts events reads the shard's document only, which holds no sets (the
// embedded server decodes every field of a document it returns); a query
// that counts visitors reads the sets of the shard's current version; the
// sets a write replaced, and those of a write that lost, are deleted.
func TestSetsLiveApartFromTheirShard(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	setReads := 0
	mon := &event.CommandMonitor{Started: func(_ context.Context, e *event.CommandStartedEvent) {
		if e.CommandName == "find" && e.Command.Lookup("find").StringValue() == rollupmongo.Sets {
			mu.Lock()
			setReads++
			mu.Unlock()
		}
	}}
	db := monitoredDB(t, mon)
	store := rollupmongo.NewStore(mongox.NewDB(db))
	at := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	key := []rollup.Key{{Gran: rollup.Hourly, Start: at}}
	put := func(version int64, visitors []int64, want bool) {
		t.Helper()
		b := rollup.Bucket{ID: rollup.BucketID("s", rollup.Hourly, at, 0), Org: "o", Site: "s", Gran: rollup.Hourly, Start: at,
			Version: version, Rows: []rollup.Row{{Key: "a", Dims: visit.Dims{EventType: "page_view"}, Events: int64(len(visitors)),
				Visitors: rollup.Distinct{IDs: visitors}}}}
		if ok, err := store.PutShard(ctx, b); err != nil || ok != want {
			t.Fatalf("put version %d = %v, %v; want %v", version, ok, err, want)
		}
	}
	put(1, []int64{1}, true)
	put(2, []int64{1, 2}, true)
	put(2, []int64{7, 8, 9}, false)
	put(3, []int64{1, 2, 3}, true)

	raw, err := db.Collection(rollupmongo.Buckets).FindOne(ctx, bson.M{}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.LookupErr("sets"); err == nil {
		t.Errorf("the shard's document holds its sets: %s", raw)
	}
	if n, err := db.Collection(rollupmongo.Sets).CountDocuments(ctx, bson.M{}); err != nil || n != 1 {
		t.Errorf("%d sets documents stored (%v); want 1, the current version's", n, err)
	}

	got, err := store.Buckets(ctx, "s", key, false)
	if err != nil || len(got) != 1 || got[0].Rows[0].Events != 3 || got[0].Rows[0].Visitors.IDs != nil {
		t.Fatalf("events only: %+v, %v", got, err)
	}
	mu.Lock()
	if setReads != 0 {
		t.Errorf("a query counting events read %d sets documents; want 0", setReads)
	}
	mu.Unlock()
	got, err = store.Buckets(ctx, "s", key, true)
	if err != nil || len(got) != 1 || !cmp.Equal(got[0].Rows[0].Visitors.IDs, []int64{1, 2, 3}) {
		t.Fatalf("with sets: %+v, %v; want visitors 1, 2, 3", got, err)
	}
}

// monitoredDB returns a database of its own on the package's server, seen
// by mon, dropped after the test.
func monitoredDB(t *testing.T, mon *event.CommandMonitor) *mongo.Database {
	t.Helper()
	client, err := mongo.Connect(options.Client().ApplyURI(mongotest.URI(t)).SetMonitor(mon))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Disconnect(context.Background()) })
	db := client.Database(mongotest.DatabaseName())
	t.Cleanup(func() { _ = db.Drop(context.Background()) })
	return db
}

// TestCollectSets: the sets documents a shard does not name (left by a
// writer that stopped midway) go once older than the cutoff; the named
// ones stay, and so do recent ones, which a writer may be about to name.
// Sets from before they carried a time are stamped first and go a grace
// period later. Each run looks only at what was written since the last.
func TestCollectSets(t *testing.T) {
	ctx := context.Background()
	db := mongotest.Database(t)
	store := rollupmongo.NewStore(mongox.NewDB(db))
	at := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	id := rollup.BucketID("s", rollup.Hourly, at, 0)
	b := rollup.Bucket{ID: id, Org: "o", Site: "s", Gran: rollup.Hourly, Start: at, Version: 1,
		Rows: []rollup.Row{{Key: "a", Dims: visit.Dims{EventType: "page_view"}, Events: 1, Visitors: rollup.Distinct{IDs: []int64{1}}}}}
	if ok, err := store.PutShard(ctx, b); err != nil || !ok {
		t.Fatalf("put = %v, %v", ok, err)
	}
	var shard struct {
		SetsRef string `bson:"setsRef"`
	}
	if err := db.Collection(rollupmongo.Buckets).FindOne(ctx, bson.M{"_id": id}).Decode(&shard); err != nil || shard.SetsRef == "" {
		t.Fatalf("shard: %+v, %v", shard, err)
	}
	now := time.Now().UTC()
	left := []any{
		bson.M{"_id": id + "/1/crashed", "sets": []byte{1}, "at": now.Add(-2 * time.Hour)},   // its shard names others
		bson.M{"_id": "s/hour/gone/0/1/x", "sets": []byte{1}, "at": now.Add(-2 * time.Hour)}, // its shard is gone
		bson.M{"_id": id + "/2/writing", "sets": []byte{1}, "at": now},                       // a writer may name it
		bson.M{"_id": id + "/1/untimed", "sets": []byte{1}},                                  // from before sets had a time
	}
	if _, err := db.Collection(rollupmongo.Sets).InsertMany(ctx, left); err != nil {
		t.Fatal(err)
	}
	// The shard's own sets are new: collect as if they were old too.
	if _, err := db.Collection(rollupmongo.Sets).UpdateOne(ctx, bson.M{"_id": shard.SetsRef},
		bson.M{"$set": bson.M{"at": now.Add(-2 * time.Hour)}}); err != nil {
		t.Fatal(err)
	}
	ids := func() []string { t.Helper(); return mongotest.IDs(t, db.Collection(rollupmongo.Sets)) }
	n, err := store.CollectSets(ctx, now.Add(-rollupmongo.SetsGrace))
	if err != nil || n != 2 {
		t.Fatalf("collected %d (%v); want 2", n, err)
	}
	want := []string{id + "/1/untimed", id + "/2/writing", shard.SetsRef}
	slices.Sort(want)
	if diff := cmp.Diff(ids(), want); diff != "" {
		t.Errorf("sets left (-got +want):\n%s", diff)
	}
	later := time.Now().Add(time.Minute)
	if n, err := store.CollectSets(ctx, later); err != nil || n != 2 {
		t.Fatalf("later: collected %d (%v); want 2 (the untimed and the unnamed recent one)", n, err)
	}
	if n, err := store.CollectSets(ctx, later); err != nil || n != 0 {
		t.Fatalf("again with the same cutoff: collected %d (%v); want 0, nothing new to look at", n, err)
	}
	// A replica sweeping with an earlier cutoff does not move the mark back.
	if _, err := store.CollectSets(ctx, now.Add(-rollupmongo.SetsGrace)); err != nil {
		t.Fatal(err)
	}
	var mark struct {
		Until time.Time `bson:"until"`
	}
	if err := db.Collection(rollupmongo.Meta).FindOne(ctx, bson.M{}).Decode(&mark); err != nil || mark.Until.Before(later.Truncate(time.Millisecond)) {
		t.Errorf("the sweep's mark is %v (%v), want %v", mark.Until, err, later)
	}
	if diff := cmp.Diff(ids(), []string{shard.SetsRef}); diff != "" {
		t.Errorf("sets left later (-got +want):\n%s", diff)
	}
	got, err := store.Buckets(ctx, "s", []rollup.Key{{Gran: rollup.Hourly, Start: at}}, true)
	if err != nil || len(got) != 1 || !cmp.Equal(got[0].Rows[0].Visitors.IDs, []int64{1}) {
		t.Fatalf("the shard after collection: %+v, %v", got, err)
	}
}
