package migratemongo

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/docspub/platform/libs/mongotest"
	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

// An installation from before the search index had its own database: the
// move rebuilds the index of every live space there and is not done again;
// dropOldSearch, a later step, drops the old shards from content's database.
func TestMoveSearch(t *testing.T) {
	ctx := context.Background()
	db := mongotest.Database(t)
	searchDB := db.Client().Database(db.Name() + "_search")
	t.Cleanup(func() { _ = searchDB.Drop(context.Background()) })
	if _, err := db.Collection("spaces").InsertMany(ctx, []any{
		bson.M{"_id": "s1", "organization": "o1", "revision": "r1"},
		bson.M{"_id": "s2", "organization": "o2", "revision": "r2"},
		bson.M{"_id": "gone", "organization": "o1", "revision": "r3", "deletedAt": time.Now()},
	}); err != nil {
		t.Fatal(err)
	}
	for _, old := range []string{"search_postings_007", "search_pages_123", "search_spaces"} {
		if _, err := db.Collection(old).InsertOne(ctx, bson.M{"_id": "x"}); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	var indexed []string
	reindex := func(_ context.Context, org, space, rev string) error {
		mu.Lock()
		defer mu.Unlock()
		indexed = append(indexed, org+"/"+space+"@"+rev)
		return nil
	}
	n, err := moveSearch(ctx, db, searchDB, reindex)
	if err != nil || n != 2 {
		t.Fatalf("moveSearch = %d, %v; want 2 spaces", n, err)
	}
	slices.Sort(indexed)
	if !slices.Equal(indexed, []string{"o1/s1@r1", "o2/s2@r2"}) {
		t.Fatalf("indexed %v", indexed)
	}
	names, err := db.ListCollectionNames(ctx, bson.M{})
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 4 {
		t.Fatalf("content's database keeps %v, want the old shards kept for the release before", names)
	}
	for range 2 { // dropping twice does nothing more
		if err := dropOldSearch(ctx, db); err != nil {
			t.Fatal(err)
		}
	}
	if names, err = db.ListCollectionNames(ctx, bson.M{}); err != nil || !slices.Equal(names, []string{"spaces"}) {
		t.Fatalf("content's database keeps %v (%v), want the old shards gone", names, err)
	}
	indexed = nil
	if n, err := moveSearch(ctx, db, searchDB, reindex); err != nil || n != 0 || len(indexed) != 0 {
		t.Fatalf("a second move: %d, %v, indexed %v; want nothing done", n, err, indexed)
	}
}

// A space a merge indexed during the move is left as the merge left it;
// one merged while the move indexed it is indexed again at its new revision.
func TestMoveSearchKeepsWhatMergesIndexed(t *testing.T) {
	ctx := context.Background()
	db := mongotest.Database(t)
	searchDB := db.Client().Database(db.Name() + "_search")
	t.Cleanup(func() { _ = searchDB.Drop(context.Background()) })
	if _, err := db.Collection("spaces").InsertMany(ctx, []any{
		bson.M{"_id": "merged", "organization": "o1", "revision": "r1"},
		bson.M{"_id": "racing", "organization": "o1", "revision": "r1"},
	}); err != nil {
		t.Fatal(err)
	}
	// "merged" was indexed by a merge after the service started.
	if _, err := searchDB.Collection("search_spaces").InsertOne(ctx, bson.M{"_id": "merged", "organization": "o1"}); err != nil {
		t.Fatal(err)
	}
	var indexed []string
	reindex := func(ctx context.Context, org, space, rev string) error {
		indexed = append(indexed, space+"@"+rev)
		if space == "racing" && rev == "r1" { // a merge lands while r1 is indexed
			_, err := db.Collection("spaces").UpdateOne(ctx, bson.M{"_id": "racing"}, bson.M{"$set": bson.M{"revision": "r2"}})
			return err
		}
		return nil
	}
	if _, err := moveSearch(ctx, db, searchDB, reindex); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(indexed, []string{"racing@r1", "racing@r2"}) {
		t.Fatalf("indexed %v, want racing at r1 then r2, merged left alone", indexed)
	}
}
