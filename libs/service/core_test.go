package service

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

func TestOpenEnsuresIndexesAndCloses(t *testing.T) {
	ctx := context.Background()
	name := mongotest.DatabaseName()
	c, err := Open(ctx, CoreConfig{Service: "things", MongoURI: mongotest.URI(t), LockDocuments: true, Database: name, Kafka: kafkax.Config{Brokers: []string{"127.0.0.1:1"}},
		InternalTokenSecret: strings.Repeat("s", 32), Topic: "things.events", EventCollections: []string{"things"},
		Indexes: []mongox.Index{mongox.Unique("things", "key")}}, logx.Discard())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Mongo.Drop(context.Background()) })
	if c.Mongo.Name() != name || c.Mongo.Locks() == nil || c.Relay == nil || c.Signer == nil || c.Signer.Service() != "things" {
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
