package embedded_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/docspub/platform/libs/embedded"
	"github.com/docspub/platform/libs/mongox"
	"go.mongodb.org/mongo-driver/v2/bson"
	_ "modernc.org/sqlite"
)

// largeDoc is the size of the binary field of the documents below: a
// rollup chunk record or a chunk's bucket sets are about 4 MiB at 100,000
// events/s (deployments/docs/benchmarks/insights.md).
const largeDoc = 4 << 20

// BenchmarkLargeDocument writes a document holding 4 MiB of binary data
// and deletes it by _id, as the insights rollups write and drop a chunk
// record, through the embedded server and the driver ("embedded server"),
// and, to size where that time goes, the same document as FerretDB's
// SQLite backend stores it (its JSON text, binary as base64) straight
// into SQLite: with FerretDB's unique index on the _id taken out of the
// JSON text ("sqlite, _id from the JSON"), which parses the whole text on
// every insert and delete, and with the _id in a column of its own
// ("sqlite, _id column").
//
//	go test -run '^$' -bench LargeDocument -benchtime 20x ./libs/embedded/
func BenchmarkLargeDocument(b *testing.B) {
	data := make([]byte, largeDoc)
	_, _ = rand.Read(data)
	b.Run("embedded server", func(b *testing.B) {
		srv, err := embedded.StartMongo(b.TempDir(), "", nil)
		if err != nil {
			b.Fatal(err)
		}
		defer srv.Close()
		ctx := context.Background()
		client, err := mongox.Connect(ctx, srv.URI)
		if err != nil {
			b.Fatal(err)
		}
		defer func() { _ = client.Disconnect(ctx) }()
		coll := client.Database("large").Collection("docs")
		b.SetBytes(largeDoc)
		b.ResetTimer()
		for i := range b.N {
			id := fmt.Sprint(i)
			if _, err := coll.InsertOne(ctx, bson.M{"_id": id, "data": data}); err != nil {
				b.Fatal(err)
			}
			if _, err := coll.DeleteOne(ctx, bson.M{"_id": id}); err != nil {
				b.Fatal(err)
			}
		}
	})
	text := base64.StdEncoding.EncodeToString(data)
	for _, c := range []struct{ name, schema, insert string }{
		{"sqlite, _id from the JSON", `CREATE TABLE docs (_ferretdb_sjson TEXT);
			CREATE UNIQUE INDEX docs_id ON docs (_ferretdb_sjson->'$._id')`,
			`INSERT INTO docs (_ferretdb_sjson) VALUES (?2)`},
		{"sqlite, _id column", `CREATE TABLE docs (_id TEXT, _ferretdb_sjson TEXT);
			CREATE UNIQUE INDEX docs_id ON docs (_id)`,
			`INSERT INTO docs (_id, _ferretdb_sjson) VALUES (?1, ?2)`},
	} {
		b.Run(c.name, func(b *testing.B) {
			db, err := sql.Open("sqlite", "file:"+filepath.Join(b.TempDir(), "large.db")+"?_pragma=journal_mode(wal)")
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec(c.schema); err != nil {
				b.Fatal(err)
			}
			// `->` gives the JSON text of the _id, quotes included.
			del, quote := `DELETE FROM docs WHERE _ferretdb_sjson->'$._id' = ?`, true
			if c.name == "sqlite, _id column" {
				del, quote = `DELETE FROM docs WHERE _id = ?`, false
			}
			b.SetBytes(largeDoc)
			b.ResetTimer()
			for i := range b.N {
				id := fmt.Sprint(i)
				doc := `{"_id":"` + id + `","data":{"$b":"` + text + `"}}`
				if _, err := db.Exec(c.insert, id, doc); err != nil {
					b.Fatal(err)
				}
				key := id
				if quote {
					key = `"` + id + `"`
				}
				if res, err := db.Exec(del, key); err != nil {
					b.Fatal(err)
				} else if n, _ := res.RowsAffected(); n != 1 {
					b.Fatalf("deleted %d documents, want 1", n)
				}
			}
		})
	}
}
