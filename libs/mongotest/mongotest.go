// Package mongotest gives tests a real MongoDB protocol server: one embedded
// FerretDB per test package (started in TestMain) and a fresh database per test.
package mongotest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/docspub/platform/libs/embedded"
	"github.com/docspub/platform/libs/mongox"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

var (
	uri    string
	client *mongo.Client
	// reads is the client DB reads through: one of the server's ReadURI,
	// as services on the embedded server have, or client itself with
	// MONGOTEST_URI.
	reads *mongo.Client
)

// Main starts the package's server, runs the tests and stops it. Call it from
// TestMain: func TestMain(m *testing.M) { mongotest.Main(m) }.
//
// With MONGOTEST_URI set, the tests use the server there instead (`make
// race` runs one embedded server outside the race detector for every
// package: in-process, the detector would slow the database tenfold).
func Main(m *testing.M) {
	stop := func() {}
	var readURI string
	if u := os.Getenv("MONGOTEST_URI"); u != "" {
		uri = u
	} else {
		srv, err := embedded.StartMongo("", "", nil)
		if err != nil {
			fmt.Fprintln(os.Stderr, "mongotest:", err)
			os.Exit(1)
		}
		uri, readURI, stop = srv.URI, srv.ReadURI, srv.Close
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	var err error
	client, err = mongox.Connect(ctx, uri)
	reads = client
	if err == nil && readURI != "" {
		reads, err = mongox.Connect(ctx, readURI)
	}
	cancel()
	if err != nil {
		stop()
		fmt.Fprintln(os.Stderr, "mongotest:", err)
		os.Exit(1)
	}
	code := m.Run()
	_ = client.Disconnect(context.Background())
	if reads != client {
		_ = reads.Disconnect(context.Background())
	}
	stop()
	os.Exit(code)
}

// URI returns the package server's address; Main must have run.
func URI(t testing.TB) string {
	t.Helper()
	if uri == "" {
		t.Fatal("mongotest: call mongotest.Main from TestMain")
	}
	return uri
}

// Client returns a client connected to the package server.
func Client(t testing.TB) *mongo.Client {
	t.Helper()
	URI(t)
	return client
}

// Database returns a fresh, uniquely named database dropped when the test ends.
func Database(t testing.TB) *mongo.Database {
	t.Helper()
	db := Client(t).Database(DatabaseName())
	t.Cleanup(func() { _ = db.Drop(context.Background()) })
	return db
}

// DB returns a fresh database (see Database) with its reads through the
// server's read pool (mongox.DB.WithReads, as services set MONGO_READ_URI),
// what stores take.
func DB(t testing.TB) mongox.DB {
	t.Helper()
	db := Database(t)
	return mongox.NewDB(db).WithReads(reads.Database(db.Name()))
}

// DatabaseName returns a unique database name.
func DatabaseName() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "t_" + hex.EncodeToString(b[:])
}

// IDs returns the string _ids of every document of a collection, sorted.
func IDs(t testing.TB, coll *mongo.Collection) []string {
	t.Helper()
	ctx := context.Background()
	cur, err := coll.Find(ctx, bson.M{}, options.Find().SetProjection(bson.M{"_id": 1}))
	if err != nil {
		t.Fatal(err)
	}
	var docs []struct {
		ID string `bson:"_id"`
	}
	if err := cur.All(ctx, &docs); err != nil {
		t.Fatal(err)
	}
	out := make([]string, 0, len(docs))
	for _, d := range docs {
		out = append(out, d.ID)
	}
	slices.Sort(out)
	return out
}
