package mongox_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

// Concurrent $set of different fields of one document: with DocLocks every
// field survives, on FerretDB as on MongoDB.
func TestDocLocksKeepConcurrentUpdates(t *testing.T) {
	ctx := context.Background()
	coll := mongotest.Database(t).Collection("docs")
	if _, err := coll.InsertOne(ctx, bson.M{"_id": "d"}); err != nil {
		t.Fatal(err)
	}
	locks := mongox.NewDocLocks()
	const n = 40
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			unlock := locks.Lock("docs", "d")
			defer unlock()
			if _, err := coll.UpdateOne(ctx, bson.M{"_id": "d"}, bson.M{"$set": bson.M{fmt.Sprintf("f%d", i): i}}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	var got bson.M
	if err := coll.FindOne(ctx, bson.M{"_id": "d"}).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if len(got) != n+1 {
		t.Fatalf("document has %d fields after %d concurrent updates, want %d", len(got), n, n+1)
	}
}
