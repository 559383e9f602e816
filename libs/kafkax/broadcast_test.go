package kafkax_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/docspub/platform/libs/kafkatest"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/segmentio/kafka-go"
)

// Every broadcast reader sees every event of every partition published
// after it was ready, and none from before it started (a consumer group
// would split them between the readers).
func TestBroadcastReachesEveryReader(t *testing.T) {
	k := kafkatest.Start(t)
	const topic = "broadcast.events"
	tr := &kafka.Transport{}
	defer tr.CloseIdleConnections()
	res, err := (&kafka.Client{Addr: kafka.TCP(k.Brokers...), Transport: tr}).CreateTopics(context.Background(),
		&kafka.CreateTopicsRequest{Topics: []kafka.TopicConfig{{Topic: topic, NumPartitions: 3, ReplicationFactor: 1}}})
	if err == nil {
		err = res.Errors[topic]
	}
	if err != nil {
		t.Fatal(err)
	}
	pub := newPublisher(t, k.Brokers)
	before := event("thing.updated", "s0", nil)
	if err := pub.Publish(context.Background(), topic, before); err != nil {
		t.Fatal(err)
	}
	readers := []*recorder{{}, {}}
	for _, rec := range readers {
		b := kafkax.NewBroadcast(kafkax.Plain(k.Brokers), topic, rec.handle, nil)
		run(t, b.Run)
		eventually(t, "the broadcast ready", b.Ready)
	}
	var want []string
	for i := range 12 {
		ev := event("thing.updated", fmt.Sprintf("s%d", i), nil) // subjects spread over the partitions
		want = append(want, ev.ID)
		if err := pub.Publish(context.Background(), topic, ev); err != nil {
			t.Fatal(err)
		}
	}
	for i, rec := range readers {
		eventually(t, fmt.Sprintf("reader %d has the 12 events", i), func() bool { return len(rec.handled()) >= 12 })
		if diff := cmp.Diff(ids(rec.handled()), want, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
			t.Errorf("reader %d handled (-got +want):\n%s", i, diff)
		}
	}
}
