package ops_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/blob"
	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/kafkatest"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/ops"
	"github.com/segmentio/kafka-go"
	"github.com/sethvargo/go-envconfig"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

var content = ops.Service{Name: "content", DatabaseVar: "CONTENT_DB", DatabaseDefault: "content", Blobs: true}

// run runs one command as the binary would, with the environment env.
func run(t *testing.T, s ops.Service, env map[string]string, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := ops.Run(t.Context(), s, envconfig.MapLookuper(env), args, &out)
	return out.String(), err
}

func blobStore(t *testing.T) (string, *blob.Store) {
	t.Helper()
	url := "file://" + t.TempDir()
	s, err := blob.Open(t.Context(), url, blob.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return url, s
}

// seed writes documents of every shape (more than one insert batch) and
// blobs (one streamed, past a megabyte) as a service would.
func seed(t *testing.T, db *mongo.Database, blobs *blob.Store) {
	t.Helper()
	ctx := t.Context()
	var docs []any
	for i := range 1234 {
		docs = append(docs, bson.D{{Key: "_id", Value: fmt.Sprintf("s%05d", i)}, {Key: "organization", Value: "o" + fmt.Sprint(i%3)},
			{Key: "title", Value: "Space <é> 🚀 " + fmt.Sprint(i)}, {Key: "n", Value: int64(i)}, {Key: "f", Value: 1.5},
			{Key: "tags", Value: bson.A{"a", bson.D{{Key: "x", Value: nil}}}}})
	}
	if _, err := db.Collection("spaces").InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Collection("blobs").InsertOne(ctx, bson.M{"_id": bson.NewObjectID(), "size": 3}); err != nil {
		t.Fatal(err)
	}
	big := make([]byte, 3<<20)
	_, _ = rand.Read(big)
	for _, b := range [][]byte{[]byte("one"), []byte("two"), big} {
		if _, err := blobs.Put(ctx, "o1", "image/png", bytes.NewReader(b), int64(len(b)), nil); err != nil {
			t.Fatal(err)
		}
	}
}

// documents reads a collection whole, in _id order.
func documents(t *testing.T, coll *mongo.Collection) []bson.Raw {
	t.Helper()
	cur, err := coll.Find(t.Context(), bson.M{})
	if err != nil {
		t.Fatal(err)
	}
	var out []bson.Raw
	for cur.Next(t.Context()) {
		out = append(out, append(bson.Raw(nil), cur.Current...))
	}
	return out
}

func blobBytes(t *testing.T, s *blob.Store) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := s.List(t.Context(), "orgs/", func(o blob.Object) error {
		r, err := s.NewRangeReader(t.Context(), o.Key, 0, -1)
		if err != nil {
			return err
		}
		defer r.Close()
		out[o.Key], err = io.ReadAll(r)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A service's database and blob store, backed up, restore into an empty
// database and store byte for byte; the check finds nothing, then finds
// what a lost document or blob changes; a restore over data is refused
// unless --replace; another service's backup is refused.
func TestBackupRestoreCheck(t *testing.T) {
	src, dst := mongotest.Database(t), mongotest.Database(t)
	srcURL, srcBlobs := blobStore(t)
	dstURL, dstBlobs := blobStore(t)
	seed(t, src, srcBlobs)
	dir := t.TempDir() + "/backup"
	env := func(db, blobs string) map[string]string {
		return map[string]string{"MONGO_URI": mongotest.URI(t), "CONTENT_DB": db, "BLOB_URL": blobs}
	}
	out, err := run(t, content, env(src.Name(), srcURL), "backup", dir)
	if err != nil || !strings.Contains(out, `"documents": 1234`) {
		t.Fatalf("backup: %v\n%s", err, out)
	}
	if out, err := run(t, content, env(dst.Name(), dstURL), "restore", dir); err != nil || !strings.Contains(out, "matches") {
		t.Fatalf("restore: %v\n%s", err, out)
	}
	for _, c := range []string{"spaces", "blobs"} {
		if got, want := documents(t, dst.Collection(c)), documents(t, src.Collection(c)); len(got) != len(want) || !equalRaw(got, want) {
			t.Fatalf("restored %s: %d documents, want %d, equal %v", c, len(got), len(want), equalRaw(got, want))
		}
	}
	if got, want := blobBytes(t, dstBlobs), blobBytes(t, srcBlobs); len(got) != 3 || !equalBlobs(got, want) {
		t.Fatalf("restored blobs: %d, want the 3 of the source", len(got))
	}

	if _, err := run(t, content, env(dst.Name(), dstURL), "restore", dir); err == nil || !strings.Contains(err.Error(), "--replace") {
		t.Fatalf("a restore over data: %v", err)
	}
	if _, err := dst.Collection("spaces").DeleteOne(t.Context(), bson.M{"_id": "s00042"}); err != nil {
		t.Fatal(err)
	}
	for k := range blobBytes(t, dstBlobs) {
		if err := dstBlobs.Delete(t.Context(), k); err != nil {
			t.Fatal(err)
		}
		break
	}
	out, err = run(t, content, env(dst.Name(), dstURL), "check", dir)
	if err == nil || !strings.Contains(out, "collection spaces: 1233 documents") || !strings.Contains(out, "is missing") {
		t.Fatalf("check after losing a document and a blob: %v\n%s", err, out)
	}
	if out, err := run(t, content, env(dst.Name(), dstURL), "restore", dir, "--replace"); err != nil || !strings.Contains(out, "matches") {
		t.Fatalf("restore --replace: %v\n%s", err, out)
	}
	sites := ops.Service{Name: "sites", DatabaseVar: "SITES_DB", DatabaseDefault: "sites"}
	if _, err := run(t, sites, map[string]string{"MONGO_URI": mongotest.URI(t), "SITES_DB": mongotest.DatabaseName()}, "restore", dir); err == nil || !strings.Contains(err.Error(), "of content") {
		t.Fatalf("content's backup restored into sites: %v", err)
	}
}

func equalRaw(a, b []bson.Raw) bool {
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return len(a) == len(b)
}

func equalBlobs(a, b map[string][]byte) bool {
	for k, v := range a {
		if !bytes.Equal(v, b[k]) {
			return false
		}
	}
	return len(a) == len(b)
}

// The dead-letter command lists, shows, replays and drops the letters of
// the service's database; a replayed event reaches its consumer group.
func TestDeadLetterCommand(t *testing.T) {
	db := mongotest.Database(t)
	k := kafkatest.Start(t)
	ctx := t.Context()
	ev := kafkax.NewEvent(contentapi.SpaceUpdated, "o1", "s1", map[string]string{"title": "T"})
	for _, id := range []string{"consumer:g1:" + ev.ID, "relay:spaces:" + ev.ID} {
		raw, _ := bson.Marshal(ev)
		src, rest, _ := strings.Cut(id, ":")
		doc := bson.M{"_id": id, "source": src, "topic": "content.events", "event": bson.Raw(raw), "error": "refused", "attempts": 3, "count": 1}
		if src == kafkax.SourceConsumer {
			doc["group"] = strings.Split(rest, ":")[0]
		}
		if _, err := db.Collection(kafkax.DeadLetterCollection).InsertOne(ctx, doc); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"MONGO_URI": mongotest.URI(t), "SITES_DB": db.Name(), "KAFKA_BROKERS": strings.Join(k.Brokers, ",")}
	sites := ops.Service{Name: "sites", DatabaseVar: "SITES_DB", DatabaseDefault: "sites"}
	out, err := run(t, sites, env, "deadletters", "list", "--limit", "1")
	if err != nil || strings.Count(out, "\n") != 1 || !strings.Contains(out, `"id":"consumer:g1:`) {
		t.Fatalf("list --limit 1: %v\n%s", err, out)
	}
	out, err = run(t, sites, env, "deadletters", "show", "relay:spaces:"+ev.ID)
	if err != nil || !strings.Contains(out, `"type": "space.updated"`) {
		t.Fatalf("show: %v\n%s", err, out)
	}
	if out, err := run(t, sites, env, "deadletters", "replay", "consumer:g1:"+ev.ID); err != nil || !strings.Contains(out, "replayed") {
		t.Fatalf("replay: %v\n%s", err, out)
	}
	m := readOne(t, k.Brokers, "content.events")
	if !strings.Contains(string(m.Value), ev.ID) || !hasHeader(m, kafkax.HeaderReplayGroup, "g1") {
		t.Fatalf("replayed message %s, headers %v: want the event for group g1", m.Value, m.Headers)
	}
	if _, err := run(t, sites, env, "deadletters", "drop", "relay:spaces:"+ev.ID); err != nil {
		t.Fatal(err)
	}
	if out, err := run(t, sites, env, "deadletters", "list"); err != nil || out != "" {
		t.Fatalf("list after replay and drop: %v\n%q", err, out)
	}
	if _, err := run(t, sites, env, "deadletters", "show", "nope"); !errors.Is(err, kafkax.ErrNoDeadLetter) {
		t.Fatalf("show of a missing letter: %v", err)
	}
	if _, err := run(t, sites, env, "deadletters", "frobnicate"); !errors.Is(err, ops.ErrUsage) {
		t.Fatalf("an unknown subcommand: %v", err)
	}
}

// readOne reads the first message of topic's partition 0.
func readOne(t *testing.T, brokers []string, topic string) kafka.Message {
	t.Helper()
	r := kafka.NewReader(kafka.ReaderConfig{Brokers: brokers, Topic: topic, Partition: 0, MaxWait: 100 * time.Millisecond})
	defer r.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	m, err := r.ReadMessage(ctx)
	if err != nil {
		t.Fatalf("read %s: %v", topic, err)
	}
	return m
}

func hasHeader(m kafka.Message, key, value string) bool {
	for _, h := range m.Headers {
		if h.Key == key && string(h.Value) == value {
			return true
		}
	}
	return false
}
