package revisionmongo_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/docspub/platform/libs/blob/blobtest"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/services/content/internal/revisionmongo"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// The GridFS files of a data directory written before the blob store move
// to it once; a migration stopped half way resumes where it stopped, and
// DropGridFS, a later step, drops the old collections.
func TestMigrate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := mongotest.Database(t)
	blobs := blobtest.Open(t, blobtest.Dir(t))

	// What the GridFS store wrote: the driver's uploads, with its metadata.
	big := make([]byte, 600<<10) // three chunks
	if _, err := rand.Read(big); err != nil {
		t.Fatal(err)
	}
	datas := map[string][]byte{"logo.png": []byte("png bytes"), "copy.png": []byte("png bytes"), "big.bin": big,
		"empty.txt": {}, "other.png": []byte("other org's")}
	bucket := db.GridFSBucket(options.GridFSBucket().SetName(revisionmongo.Bucket))
	ids := map[string]string{}
	for _, name := range []string{"logo.png", "copy.png", "big.bin", "empty.txt", "other.png"} {
		org := "org1"
		if name == "other.png" {
			org = "org2"
		}
		id, err := bucket.UploadFromStream(ctx, name, bytes.NewReader(datas[name]), options.GridFSUpload().SetMetadata(bson.D{
			{Key: "contentType", Value: "image/png"}, {Key: "space", Value: "sp1"}, {Key: "organization", Value: org},
			{Key: "usedAt", Value: time.Now()}}))
		if err != nil {
			t.Fatal(err)
		}
		ids[name] = id.Hex()
	}
	// A file whose chunks were written out of _id order (read on its own).
	odd := bytes.Repeat([]byte("x"), 300<<10)
	datas["odd.bin"] = odd
	later, earlier := bson.NewObjectID(), bson.NewObjectID() // earlier > later
	oddID := bson.NewObjectID()
	ids["odd.bin"] = oddID.Hex()
	chunkSize := int(mongo.DefaultGridFSChunkSize)
	if _, err := db.Collection(revisionmongo.Chunks).InsertMany(ctx, []any{
		bson.D{{Key: "_id", Value: earlier}, {Key: "files_id", Value: oddID}, {Key: "n", Value: int32(0)}, {Key: "data", Value: bson.Binary{Data: odd[:chunkSize]}}},
		bson.D{{Key: "_id", Value: later}, {Key: "files_id", Value: oddID}, {Key: "n", Value: int32(1)}, {Key: "data", Value: bson.Binary{Data: odd[chunkSize:]}}},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Collection(revisionmongo.Files).InsertOne(ctx, bson.D{{Key: "_id", Value: oddID}, {Key: "length", Value: int64(len(odd))},
		{Key: "chunkSize", Value: mongo.DefaultGridFSChunkSize}, {Key: "uploadDate", Value: time.Now()}, {Key: "filename", Value: "odd.bin"},
		{Key: "metadata", Value: bson.D{{Key: "contentType", Value: "application/octet-stream"}, {Key: "organization", Value: "org1"}}}}); err != nil {
		t.Fatal(err)
	}
	// Revisions that refer to them by GridFS id.
	names := []string{"logo.png", "copy.png", "big.bin", "empty.txt", "odd.bin"}
	var files bson.A
	for _, n := range names {
		files = append(files, bson.M{"id": n, "name": n, "contentType": "image/png", "size": int64(len(datas[n])), "blob": ids[n]})
	}
	for _, r := range []bson.M{
		{"_id": "r1", "space": "sp1", "organization": "org1", "pages": bson.A{}, "files": files},
		{"_id": "r2", "space": "sp2", "organization": "org2", "pages": bson.A{},
			"files": bson.A{bson.M{"id": "o", "name": "other.png", "size": int64(len(datas["other.png"])), "blob": ids["other.png"]}}},
	} {
		if _, err := db.Collection(revisionmongo.Revisions).InsertOne(ctx, r); err != nil {
			t.Fatal(err)
		}
	}

	// The first start stops after two files.
	stopped, stop := context.WithCancel(ctx)
	n, err := revisionmongo.NewStore(db, blobs).Migrate(stopped, func(n int) {
		if n == 2 {
			stop()
		}
	})
	if err == nil || n != 2 {
		t.Fatalf("stopped migration = %d, %v; want 2 and an error", n, err)
	}
	if got := collections(t, db); !slices.Contains(got, revisionmongo.Files) || !slices.Contains(got, revisionmongo.Moves) {
		t.Fatalf("after a stop, collections %v: the bucket and the moves must stay", got)
	}
	// The next start moves the rest, once.
	s := revisionmongo.NewStore(db, blobs)
	n, err = s.Migrate(ctx, nil)
	if err != nil || n != len(ids)-2 {
		t.Fatalf("resumed migration = %d, %v; want the %d files left", n, err, len(ids)-2)
	}
	if got := collections(t, db); !slices.Contains(got, revisionmongo.Files) || !slices.Contains(got, revisionmongo.Chunks) {
		t.Fatalf("after the copy, collections %v: the bucket stays for the release before", got)
	}
	for range 2 { // dropping twice does nothing more
		if err := s.DropGridFS(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range collections(t, db) {
		if c == revisionmongo.Files || c == revisionmongo.Chunks || c == revisionmongo.Moves {
			t.Errorf("collection %s left after DropGridFS", c)
		}
	}
	// Every revision reads its files from the blob store.
	for _, rev := range []string{"r1", "r2"} {
		r, err := s.Get(ctx, rev)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range r.Files {
			if f.SHA256() == "" {
				t.Errorf("%s: file %s still refers to %s", rev, f.ID, f.Blob)
				continue
			}
			rc, err := s.OpenBlob(ctx, f.Blob, f.Size)
			if err != nil {
				t.Fatalf("%s: %v", f.ID, err)
			}
			got, _ := io.ReadAll(rc)
			rc.Close()
			if !bytes.Equal(got, datas[f.Name]) {
				t.Errorf("%s: %d bytes read, want its %d", f.Name, len(got), len(datas[f.Name]))
			}
		}
	}
	r1, _ := s.Tree(ctx, "r1")
	if r1.Files[0].Blob != r1.Files[1].Blob {
		t.Errorf("identical files of one organization stored twice: %s, %s", r1.Files[0].Blob, r1.Files[1].Blob)
	}
	u, err := s.Usage(ctx, "org1")
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(len("png bytes") + len(big) + len(odd)); u.FileBytes != want {
		t.Errorf("org1 stores %d bytes of files, want %d", u.FileBytes, want)
	}
	// A third start has nothing to do.
	if n, err := s.Migrate(ctx, nil); err != nil || n != 0 {
		t.Errorf("migration after the end = %d, %v", n, err)
	}
	// Nothing the migration wrote is collected as unused within the grace.
	if c, err := s.Collect(ctx, time.Now().Add(-time.Hour)); err != nil || c != (revisionmongo.Collected{}) {
		t.Errorf("collect = %+v, %v", c, err)
	}
	if c, err := s.Collect(ctx, time.Now().Add(time.Hour)); err != nil || c.Files != 0 {
		t.Errorf("collect past the grace = %+v, %v; every moved file is referenced", c, err)
	}
}

func collections(t *testing.T, db *mongo.Database) []string {
	t.Helper()
	names, err := db.ListCollectionNames(context.Background(), bson.M{})
	if err != nil {
		t.Fatal(err)
	}
	return names
}
