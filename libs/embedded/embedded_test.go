package embedded_test

import (
	"context"
	"fmt"
	"net/url"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// Concurrent updates of one document must all apply, as on MongoDB: the
// outbox contract (a change and its event in one update, the relay pulling
// published events) depends on it.
func TestMongoConcurrentUpdatesOfOneDocument(t *testing.T) {
	srv := startServer(t, "")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	coll := connect(t, srv.URI).Database("race").Collection("docs")

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

// Reads through ReadURI's pool next to writes through URI's lose no
// update, and a read sent after a write was acknowledged sees it: what a
// store reading through mongox.DB.Reads depends on.
func TestMongoReadPoolNextToWrites(t *testing.T) {
	srv := startServer(t, "")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	wc := connect(t, srv.URI).Database("pool").Collection("docs")
	rc := connect(t, srv.ReadURI).Database("pool").Collection("docs")
	if _, err := wc.InsertOne(ctx, bson.M{"_id": "a", "n": 0}); err != nil {
		t.Fatal(err)
	}

	type doc struct {
		N   int      `bson:"n"`
		Log []string `bson:"log"`
	}
	const writers, updates, readers = 4, 25, 8
	var wg sync.WaitGroup
	errs := make(chan error, writers+readers)
	stop := make(chan struct{})
	for range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			last := -1
			for {
				select {
				case <-stop:
					return
				default:
				}
				var d doc
				if err := rc.FindOne(ctx, bson.M{"_id": "a"}).Decode(&d); err != nil {
					errs <- err
					return
				}
				if d.N < last || d.N != len(d.Log) {
					errs <- fmt.Errorf("a reader saw n = %d with %d log entries after n = %d", d.N, len(d.Log), last)
					return
				}
				last = d.N
			}
		}()
	}
	var ww sync.WaitGroup
	for w := range writers {
		ww.Add(1)
		go func() {
			defer ww.Done()
			for i := range updates {
				entry := fmt.Sprintf("%d/%d", w, i)
				if _, err := wc.UpdateOne(ctx, bson.M{"_id": "a"},
					bson.M{"$inc": bson.M{"n": 1}, "$push": bson.M{"log": entry}}); err != nil {
					errs <- err
					return
				}
				// Read your write: the pool sees the acknowledged update.
				var d doc
				if err := rc.FindOne(ctx, bson.M{"_id": "a", "log": entry}).Decode(&d); err != nil {
					errs <- fmt.Errorf("writer %d's update %d not read back through the pool: %w", w, i, err)
					return
				}
			}
		}()
	}
	ww.Wait()
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var got doc
	if err := rc.FindOne(ctx, bson.M{"_id": "a"}).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if got.N != writers*updates || len(got.Log) != writers*updates {
		t.Errorf("after %d updates beside the readers: n = %d, log has %d entries; want %d each",
			writers*updates, got.N, len(got.Log), writers*updates)
	}
}

// Updates from many connections and clients (as from several processes)
// are atomic per document, as on MongoDB: concurrent $inc lose nothing,
// and of concurrent compare-and-sets on one version exactly one passes
// (without the server's write lock, both read the version and both
// write).
func TestMongoUpdatesAreAtomicAcrossConnections(t *testing.T) {
	srv := startServer(t, "")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	uri, err := url.Parse(srv.URI)
	if err != nil {
		t.Fatal(err)
	}
	q := uri.Query()
	q.Set("maxPoolSize", "16")
	uri.RawQuery = q.Encode()
	a := connect(t, uri.String()).Database("atomic").Collection("docs")
	b := connect(t, uri.String()).Database("atomic").Collection("docs")
	if _, err := a.InsertOne(ctx, bson.M{"_id": "d", "v": 0, "n": 0}); err != nil {
		t.Fatal(err)
	}
	const workers, tries = 16, 30
	var wg sync.WaitGroup
	var mu sync.Mutex
	passed := 0
	errs := make(chan error, workers)
	for w := range workers {
		coll := []*mongo.Collection{a, b}[w%2]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range tries {
				var d struct {
					V int `bson:"v"`
				}
				if err := coll.FindOne(ctx, bson.M{"_id": "d"}).Decode(&d); err != nil {
					errs <- err
					return
				}
				res, err := coll.UpdateOne(ctx, bson.M{"_id": "d", "v": d.V}, bson.M{"$set": bson.M{"v": d.V + 1}, "$inc": bson.M{"n": 1}})
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				passed += int(res.ModifiedCount)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var got struct{ V, N int }
	if err := a.FindOne(ctx, bson.M{"_id": "d"}).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if got.V != passed || got.N != passed {
		t.Errorf("%d compare-and-sets passed, the document has version %d and %d increments: want both %d", passed, got.V, got.N, passed)
	}
}
