package embedded_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"github.com/docspub/platform/libs/embedded"
	"github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// A member whose connection closed while it waited in a join (its
// process killed, or its client giving up on the join) is dropped after
// its session timeout, as a real broker drops it, and its partitions go
// to the members alive: the embedded Kafka kept it for good, with no
// session timer, once the leader's sync made the group stable, and the
// partition the leader gave it was never consumed (TestClusterChaos's
// sites projection stopped for good after a replica was killed while it
// joined).
func TestKafkaGroupDropsAMemberWhoseJoinAnswerWasLost(t *testing.T) {
	k, err := embedded.StartKafka(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(k.Close)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const topic, group = "lost-join", "lost-join-group"
	tr := &kafka.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	cl := &kafka.Client{Addr: kafka.TCP(k.Brokers...), Transport: tr}
	if _, err := cl.CreateTopics(ctx, &kafka.CreateTopicsRequest{Topics: []kafka.TopicConfig{{Topic: topic, NumPartitions: 2, ReplicationFactor: 1}}}); err != nil {
		t.Fatal(err)
	}

	r := kafka.NewReader(kafka.ReaderConfig{Brokers: k.Brokers, GroupID: group, Topic: topic,
		StartOffset: kafka.FirstOffset, MaxWait: 100 * time.Millisecond,
		HeartbeatInterval: 500 * time.Millisecond, SessionTimeout: 6 * time.Second, RebalanceTimeout: 3 * time.Second})
	t.Cleanup(func() { _ = r.Close() })
	w := &kafka.Writer{Addr: kafka.TCP(k.Brokers...), Topic: topic, Balancer: kafka.BalancerFunc(func(m kafka.Message, ps ...int) int { return int(m.Key[0] % 2) })}
	t.Cleanup(func() { _ = w.Close() })
	send := func(from int) {
		for i := from; i < from+4; i++ {
			if err := w.WriteMessages(ctx, kafka.Message{Key: []byte{byte(i)}, Value: []byte{byte(i)}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	read := make(chan int, 100)
	go func() {
		for {
			m, err := r.ReadMessage(ctx)
			if err != nil {
				return
			}
			read <- int(m.Value[0])
		}
	}()
	send(0)
	receive(t, read, 4, 30*time.Second) // the reader is the group's one member

	lostJoin(t, k.Brokers[0], group, topic)
	send(4)
	receive(t, read, 4, 30*time.Second)
}

// receive waits for n values on read.
func receive(t *testing.T, read <-chan int, n int, within time.Duration) {
	t.Helper()
	deadline := time.After(within)
	for got := 0; got < n; got++ {
		select {
		case <-read:
		case <-deadline:
			t.Fatalf("received %d of %d messages in %v", got, n, within)
		}
	}
}

// lostJoin joins group as a new consumer of topic, on a connection of
// its own, and closes that connection while the join waits for the
// group's rebalance.
func lostJoin(t *testing.T, broker, group, topic string) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", broker, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	meta := kmsg.ConsumerMemberMetadata{Topics: []string{topic}}
	join := kmsg.NewPtrJoinGroupRequest()
	join.Version = 5
	join.Group, join.SessionTimeoutMillis, join.RebalanceTimeoutMillis, join.ProtocolType = group, 6000, 3000, "consumer"
	join.Protocols = []kmsg.JoinGroupRequestProtocol{{Name: "range", Metadata: meta.AppendTo(nil)}}
	f := kmsg.NewRequestFormatter(kmsg.FormatterClientID("lost-join"))
	if _, err := conn.Write(f.AppendRequest(nil, join, 1)); err != nil {
		t.Fatal(err)
	}
	resp := kmsg.NewPtrJoinGroupResponse()
	resp.Version = 5
	if err := resp.ReadFrom(readFrame(t, conn)[4:]); err != nil {
		t.Fatal(err)
	}
	if resp.MemberID == "" {
		t.Fatalf("the first join gave no member id (error code %d)", resp.ErrorCode)
	}
	join.MemberID = resp.MemberID
	if _, err := conn.Write(f.AppendRequest(nil, join, 2)); err != nil {
		t.Fatal(err)
	}
	// The join now waits for the reader to join again; the connection
	// closes before the answer.
}

func readFrame(t *testing.T, conn net.Conn) []byte {
	t.Helper()
	var size [4]byte
	if _, err := io.ReadFull(conn, size[:]); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, binary.BigEndian.Uint32(size[:]))
	if _, err := io.ReadFull(conn, b); err != nil {
		t.Fatal(fmt.Errorf("read a response: %w", err))
	}
	return b
}
