package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/blob/blobtest"
	"github.com/docspub/platform/libs/migrate"
	"github.com/docspub/platform/libs/mongotest"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// argsVar makes the test binary run main with these arguments instead of
// the tests: the command, without building it.
const argsVar = "CONTENT_TEST_MAIN_ARGS"

func TestMain(m *testing.M) {
	if args, ok := os.LookupEnv(argsVar); ok {
		os.Args = append([]string{"content"}, strings.Fields(args)...)
		main()
		os.Exit(0)
	}
	mongotest.Main(m)
}

// command runs `content <args>` with env and returns its output and exit code.
func command(t *testing.T, env []string, args string) (string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), argsVar+"="+args), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return out.String(), cmd.ProcessState.ExitCode()
}

// `content migrate` on a database of the old layout (a file in GridFS a
// revision refers to) moves it and exits 0; a second run does nothing;
// --destructive then drops the bucket; a database a newer binary migrated
// is refused, saying so.
func TestMigrateCommand(t *testing.T) {
	ctx := context.Background()
	db := mongotest.Database(t)
	id, err := db.GridFSBucket(options.GridFSBucket().SetName("files")).UploadFromStream(ctx, "old.png", bytes.NewReader([]byte("png")),
		options.GridFSUpload().SetMetadata(bson.D{{Key: "contentType", Value: "image/png"}, {Key: "organization", Value: "org1"}}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Collection("revisions").InsertOne(ctx, bson.M{"_id": "r1", "space": "sp1", "organization": "org1", "pages": bson.A{},
		"files": bson.A{bson.M{"id": "f1", "name": "old.png", "contentType": "image/png", "size": int64(3), "blob": id.Hex()}}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Client().Database(db.Name() + "_search").Drop(context.Background()) })
	env := []string{"MONGO_URI=" + mongotest.URI(t), "CONTENT_DB=" + db.Name(),
		"BLOB_URL=" + blobtest.Dir(t), "LOG_LEVEL=error", "ADMIN_ADDR=127.0.0.1:1"}
	for _, run := range []struct{ args, want string }{
		{"migrate", "content migrate: applied [1 2]"},
		{"migrate", "content migrate: applied []"},
		{"migrate --destructive", "content migrate: applied [3 4]"},
	} {
		if out, code := command(t, env, run.args); code != 0 || !strings.Contains(out, run.want) {
			t.Fatalf("content %s: exit %d, %q; want 0 and %q", run.args, code, out, run.want)
		}
		if run.want == "content migrate: applied [1 2]" {
			var rev struct {
				Files []struct{ Blob string } `bson:"files"`
			}
			if err := db.Collection("revisions").FindOne(ctx, bson.M{"_id": "r1"}).Decode(&rev); err != nil || rev.Files[0].Blob == id.Hex() {
				t.Fatalf("revision after migrate: %+v, %v; want its file moved", rev, err)
			}
		}
	}
	if names, err := db.ListCollectionNames(ctx, bson.M{}); err != nil || slices.Contains(names, "files.files") {
		t.Fatalf("collections %v, %v; want the bucket dropped", names, err)
	}
	if _, err := db.Collection(migrate.Collection).InsertOne(ctx, bson.M{"_id": 99, "name": "newer", "startedAt": time.Now(),
		"finishedAt": time.Now(), "by": "newer"}); err != nil {
		t.Fatal(err)
	}
	want := "database schema version 99 is newer than this binary's 4: roll forward, or restore"
	if out, code := command(t, env, "migrate"); code != 1 || !strings.Contains(out, want) {
		t.Fatalf("content migrate on a newer schema: exit %d, %q; want 1 and %q", code, out, want)
	}
}
