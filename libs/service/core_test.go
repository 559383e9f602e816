package service

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/migrate"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

func TestOpenEnsuresIndexesAndCloses(t *testing.T) {
	ctx := context.Background()
	name := mongotest.DatabaseName()
	c, err := Open(ctx, CoreConfig{Service: "things", MongoURI: mongotest.URI(t), Database: name, Kafka: kafkax.Config{Brokers: []string{"127.0.0.1:1"}},
		InternalTokenSecret: strings.Repeat("s", 32), Topic: "things.events", EventCollections: []string{"things"},
		Indexes: []mongox.Index{mongox.Unique("things", "key")}}, logx.Discard())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Mongo.Drop(context.Background()) })
	if c.Mongo.Name() != name || c.Relay == nil || c.Signer == nil || c.Signer.Service() != "things" {
		t.Errorf("core %+v", c)
	}
	if _, err := c.Mongo.Collection("things").InsertOne(ctx, map[string]any{"key": "k"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Mongo.Collection("things").InsertOne(ctx, map[string]any{"key": "k"}); err == nil {
		t.Error("the unique index was not created")
	}
	boom := errors.New("consumer close failed")
	closed := false
	err = c.Close(ctx, func() error { closed = true; return boom })
	if !closed || !errors.Is(err, boom) {
		t.Errorf("Close = %v (first closed: %v), want the consumer's error", err, closed)
	}
}

func TestOpenRefusesAShortSecret(t *testing.T) {
	if _, err := Open(context.Background(), CoreConfig{Service: "things", InternalTokenSecret: "short"}, logx.Discard()); err == nil {
		t.Error("Open accepted a short internal token secret")
	}
}

func TestOpenNeedsTheServiceName(t *testing.T) {
	if _, err := Open(context.Background(), CoreConfig{InternalTokenSecret: strings.Repeat("s", 32)}, logx.Discard()); err == nil {
		t.Error("Open accepted a configuration without the service name")
	}
}

// Every service, with migration steps or none yet, refuses a database a
// newer binary migrated (an older image rolled back onto it).
func TestOpenRefusesANewerSchema(t *testing.T) {
	ctx := context.Background()
	db := mongotest.Database(t)
	if _, err := db.Collection(migrate.Collection).InsertOne(ctx, map[string]any{"_id": 1, "name": "from a newer release",
		"startedAt": time.Now(), "finishedAt": time.Now(), "by": "newer"}); err != nil {
		t.Fatal(err)
	}
	cc := CoreConfig{Service: "things", MongoURI: mongotest.URI(t), Database: db.Name(),
		Kafka: kafkax.Config{Brokers: []string{"127.0.0.1:1"}}, InternalTokenSecret: strings.Repeat("s", 32), Topic: "things.events"}
	_, err := Open(ctx, cc, logx.Discard())
	if want := "database schema version 1 is newer than this binary's 0: roll forward, or restore"; err == nil || err.Error() != want {
		t.Fatalf("Open = %v; want %q", err, want)
	}
	cc.SchemaVersion = 1
	c, err := Open(ctx, cc, logx.Discard())
	if err != nil {
		t.Fatalf("Open of a binary that knows the step: %v", err)
	}
	_ = c.Close(ctx)
}
