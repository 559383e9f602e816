// Package visitkafka is insights' log of accepted visits on Kafka (topic
// insights.visits, keyed by site): Writer appends an ingest batch and
// returns once every in-sync replica has it; Reader consumes the topic in
// chunks as a member of a consumer group and hands each chunk to the rollup
// applier, committing offsets only after the chunk is applied.
package visitkafka

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/services/insights/internal/rollup"
	"github.com/docspub/platform/services/insights/internal/visit"
	"github.com/segmentio/kafka-go"
)

// Topic is the log of accepted visits.
const Topic = "insights.visits"

// EventType is the type of a log message: one batch of visits.
const EventType = "visits.accepted"

// maxMessageBytes is the size over which a batch is split into several
// messages (below kafkax.MaxEventBytes).
const maxMessageBytes = 512 << 10

// Writer appends batches to the log.
type Writer struct {
	pub     *kafkax.Publisher
	timeout time.Duration
}

// NewWriter returns a writer that gives up after timeout.
func NewWriter(pub *kafkax.Publisher, timeout time.Duration) *Writer {
	return &Writer{pub: pub, timeout: timeout}
}

// Append implements visit.Log. Each message's id is a hash of its content,
// so a batch sent again after a failure (same events, same timestamps)
// counts once.
func (w *Writer) Append(ctx context.Context, org, site string, visits []visit.Visit) error {
	var events []kafkax.Event
	add := func(data []byte) {
		sum := sha256.Sum256(append([]byte(org+"\x00"+site+"\x00"), data...))
		events = append(events, kafkax.Event{ID: hex.EncodeToString(sum[:16]), Type: EventType,
			OccurredAt: time.Now().UTC(), Organization: org, Subject: site, Data: data})
	}
	// One encoding of the whole batch, which is the usual case; a batch
	// over maxMessageBytes is encoded visit by visit and split.
	all, err := json.Marshal(visits)
	if err != nil {
		return fmt.Errorf("encode visits: %w", err)
	}
	split := len(all) > maxMessageBytes
	if !split {
		add(all)
	}
	for start := 0; split && start < len(visits); {
		end, size := start, 0
		var parts []json.RawMessage
		for end < len(visits) {
			b, err := json.Marshal(visits[end])
			if err != nil {
				return fmt.Errorf("encode visit: %w", err)
			}
			if size+len(b) > maxMessageBytes && end > start {
				break
			}
			parts, size, end = append(parts, b), size+len(b)+1, end+1
		}
		data, _ := json.Marshal(parts)
		add(data)
		start = end
	}
	ctx, cancel := context.WithTimeout(ctx, w.timeout)
	defer cancel()
	if err := w.pub.Publish(ctx, Topic, events...); err != nil {
		return fmt.Errorf("%w: %v", visit.ErrUnavailable, err)
	}
	return nil
}

// Applier applies chunks of batches.
type Applier interface {
	Apply(ctx context.Context, batches []rollup.Batch) error
	Recover(ctx context.Context, before time.Time) error
}

// Chunking of the reader.
const (
	chunkWait     = 50 * time.Millisecond // how long a chunk waits for more messages
	recoverEvery  = 10 * time.Second      // how often chunks left by a stopped consumer are looked for
	recoverAfter  = 30 * time.Second      // age of a chunk record deemed left behind
	minRetry      = 100 * time.Millisecond
	maxRetry      = 5 * time.Second
	maxChunkBatch = 500 // messages of one chunk
)

// Reader consumes the log into the rollups.
type Reader struct {
	r     *kafka.Reader
	apply Applier
	log   *slog.Logger
}

// NewReader returns a reader of the log in group, on cluster c.
func NewReader(c kafkax.Cluster, group string, apply Applier, log *slog.Logger) *Reader {
	return &Reader{
		r: kafka.NewReader(kafka.ReaderConfig{
			Brokers: c.Brokers, Dialer: c.Dialer(), GroupID: group, Topic: Topic, StartOffset: kafka.FirstOffset,
			MinBytes: 1, MaxBytes: 1 << 20, MaxWait: 200 * time.Millisecond, CommitInterval: 0,
			HeartbeatInterval: time.Second, SessionTimeout: 10 * time.Second, RebalanceTimeout: 10 * time.Second,
			JoinGroupBackoff: 250 * time.Millisecond, ReadBackoffMin: 50 * time.Millisecond, ReadBackoffMax: time.Second,
			WatchPartitionChanges: true,
		}),
		apply: apply,
		log:   log.With("component", "visitkafka.reader", "topic", Topic, "group", group),
	}
}

// Close leaves the group; Run returns.
func (r *Reader) Close() error { return r.r.Close() }

// Run consumes until ctx is done: it gathers a chunk (up to maxChunkBatch
// messages or rollup.MaxChunkBytes, waiting at most chunkWait after the
// first), applies it (retrying until it is applied) and commits its offsets.
func (r *Reader) Run(ctx context.Context) error {
	r.recover(ctx)
	lastRecover := time.Now()
	for ctx.Err() == nil {
		msgs, err := r.fetch(ctx)
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, io.EOF) {
				return nil
			}
			r.log.WarnContext(ctx, "fetch visits", "err", err)
			if !sleep(ctx, minRetry) {
				return nil
			}
			continue
		}
		if time.Since(lastRecover) > recoverEvery {
			r.recover(ctx)
			lastRecover = time.Now()
		}
		if len(msgs) == 0 {
			continue
		}
		batches := make([]rollup.Batch, 0, len(msgs))
		for _, m := range msgs {
			b, err := decode(m)
			if err != nil {
				r.log.ErrorContext(ctx, "skip message that is not a batch of visits", "err", err, "partition", m.Partition, "offset", m.Offset)
				continue
			}
			batches = append(batches, b)
		}
		for attempt := 1; ; attempt++ {
			err := r.apply.Apply(ctx, batches)
			if err == nil {
				break
			}
			if ctx.Err() != nil {
				return nil
			}
			wait := min(maxRetry, minRetry<<min(attempt, 6))
			r.log.ErrorContext(ctx, "apply visits", "err", err, "attempt", attempt, "retry_in", wait.String())
			if !sleep(ctx, wait) {
				return nil
			}
		}
		if err := r.r.CommitMessages(ctx, msgs...); err != nil && ctx.Err() == nil {
			// Applied batches are recorded: a redelivery is skipped.
			r.log.WarnContext(ctx, "commit visits", "err", err)
		}
	}
	return nil
}

// fetch gathers one chunk; it waits for the first message until ctx is
// done or recoverEvery passed (then it returns none).
func (r *Reader) fetch(ctx context.Context) ([]kafka.Message, error) {
	first, cancel := context.WithTimeout(ctx, recoverEvery)
	m, err := r.r.FetchMessage(first)
	cancel()
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			return nil, nil
		}
		return nil, err
	}
	msgs, size := []kafka.Message{m}, len(m.Value)
	more, cancel := context.WithTimeout(ctx, chunkWait)
	defer cancel()
	for len(msgs) < maxChunkBatch && size < rollup.MaxChunkBytes {
		m, err := r.r.FetchMessage(more)
		if err != nil {
			break
		}
		msgs, size = append(msgs, m), size+len(m.Value)
	}
	return msgs, nil
}

func (r *Reader) recover(ctx context.Context) {
	if err := r.apply.Recover(ctx, time.Now().Add(-recoverAfter)); err != nil && ctx.Err() == nil {
		r.log.WarnContext(ctx, "recover chunks", "err", err)
	}
}

func decode(m kafka.Message) (rollup.Batch, error) {
	ev, err := kafkax.Decode(m)
	if err != nil {
		return rollup.Batch{}, err
	}
	var visits []visit.Visit
	if err := json.Unmarshal(ev.Data, &visits); err != nil {
		return rollup.Batch{}, fmt.Errorf("decode visits: %w", err)
	}
	return rollup.Batch{ID: ev.ID, Org: ev.Organization, Site: ev.Subject, Visits: visits}, nil
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
