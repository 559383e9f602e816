package kafkax_test

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/kafkatest"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/waittest"
)

// TestNothingRefreshesMetadataAfterClose: a kafka-go connection pool
// refreshes the cluster's metadata every metadataTTL until its transport is
// closed. Left open, a closed component's pools kept dialling an address
// that later served something else, read its answer as a Kafka array length
// and allocated gigabytes. After Close, Ping and EnsureTopics, no pool is
// left.
func TestNothingRefreshesMetadataAfterClose(t *testing.T) {
	k := kafkatest.Start(t)
	c := kafkax.Plain(k.Brokers)
	c.Layout = func(string) kafkax.Layout { return kafkax.Layout{Partitions: 1, ReplicationFactor: 1} }
	ctx := context.Background()
	if err := c.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	topic := kafkatest.Topic()
	if err := c.EnsureTopics(ctx, topic); err != nil {
		t.Fatal(err)
	}
	p := kafkax.NewPublisher(c)
	if err := p.Publish(ctx, topic, event("thing.created", "t1", nil)); err != nil {
		t.Fatal(err)
	}
	if n := metadataRefreshers(); n == 0 {
		t.Fatal("an open publisher shows no connection pool: the check below could not fail")
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	waittest.Until(t, "every kafka-go connection pool to stop", 10*time.Second, func() bool {
		return metadataRefreshers() == 0
	})
}

// metadataRefreshers counts the goroutines of kafka-go pools refreshing
// metadata.
func metadataRefreshers() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Count(string(buf[:n]), "kafka-go.(*connPool).discover")
		}
		buf = make([]byte, 2*len(buf))
	}
}
