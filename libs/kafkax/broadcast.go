package kafkax

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/docspub/platform/libs/backoff"
	"github.com/segmentio/kafka-go"
)

// Broadcast reads every partition of a topic from its end, in every
// process that runs one, outside any consumer group: each replica sees
// every event published after it started. It is for what each replica
// keeps of its own (an in-memory cache to purge), where a consumer group
// would hand each event to one replica only. Events published before Run
// resolved the partitions' ends are not seen (the cache's TTL covers
// them); Ready says when they are resolved. The handler should be
// idempotent and quick: an error is logged and the event passed over.
type Broadcast struct {
	cluster Cluster
	topic   string
	handle  Handler
	log     *slog.Logger
	ready   atomic.Bool
}

// NewBroadcast returns a broadcast reader of topic on cluster c.
func NewBroadcast(c Cluster, topic string, handle Handler, log *slog.Logger) *Broadcast {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Broadcast{cluster: c, topic: topic, handle: handle, log: log.With("component", "kafkax.broadcast", "topic", topic)}
}

// Ready reports whether Run has resolved where each partition ends: every
// event published since is handled.
func (b *Broadcast) Ready() bool { return b.ready.Load() }

// Run reads until ctx is done. It lists the topic's partitions (retrying
// with backoff while the cluster or the topic is not there), reads each
// from its current end, and returns nil when ctx ends.
func (b *Broadcast) Run(ctx context.Context) error {
	ends, err := b.ends(ctx)
	if err != nil {
		return nil // ctx ended
	}
	var wg sync.WaitGroup
	for p, end := range ends {
		r := kafka.NewReader(kafka.ReaderConfig{Brokers: b.cluster.Brokers, Dialer: b.cluster.Dialer(), Topic: b.topic,
			Partition: p, MinBytes: 1, MaxBytes: 10 << 20, MaxWait: 500 * time.Millisecond,
			ReadBackoffMin: 50 * time.Millisecond, ReadBackoffMax: time.Second})
		if err := r.SetOffset(end); err != nil {
			_ = r.Close()
			return fmt.Errorf("broadcast %s partition %d: %w", b.topic, p, err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer r.Close()
			b.read(ctx, r)
		}()
	}
	b.ready.Store(true)
	wg.Wait()
	return nil
}

// ends lists the partitions and their last offsets, trying again (1 s
// apart, growing to 10 s) until it can or ctx ends.
func (b *Broadcast) ends(ctx context.Context) (map[int]int64, error) {
	for attempt := 1; ; attempt++ {
		ends, err := b.lastOffsets(ctx)
		if err == nil && len(ends) > 0 {
			return ends, nil
		}
		if err == nil {
			err = errors.New("the topic has no partition")
		}
		wait := backoff.Wait(attempt, time.Second, 10*time.Second)
		b.log.WarnContext(ctx, "list the topic's partitions", "err", err, "retry_in", wait.String())
		if !sleep(ctx, wait) {
			return nil, ctx.Err()
		}
	}
}

func (b *Broadcast) lastOffsets(ctx context.Context) (map[int]int64, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	tr := b.cluster.Transport()
	defer tr.CloseIdleConnections() // else its pool refreshes metadata for good (leak_test.go)
	client := &kafka.Client{Addr: kafka.TCP(b.cluster.Brokers...), Transport: tr}
	meta, err := client.Metadata(ctx, &kafka.MetadataRequest{Topics: []string{b.topic}})
	if err != nil {
		return nil, err
	}
	req := map[string][]kafka.OffsetRequest{}
	for _, t := range meta.Topics {
		if t.Error != nil {
			return nil, t.Error
		}
		for _, p := range t.Partitions {
			req[b.topic] = append(req[b.topic], kafka.LastOffsetOf(p.ID))
		}
	}
	res, err := client.ListOffsets(ctx, &kafka.ListOffsetsRequest{Topics: req})
	if err != nil {
		return nil, err
	}
	ends := map[int]int64{}
	for _, p := range res.Topics[b.topic] {
		if p.Error != nil {
			return nil, p.Error
		}
		ends[p.Partition] = p.LastOffset
	}
	return ends, nil
}

// read hands each message of one partition to the handler until ctx ends.
func (b *Broadcast) read(ctx context.Context, r *kafka.Reader) {
	for {
		m, err := r.ReadMessage(ctx)
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, io.EOF) {
				return
			}
			b.log.WarnContext(ctx, "read event", "err", err)
			if !sleep(ctx, time.Second) {
				return
			}
			continue
		}
		ev, err := Decode(m)
		if err == nil {
			err = b.handle(ctx, ev)
		}
		if err != nil && !IsUnknown(err) {
			b.log.WarnContext(ctx, "event passed over", "err", err, "partition", m.Partition, "offset", m.Offset)
		}
	}
}
