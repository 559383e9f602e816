package embedded_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/docspub/platform/libs/embedded"
	"github.com/docspub/platform/libs/mongox"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	_ "modernc.org/sqlite"
)

// ids are _id values of every kind a store may use, with the texts that
// could render differently in Go and in SQLite: escapes, HTML characters,
// non-ASCII, a line separator.
var ids = []any{
	"plain", "a\"b\\c<d>&e", "é😀\u2028x", bson.NewObjectID(), int32(7), int64(1) << 40, 2.5,
	true, time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), bson.D{{Key: "org", Value: "o1"}, {Key: "n", Value: int32(2)}},
}

// exerciseIDs writes a document for each of ids into coll, then finds,
// updates, refuses again and deletes each by its _id.
func exerciseIDs(t *testing.T, ctx context.Context, coll *mongo.Collection) {
	t.Helper()
	for i, id := range ids {
		if _, err := coll.InsertOne(ctx, bson.M{"_id": id, "n": i}); err != nil {
			t.Fatalf("insert %v: %v", id, err)
		}
	}
	for i, id := range ids {
		var got struct{ N int }
		if err := coll.FindOne(ctx, bson.M{"_id": id}).Decode(&got); err != nil || got.N != i {
			t.Errorf("find %v: %v, n %d, want %d", id, err, got.N, i)
		}
		if _, err := coll.InsertOne(ctx, bson.M{"_id": id}); !mongo.IsDuplicateKeyError(err) {
			t.Errorf("insert %v again: %v, want a duplicate key error", id, err)
		}
		if res, err := coll.UpdateOne(ctx, bson.M{"_id": id}, bson.M{"$set": bson.M{"n": i + 100}}); err != nil || res.ModifiedCount != 1 {
			t.Errorf("update %v: %v %+v", id, err, res)
		}
		if err := coll.FindOne(ctx, bson.M{"_id": id}).Decode(&got); err != nil || got.N != i+100 {
			t.Errorf("find %v updated: %v, n %d, want %d", id, err, got.N, i+100)
		}
	}
	for _, id := range ids {
		if res, err := coll.DeleteOne(ctx, bson.M{"_id": id}); err != nil || res.DeletedCount != 1 {
			t.Errorf("delete %v: %v %+v", id, err, res)
		}
	}
	if n, err := coll.CountDocuments(ctx, bson.M{}); err != nil || n != 0 {
		t.Errorf("left %d documents (%v), want none", n, err)
	}
}

// openSQLite opens the embedded server's file of database name in dir.
func openSQLite(t *testing.T, dir, name string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, name+".sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// A collection made now holds each _id in a column of its own, as
// SQLite's -> gives it from the document's JSON text (which the lookups,
// updates and deletes by _id compare with), and its _id_ index is on that
// column: writing or deleting a document no longer parses its JSON.
func TestIDColumnHoldsTheIDAsTheJSONGivesIt(t *testing.T) {
	dir := t.TempDir()
	srv, err := embedded.StartMongo(dir, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx := context.Background()
	client := connect(t, srv.URI)
	coll := client.Database("ids").Collection("docs")
	for i, id := range ids {
		if _, err := coll.InsertOne(ctx, bson.M{"_id": id, "n": i}); err != nil {
			t.Fatalf("insert %v: %v", id, err)
		}
	}
	db := openSQLite(t, dir, "ids")
	var table, settings string
	if err := db.QueryRow(`SELECT table_name, settings FROM _ferretdb_collections WHERE name = 'docs'`).Scan(&table, &settings); err != nil {
		t.Fatal(err)
	}
	var rows, same int
	q := fmt.Sprintf(`SELECT count(*), count(CASE WHEN _ferretdb_id = _ferretdb_sjson->"_id" THEN 1 END) FROM %q`, table)
	if err := db.QueryRow(q).Scan(&rows, &same); err != nil {
		t.Fatal(err)
	}
	if rows != len(ids) || same != rows {
		t.Errorf("%d of %d rows hold their _id as the JSON gives it, want %d", same, rows, len(ids))
	}
	var index string
	q = `SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?`
	if err := db.QueryRow(q, table+"__id_").Scan(&index); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf(`CREATE UNIQUE INDEX %q ON %q (_ferretdb_id)`, table+"__id_", table); index != want {
		t.Errorf("the _id_ index is\n%s\nwant\n%s", index, want)
	}
	if _, err := coll.DeleteMany(ctx, bson.M{}); err != nil {
		t.Fatal(err)
	}
	exerciseIDs(t, ctx, coll)
}

// A collection made before the _id had its column (its table without it,
// its _id_ index on the JSON, its settings without idInColumn) is read and
// written as before.
func TestCollectionsWithoutIDColumnStillServe(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	srv, err := embedded.StartMongo(dir, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	client, err := mongox.Connect(ctx, srv.URI)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Database("ids").Collection("docs").InsertOne(ctx, bson.M{"_id": "first"}); err != nil {
		t.Fatal(err)
	}
	_ = client.Disconnect(ctx)
	srv.Close()

	// The table as the previous release made it, with its document.
	db := openSQLite(t, dir, "ids")
	var table string
	if err := db.QueryRow(`SELECT table_name FROM _ferretdb_collections WHERE name = 'docs'`).Scan(&table); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE TABLE "before" (_ferretdb_sjson TEXT NOT NULL CHECK(_ferretdb_sjson != '')) STRICT`,
		fmt.Sprintf(`INSERT INTO "before" SELECT _ferretdb_sjson FROM %q`, table),
		fmt.Sprintf(`DROP TABLE %q`, table),
		fmt.Sprintf(`ALTER TABLE "before" RENAME TO %q`, table),
		fmt.Sprintf(`CREATE UNIQUE INDEX %q ON %q (_ferretdb_sjson->"_id")`, table+"__id_", table),
		`UPDATE _ferretdb_collections SET settings = json_remove(settings, '$.idInColumn') WHERE name = 'docs'`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	_ = db.Close()

	srv, err = embedded.StartMongo(dir, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	coll := connect(t, srv.URI).Database("ids").Collection("docs")
	if n, err := coll.CountDocuments(ctx, bson.M{"_id": "first"}); err != nil || n != 1 {
		t.Fatalf("the document written before: %d (%v)", n, err)
	}
	if _, err := coll.DeleteOne(ctx, bson.M{"_id": "first"}); err != nil {
		t.Fatal(err)
	}
	exerciseIDs(t, ctx, coll)
}
