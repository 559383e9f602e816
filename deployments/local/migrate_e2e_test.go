package local

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/docspub/platform/libs/logx"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// A data directory written before the blob store keeps file bytes in
// MongoDB's GridFS: the next start (its migration steps in-process, the
// destructive ones too with MIGRATE_DESTRUCTIVE) moves them to
// $DATA_DIR/blobs, drops the GridFS collections, and the file downloads
// as before (now with its SHA-256 as ETag).
func TestGridFSFilesMoveAtStart(t *testing.T) {
	inProcessOnly(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	p, err := Start(ctx, Config{Addr: "127.0.0.1:0", DataDir: dir, LogLevel: "warn"}, logx.ForTest(t))
	if err != nil {
		t.Fatal(err)
	}
	a := newBenchAPI(t, p)
	sp, first := a.space(p.Credentials.DemoOrgID, p.Credentials.DemoAdminToken, "Old files")

	// What the GridFS store wrote: the driver's upload with its metadata.
	client, err := mongo.Connect(options.Client().ApplyURI(p.MongoURI))
	if err != nil {
		t.Fatal(err)
	}
	data := randomBytes(7, 300<<10) // two chunks
	db := client.Database("content")
	id, err := db.GridFSBucket(options.GridFSBucket().SetName("files")).UploadFromStream(ctx, "old.png", bytes.NewReader(data),
		options.GridFSUpload().SetMetadata(bson.D{{Key: "contentType", Value: "image/png"}, {Key: "space", Value: sp},
			{Key: "organization", Value: p.Credentials.DemoOrgID}, {Key: "usedAt", Value: time.Now()}}))
	if err != nil {
		t.Fatal(err)
	}
	// A data directory of a release before the migration steps recorded none.
	if err := db.Collection("_migrations").Drop(ctx); err != nil {
		t.Fatal(err)
	}
	_ = client.Disconnect(ctx)
	// A revision that refers to it by its GridFS id, as revisions did.
	git := p.ContentURL + "/internal/v1/spaces/" + sp + "/git"
	var rev struct{ Revision string }
	if err := json.Unmarshal(a.send("POST", git+"/revisions", "", true, map[string]any{"parent": first,
		"pages": []map[string]any{{"kind": "document", "title": "Home", "slug": "home", "markdown": "Old.", "pages": []any{}}},
		"files": []map[string]any{{"name": "old.png", "contentType": "image/png", "size": len(data), "blob": id.Hex()}}}), &rev); err != nil {
		t.Fatal(err)
	}
	p.Close()

	p, err = Start(ctx, Config{Addr: "127.0.0.1:0", DataDir: dir, LogLevel: "warn", MigrateDestructive: true}, logx.ForTest(t))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	client, err = mongo.Connect(options.Client().ApplyURI(p.MongoURI))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Disconnect(ctx)
	names, err := client.Database("content").ListCollectionNames(ctx, bson.M{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"files.files", "files.chunks", "blob_moves"} {
		if slices.Contains(names, c) {
			t.Errorf("collection %s left after the move", c)
		}
	}
	a = newBenchAPI(t, p)
	var files struct {
		Items []struct{ ID string } `json:"items"`
	}
	if err := json.Unmarshal(a.send("GET", p.URL+"/v1/spaces/"+sp+"/content/files", p.Credentials.DemoAdminToken, false, nil), &files); err != nil || len(files.Items) != 1 {
		t.Fatalf("files: %+v %v", files, err)
	}
	req, _ := http.NewRequest("GET", p.URL+"/v1/spaces/"+sp+"/revisions/"+rev.Revision+"/files/"+files.Items[0].ID+"/download", nil)
	req.Header.Set("Authorization", "Bearer "+p.Credentials.DemoReaderToken)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	got, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || !bytes.Equal(got, data) || res.Header.Get("ETag") == "" {
		t.Fatalf("download after the move: %d, %d bytes, ETag %q", res.StatusCode, len(got), res.Header.Get("ETag"))
	}
	var stored int
	_ = filepath.WalkDir(filepath.Join(dir, "blobs", "orgs"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(path) != ".attrs" {
			stored++
		}
		return nil
	})
	if stored != 1 {
		t.Errorf("%d files under $DATA_DIR/blobs/orgs, want the moved one", stored)
	}
}
