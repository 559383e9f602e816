// Package kafkatest gives tests a real Kafka protocol server (an embedded
// kfake cluster) and reads back what was published to it.
package kafkatest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/docspub/platform/libs/embedded"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/segmentio/kafka-go"
)

// Start starts a one-broker kfake cluster (topics created on first use, one
// partition by default) that is stopped when the test ends.
func Start(t testing.TB) *embedded.Kafka {
	t.Helper()
	k, err := embedded.StartKafka(0)
	if err != nil {
		t.Fatalf("kafkatest: %v", err)
	}
	t.Cleanup(k.Close)
	return k
}

// Restartable is a one-broker kfake cluster that a test stops and starts
// again at the same address, as in a Kafka outage. Topics and messages do
// not survive a Stop.
type Restartable struct {
	Brokers []string
	t       testing.TB
	port    int
	k       *embedded.Kafka
}

// StartRestartable starts a cluster on a free loopback port; it is stopped
// when the test ends.
func StartRestartable(t testing.TB) *Restartable {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("kafkatest: %v", err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	r := &Restartable{t: t, port: port}
	r.Start()
	t.Cleanup(r.Stop)
	return r
}

// Stop stops the cluster (Kafka is down); Start brings it back.
func (r *Restartable) Stop() {
	if r.k != nil {
		r.k.Close()
		r.k = nil
	}
}

// Start starts the cluster again on its port, unless it runs.
func (r *Restartable) Start() {
	r.t.Helper()
	if r.k != nil {
		return
	}
	k, err := embedded.StartKafka(r.port)
	if err != nil {
		r.t.Fatalf("kafkatest: start kafka on port %d: %v", r.port, err)
	}
	r.k, r.Brokers = k, k.Brokers
}

// Topic returns a unique topic name.
func Topic() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "t_" + hex.EncodeToString(b[:])
}

// CreateTopic creates topic with the given number of partitions.
func CreateTopic(t testing.TB, brokers []string, topic string, partitions int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tr := &kafka.Transport{}
	defer tr.CloseIdleConnections() // kafka.DefaultTransport's pools outlive the server
	c := &kafka.Client{Addr: kafka.TCP(brokers...), Transport: tr}
	res, err := c.CreateTopics(ctx, &kafka.CreateTopicsRequest{Topics: []kafka.TopicConfig{{
		Topic: topic, NumPartitions: partitions, ReplicationFactor: 1,
	}}})
	if err == nil {
		err = res.Errors[topic]
	}
	if err != nil {
		t.Fatalf("kafkatest: create topic %s: %v", topic, err)
	}
}

// ReadN reads the first n events of topic, from every partition, waiting at
// most timeout for them; the test fails when fewer arrive. Events of one
// partition (so of one subject) come in their order on the partition.
func ReadN(t testing.TB, brokers []string, topic string, n int, timeout time.Duration) []kafkax.Event {
	t.Helper()
	got, err := read(brokers, topic, n, timeout)
	if err != nil {
		t.Fatalf("kafkatest: read %d events from %s: got %d: %v", n, topic, len(got), err)
	}
	return got
}

func read(brokers []string, topic string, n int, timeout time.Duration) ([]kafkax.Event, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	partitions, err := partitionsOf(ctx, brokers, topic)
	if err != nil {
		return nil, err
	}

	var (
		mu     sync.Mutex
		got    []kafkax.Event
		errs   []error
		wg     sync.WaitGroup
		enough = make(chan struct{})
	)
	rctx, stop := context.WithCancel(ctx)
	defer stop()
	for _, p := range partitions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := kafka.NewReader(kafka.ReaderConfig{
				Brokers: brokers, Topic: topic, Partition: p,
				MinBytes: 1, MaxBytes: 10 << 20, MaxWait: 100 * time.Millisecond,
			})
			defer r.Close()
			if err := r.SetOffset(kafka.FirstOffset); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
				return
			}
			for {
				m, err := r.ReadMessage(rctx)
				if err != nil {
					return
				}
				ev, err := kafkax.Decode(m)
				mu.Lock()
				if err != nil {
					errs = append(errs, err)
				} else {
					got = append(got, ev)
				}
				if len(got) == n {
					close(enough)
				}
				mu.Unlock()
			}
		}()
	}
	select {
	case <-enough:
	case <-ctx.Done():
	}
	stop()
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(got) < n {
		errs = append(errs, ctx.Err())
		return got, errors.Join(errs...)
	}
	return got[:n], errors.Join(errs...)
}

// partitionsOf waits until topic exists and returns its partition ids.
func partitionsOf(ctx context.Context, brokers []string, topic string) ([]int, error) {
	tr := &kafka.Transport{}
	defer tr.CloseIdleConnections() // kafka.DefaultTransport's pools outlive the server
	c := &kafka.Client{Addr: kafka.TCP(brokers...), Transport: tr}
	for {
		res, err := c.Metadata(ctx, &kafka.MetadataRequest{Topics: []string{topic}})
		if err == nil {
			for _, tp := range res.Topics {
				if tp.Name == topic && tp.Error == nil && len(tp.Partitions) > 0 {
					ids := make([]int, len(tp.Partitions))
					for i, p := range tp.Partitions {
						ids[i] = p.ID
					}
					return ids, nil
				}
			}
		}
		select {
		case <-ctx.Done():
			return nil, errors.Join(errors.New("topic "+topic+" does not exist"), err, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}
