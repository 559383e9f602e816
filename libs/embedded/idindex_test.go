package embedded_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docspub/platform/libs/embedded"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/libs/waittest"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// FerretDB's own _id index does not match the expression its SQLite backend
// filters _id lookups with; the server adds one that does, to every
// collection, including those of a database dropped and made again.
func TestIDLookupsUseAnIndex(t *testing.T) {
	ctx := context.Background()
	dir, client := startMongo(t)

	for round := range 2 {
		db := client.Database("shop")
		coll := db.Collection("orders")
		var docs []any
		for i := range 50 {
			docs = append(docs, bson.M{"_id": fmt.Sprint("o", i), "n": i})
		}
		if _, err := coll.InsertMany(ctx, docs); err != nil {
			t.Fatal(err)
		}
		plan := ""
		waittest.Until(t, fmt.Sprintf("round %d: an index used by _id lookups", round), 10*time.Second, func() bool {
			plan = idLookupPlan(t, filepath.Join(dir, "shop.sqlite"))
			return strings.Contains(plan, "docspub_id_")
		})
		// Lookups and updates by _id still find exactly their document.
		if _, err := coll.UpdateOne(ctx, bson.M{"_id": "o7"}, bson.M{"$set": bson.M{"n": 700}}); err != nil {
			t.Fatal(err)
		}
		var got struct {
			N int `bson:"n"`
		}
		if err := coll.FindOne(ctx, bson.M{"_id": "o7"}).Decode(&got); err != nil || got.N != 700 {
			t.Fatalf("round %d: o7 = %+v, %v; want n 700", round, got, err)
		}
		if n, err := coll.CountDocuments(ctx, bson.M{"n": bson.M{"$lt": 10}}); err != nil || n != 9 {
			t.Fatalf("round %d: count = %d, %v; want 9", round, n, err)
		}
		if err := db.Drop(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// idLookupPlan is SQLite's plan for the query FerretDB runs for an _id
// lookup on the (only) collection table of a database file.
func idLookupPlan(t *testing.T, file string) string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+file+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var table string
	err = db.QueryRow(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\_ferretdb\_%' ESCAPE '\'`).Scan(&table)
	if err != nil {
		return ""
	}
	rows, err := db.Query(fmt.Sprintf(`EXPLAIN QUERY PLAN SELECT _ferretdb_sjson FROM %q WHERE _ferretdb_sjson->'$._id' = ?`, table), `"o7"`)
	if err != nil {
		return ""
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err == nil {
			plan = append(plan, detail)
		}
	}
	return strings.Join(plan, "; ")
}

// Queries running while the indexer indexes a database of hundreds of new
// collections do not fail: an index per table in a row changed the schema
// faster than SQLite re-prepares statements, and FerretDB answered
// "database schema has changed" as an internal error.
func TestQueriesSurviveIndexing(t *testing.T) {
	ctx := context.Background()
	dir, client := startMongo(t)
	for round := range 3 {
		db := client.Database(fmt.Sprint("many", round))
		hot := db.Collection("hot")
		if _, err := hot.InsertOne(ctx, bson.M{"_id": "a", "n": 1}); err != nil {
			t.Fatal(err)
		}
		stop := make(chan struct{})
		errs := make(chan error, 4)
		var readers sync.WaitGroup
		for range 4 {
			readers.Add(1)
			go func() {
				defer readers.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					if err := hot.FindOne(ctx, bson.M{"_id": "a"}).Err(); err != nil {
						errs <- err
						return
					}
					if _, err := hot.CountDocuments(ctx, bson.M{"n": 1}); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		// Collections made as a service's start makes them: with their
		// indexes, several at once.
		var makers sync.WaitGroup
		for m := range 4 {
			makers.Add(1)
			go func() {
				defer makers.Done()
				for i := m; i < 300; i += 4 {
					_, err := db.Collection(fmt.Sprintf("c%03d", i)).Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "k", Value: 1}}})
					if err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		makers.Wait()
		waittest.Until(t, "every collection indexed", 30*time.Second, func() bool {
			return idIndexes(t, filepath.Join(dir, db.Name()+".sqlite")) >= 301
		})
		close(stop)
		readers.Wait()
		close(errs)
		if err := <-errs; err != nil {
			t.Fatalf("round %d: a query failed while collections were indexed: %v", round, err)
		}
	}
}

// idIndexes counts the _id lookup indexes of a database file.
func idIndexes(t *testing.T, file string) int {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+file+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name LIKE 'docspub\_id\_%' ESCAPE '\'`).Scan(&n); err != nil {
		return 0
	}
	return n
}

// startMongo starts an embedded server of its own for a test and connects
// to it; both stop with the test. dir is where its database files are.
func startMongo(t *testing.T) (dir string, client *mongo.Client) {
	t.Helper()
	dir = t.TempDir()
	return dir, connect(t, startServer(t, dir).URI)
}

// startServer starts an embedded server of its own for a test, with its
// files in dir ("": a temporary one); it stops with the test.
func startServer(t *testing.T, dir string) *embedded.Mongo {
	t.Helper()
	srv, err := embedded.StartMongo(dir, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv
}

// connect returns a client of uri, disconnected when the test ends.
func connect(t *testing.T, uri string) *mongo.Client {
	t.Helper()
	client, err := mongox.Connect(context.Background(), uri)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Disconnect(context.Background()) })
	return client
}
