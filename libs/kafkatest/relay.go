package kafkatest

import (
	"context"
	"testing"

	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/mongox"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// Relay runs the outbox relay of db's collections to a fresh topic of a new
// embedded cluster until the test ends, as a service runs it, so that long
// tests (the race suites) keep their documents drained of published events
// and their tombstones deleted, as in production. Stores call the returned
// relay's Notify after writing.
func Relay(t testing.TB, db *mongo.Database, locks *mongox.DocLocks, collections ...string) *kafkax.Relay {
	t.Helper()
	k := Start(t)
	pub := kafkax.NewPublisher(k.Brokers)
	relay := kafkax.NewRelay(db, pub, Topic(), collections, logx.Discard(), kafkax.WithDocLocks(locks))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = relay.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
		_ = pub.Close()
	})
	return relay
}
