package embedded_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/docspub/platform/libs/embedded"
	"github.com/docspub/platform/libs/mongox"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Concurrent updates of one document must all apply, as on MongoDB: the
// outbox contract (a change and its event in one update, the relay pulling
// published events) depends on it.
func TestMongoConcurrentUpdatesOfOneDocument(t *testing.T) {
	srv, err := embedded.StartMongo("", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client, err := mongox.Connect(ctx, srv.URI)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Disconnect(context.Background()) })
	coll := client.Database("race").Collection("docs")

	if _, err := coll.InsertOne(ctx, bson.M{"_id": "a", "n": 0}); err != nil {
		t.Fatal(err)
	}
	const workers, updates = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range updates {
				_, err := coll.UpdateOne(ctx, bson.M{"_id": "a"},
					bson.M{"$inc": bson.M{"n": 1}, "$push": bson.M{"log": bson.M{"w": w, "i": i}}})
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var got struct {
		N   int      `bson:"n"`
		Log []bson.M `bson:"log"`
	}
	if err := coll.FindOne(ctx, bson.M{"_id": "a"}).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if got.N != workers*updates || len(got.Log) != workers*updates {
		t.Errorf("after %d concurrent updates: n = %d, log has %d entries; want %d each",
			workers*updates, got.N, len(got.Log), workers*updates)
	}
}
