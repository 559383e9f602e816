package visitkafka

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/docspub/platform/libs/kafkatest"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/waittest"
	"github.com/docspub/platform/services/insights/internal/rollup"
)

// applied records the batches a reader hands it, in order.
type applied struct {
	mu      sync.Mutex
	batches []rollup.Batch
}

func (a *applied) Apply(_ context.Context, bs []rollup.Batch) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.batches = append(a.batches, bs...)
	return nil
}

func (a *applied) Prepare([]rollup.Batch, *rollup.Grouping) (*rollup.Prepared, error) {
	return nil, fmt.Errorf("not prepared: applied again") // Apply takes the batches
}

func (a *applied) ApplyPrepared(context.Context, *rollup.Prepared) error { return nil }

func (a *applied) Recover(context.Context, time.Time) error { return nil }

func (a *applied) ids() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for _, b := range a.batches {
		visits, err := b.Decoded() // the reader dropped them once grouped
		if err != nil {
			out = append(out, fmt.Sprintf("%s:%v", b.Site, err))
			continue
		}
		out = append(out, fmt.Sprintf("%s:%d", b.Site, len(visits)))
	}
	return out
}

// The reader decodes each message of a chunk as it comes and hands the
// chunk's batches in the log's order, skipping a message that is not a
// batch of visits (logged), in both formats.
func TestReaderHandsBatchesInOrder(t *testing.T) {
	k := kafkatest.Start(t)
	cluster := kafkax.Plain(k.Brokers)
	kafkatest.CreateTopic(t, k.Brokers, Topic, 1)
	pub := kafkax.NewPublisher(cluster)
	defer pub.Close()
	ctx := context.Background()
	var want []string
	for i := range 30 {
		format := []Format{Binary, JSON}[i%2]
		site := fmt.Sprintf("site%d", i)
		if err := NewWriter(pub, 10*time.Second, format).Append(ctx, "org", site, manyVisits(1+i%4)); err != nil {
			t.Fatal(err)
		}
		want = append(want, fmt.Sprintf("%s:%d", site, 1+i%4))
		if i == 10 {
			bad := kafkax.Event{ID: "bad", Type: EventTypeBinary, Organization: "org", Subject: "bad", Data: []byte(`"!!"`)}
			if err := pub.Publish(ctx, Topic, bad); err != nil {
				t.Fatal(err)
			}
		}
	}
	a := &applied{}
	r := NewReader(cluster, "rollups-test", a, logx.Discard())
	done := make(chan error, 1)
	runCtx, cancel := context.WithCancel(ctx)
	go func() { done <- r.Run(runCtx) }()
	defer func() {
		cancel()
		_ = r.Close()
		<-done
	}()
	waittest.Until(t, "every batch applied", 30*time.Second, func() bool { return len(a.ids()) >= len(want) })
	got := a.ids()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("applied %v\nwant %v", got, want)
	}
}
