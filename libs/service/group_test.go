package service

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/google/go-cmp/cmp"
)

func TestGroupStopWaitsForEveryGoroutine(t *testing.T) {
	t.Parallel()
	var g group
	var done atomic.Int32
	cleaning, release := make(chan struct{}, 3), make(chan struct{})
	for range 3 {
		g.run(context.Background(), func(ctx context.Context) {
			<-ctx.Done()
			cleaning <- struct{}{}
			<-release // cleaning up after the cancel, until the test lets it end
			done.Add(1)
		})
	}
	stopped := make(chan error, 1)
	go func() { stopped <- g.stop(context.Background(), "workers") }()
	for range 3 {
		<-cleaning
	}
	select {
	case err := <-stopped:
		t.Fatalf("stop returned (%v) while its goroutines were still cleaning up", err)
	default:
	}
	close(release)
	if err := <-stopped; err != nil {
		t.Fatalf("stop = %v", err)
	}
	if got := done.Load(); got != 3 {
		t.Errorf("stop returned with %d of 3 goroutines done", got)
	}
}

func TestGroupStopGivesUpWhenCtxEnds(t *testing.T) {
	t.Parallel()
	var g group
	release := make(chan struct{})
	defer close(release)
	g.run(context.Background(), func(context.Context) { <-release }) // ignores its context
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	err := g.stop(ctx, "workers")
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "stop workers") {
		t.Errorf("stop = %v, want the deadline, naming the workers", err)
	}
}

func TestGroupOfNothingStops(t *testing.T) {
	t.Parallel()
	var g group
	if err := g.stop(context.Background(), "nothing"); err != nil {
		t.Errorf("stop = %v", err)
	}
}

// TestCloseStopsRelayThenWorkersThenConnections: Close waits for the relay,
// then for the workers started by Go, and only then closes what they use.
func TestCloseStopsRelayThenWorkersThenConnections(t *testing.T) {
	ctx := context.Background()
	c, err := Open(ctx, CoreConfig{Service: "things", MongoURI: mongotest.URI(t), Database: mongotest.DatabaseName(),
		Kafka: kafkax.Config{Brokers: []string{"127.0.0.1:1"}}, InternalTokenSecret: strings.Repeat("s", 32), Topic: "things.events"}, logx.Discard())
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var order []string
	record := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		order = append(order, s)
	}
	// Each stops a while after its cancel (a pause standing for its
	// cleanup, not a wait for something), so an order that did not wait
	// would show.
	stopping := func(name string, after time.Duration) func(context.Context) error {
		return func(ctx context.Context) error {
			<-ctx.Done()
			time.Sleep(after)
			record(name)
			return nil
		}
	}
	c.Go(ctx, "worker", stopping("worker", 10*time.Millisecond)) // started first, stopped after the relay
	c.relay.run(ctx, c.logged("relay", stopping("relay", 30*time.Millisecond)))
	c.RunRelay(ctx) // the real relay stops with them
	if err := c.Mongo.Drop(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(ctx, func() error { record("consumer closed"); return nil }); err != nil {
		t.Fatalf("Close = %v", err)
	}
	if diff := cmp.Diff(order, []string{"relay", "worker", "consumer closed"}); diff != "" {
		t.Errorf("shutdown order (-got +want):\n%s", diff)
	}
}
