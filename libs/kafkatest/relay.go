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
// embedded cluster until the test ends, as a service runs it: long tests
// that write many events keep their documents drained (and their
// tombstones deleted) as in production. It returns the relay (stores call
// its Notify after writing), the brokers and the topic.
func Relay(t testing.TB, db *mongo.Database, locks *mongox.DocLocks, collections ...string) (*kafkax.Relay, []string, string) {
	t.Helper()
	k := Start(t)
	topic := Topic()
	pub := kafkax.NewPublisher(k.Brokers)
	relay := kafkax.NewRelay(db, pub, topic, collections, logx.Discard(), kafkax.WithDocLocks(locks))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = relay.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
		_ = pub.Close()
	})
	return relay, k.Brokers, topic
}
