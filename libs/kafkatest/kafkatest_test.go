package kafkatest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/docspub/platform/libs/kafkax"
	"github.com/google/go-cmp/cmp"
)

func TestReadN(t *testing.T) {
	k := Start(t)
	topic := Topic()
	CreateTopic(t, k.Brokers, topic, 3)
	pub := kafkax.NewPublisher(kafkax.Plain(k.Brokers))
	t.Cleanup(func() { _ = pub.Close() })

	var want []string
	var events []kafkax.Event
	for _, s := range []string{"a", "b", "c", "d", "e", "f"} {
		ev := kafkax.NewEvent("thing.created", "org1", s, nil)
		events = append(events, ev)
		want = append(want, ev.ID)
	}
	if err := pub.Publish(context.Background(), topic, events...); err != nil {
		t.Fatal(err)
	}

	got := ReadN(t, k.Brokers, topic, len(events), 20*time.Second)
	var ids []string
	for _, ev := range got {
		ids = append(ids, ev.ID)
	}
	slices.Sort(ids)
	slices.Sort(want)
	if diff := cmp.Diff(ids, want); diff != "" {
		t.Errorf("events from every partition (-got +want):\n%s", diff)
	}

	// Asking for more than there is fails at the deadline with what came.
	more, err := read(k.Brokers, topic, len(events)+1, 500*time.Millisecond)
	if err == nil || len(more) != len(events) {
		t.Errorf("read of %d from %d events = %d, %v; want %d and an error", len(events)+1, len(events), len(more), err, len(events))
	}
}
