package content_test

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/blob/blobtest"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/migrate"
	"github.com/docspub/platform/libs/mongotest"
	libservice "github.com/docspub/platform/libs/service"
	"github.com/docspub/platform/services/content"
	"github.com/docspub/platform/services/content/internal/migratemongo"
	"github.com/docspub/platform/services/content/internal/searchmongo"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// migrateConfig is content's configuration on a fresh database (no Kafka:
// migrating never reaches it).
func migrateConfig(t *testing.T) content.Config {
	db := mongotest.DatabaseName()
	t.Cleanup(func() {
		_ = mongotest.Client(t).Database(db).Drop(context.Background())
		_ = mongotest.Client(t).Database(db + searchmongo.DatabaseSuffix).Drop(context.Background())
	})
	return content.Config{Base: libservice.Base{MongoURI: mongotest.URI(t),
		Kafka: kafkax.Config{Brokers: []string{"127.0.0.1:1"}}, InternalTokenSecret: secret, LogLevel: "error"},
		URLs: libservice.URLs{PublicURL: "http://gw.test", AppURL: "http://gw.test/app"},
		Addr: "127.0.0.1:0", Database: db, PurgeInterval: time.Hour, BlobURL: blobtest.Dir(t)}
}

// oldLayout writes what content stored before its migrations: a file in
// GridFS that a revision refers to, a space at that revision, and the
// search index's shards in content's own database.
func oldLayout(t *testing.T, db *mongo.Database) {
	ctx := context.Background()
	id, err := db.GridFSBucket(options.GridFSBucket().SetName("files")).UploadFromStream(ctx, "old.png", bytes.NewReader([]byte("png bytes")),
		options.GridFSUpload().SetMetadata(bson.D{{Key: "contentType", Value: "image/png"}, {Key: "organization", Value: "org1"}}))
	if err != nil {
		t.Fatal(err)
	}
	for coll, doc := range map[string]bson.M{
		"revisions": {"_id": "r1", "space": "sp1", "organization": "org1", "pages": bson.A{},
			"files": bson.A{bson.M{"id": "f1", "name": "old.png", "contentType": "image/png", "size": int64(9), "blob": id.Hex()}}},
		"spaces":              {"_id": "sp1", "organization": "org1", "revision": "r1", "title": "Old"},
		"search_postings_007": {"_id": "x"},
		"search_spaces":       {"_id": "sp1"},
	} {
		if _, err := db.Collection(coll).InsertOne(ctx, doc); err != nil {
			t.Fatal(err)
		}
	}
}

// `content migrate` on a database of the old layout copies its files to
// the blob store and rebuilds its search index elsewhere, keeping the old
// data for the release before; a second run does nothing; --destructive
// then drops the old data, once.
func TestMigrateCommand(t *testing.T) {
	ctx := context.Background()
	cfg := migrateConfig(t)
	db := mongotest.Client(t).Database(cfg.Database)
	oldLayout(t, db)
	if _, err := content.New(ctx, cfg, logx.ForTest(t)); err == nil || !strings.Contains(err.Error(), "run `content migrate` first") {
		t.Fatalf("New on the old layout: %v; want refused until migrated", err)
	}
	applied, err := content.Migrate(ctx, cfg.Migration(), logx.ForTest(t), false)
	if err != nil || !slices.Equal(applied, []int{migratemongo.StepCopyGridFS, migratemongo.StepRebuildSearch}) {
		t.Fatalf("migrate = %v, %v", applied, err)
	}
	var rev struct {
		Files []struct{ Blob string } `bson:"files"`
	}
	if err := db.Collection("revisions").FindOne(ctx, bson.M{"_id": "r1"}).Decode(&rev); err != nil || len(rev.Files) != 1 || len(rev.Files[0].Blob) == 24 {
		t.Fatalf("revision after the copy: %+v, %v; want its file at its blob key", rev, err)
	}
	searchDB := mongotest.Client(t).Database(cfg.Database + searchmongo.DatabaseSuffix)
	if n, err := searchDB.Collection("search_spaces").CountDocuments(ctx, bson.M{"_id": "sp1"}); err != nil || n != 1 {
		t.Fatalf("space indexed in the search database: %d, %v", n, err)
	}
	names := collections(t, db)
	for _, c := range []string{"files.files", "files.chunks", "search_postings_007"} {
		if !slices.Contains(names, c) {
			t.Errorf("%s dropped by a step that is not destructive", c)
		}
	}
	if applied, err := content.Migrate(ctx, cfg.Migration(), logx.ForTest(t), false); err != nil || len(applied) != 0 {
		t.Fatalf("second migrate = %v, %v; want nothing done", applied, err)
	}
	if applied, err := content.Migrate(ctx, cfg.Migration(), logx.ForTest(t), true); err != nil ||
		!slices.Equal(applied, []int{migratemongo.StepDropGridFS, migratemongo.StepDropOldSearch}) {
		t.Fatalf("migrate --destructive = %v, %v", applied, err)
	}
	for _, c := range collections(t, db) {
		if strings.HasPrefix(c, "files.") || strings.HasPrefix(c, "search_") || c == "blob_moves" {
			t.Errorf("%s left after the destructive steps", c)
		}
	}
	if applied, err := content.Migrate(ctx, cfg.Migration(), logx.ForTest(t), true); err != nil || len(applied) != 0 {
		t.Fatalf("third migrate = %v, %v; want nothing done", applied, err)
	}
}

// A serving process refuses a database a newer binary migrated.
func TestNewRefusesNewerSchema(t *testing.T) {
	if got := migrate.Highest(migratemongo.Steps(nil, nil, nil)); got != migratemongo.SchemaVersion {
		t.Fatalf("SchemaVersion %d, the highest step %d", migratemongo.SchemaVersion, got)
	}
	ctx := context.Background()
	cfg := migrateConfig(t)
	if _, err := content.Migrate(ctx, cfg.Migration(), logx.ForTest(t), false); err != nil {
		t.Fatal(err)
	}
	db := mongotest.Client(t).Database(cfg.Database)
	if _, err := db.Collection(migrate.Collection).InsertOne(ctx, bson.M{"_id": 99, "name": "from the future",
		"startedAt": time.Now(), "finishedAt": time.Now(), "by": "newer"}); err != nil {
		t.Fatal(err)
	}
	_, err := content.New(ctx, cfg, logx.ForTest(t))
	if want := "database schema version 99 is newer than this binary's 4: roll forward, or restore"; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("New = %v; want %q", err, want)
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
