package kafkax

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/docspub/platform/libs/backoff"
	"github.com/docspub/platform/libs/envelope"
	"github.com/segmentio/kafka-go"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// ProcessedCollection records, per consumer group, the events already
// handled: _id is "<group>:<event id>".
const ProcessedCollection = "processed_events"

// ProcessedTTL is how long a handled event's record is kept: longer than
// any redelivery; handlers are idempotent beyond it. Run prunes older
// records every hour (a sweep rather than a TTL index, which not every
// MongoDB-protocol server implements).
const ProcessedTTL = 7 * 24 * time.Hour

// PruneProcessed deletes the records of events handled before t and returns how many.
func PruneProcessed(ctx context.Context, db *mongo.Database, t time.Time) (int64, error) {
	res, err := db.Collection(ProcessedCollection).DeleteMany(ctx, bson.M{"at": bson.M{"$lt": t.UTC()}})
	if err != nil {
		return 0, fmt.Errorf("prune processed events: %w", err)
	}
	return res.DeletedCount, nil
}

func (c *Consumer) prune(ctx context.Context) {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		if _, err := PruneProcessed(ctx, c.db, time.Now().Add(-ProcessedTTL)); err != nil && ctx.Err() == nil {
			c.log.WarnContext(ctx, "prune processed events", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

const (
	minConsumerBackoff = 100 * time.Millisecond
	maxConsumerBackoff = 5 * time.Second
)

// Handler handles one event. It returns an error when the event should be
// retried; the consumer retries it, with backoff, until it succeeds. An
// event it can never handle (bad data) it refuses with Permanent(err): the
// consumer records it in DeadLetterCollection and goes on.
type Handler func(ctx context.Context, ev Event) error

// Consumer reads a topic as a member of a consumer group and hands each event
// to its handler, once per group: an event already recorded as processed is
// skipped, so redelivery is harmless. Events are taken in batches (the
// messages fetched already): an event is recorded after the handler
// succeeded, with the others of its batch, and their offsets committed after
// that; a crash in between makes them come again, so handlers should
// tolerate the rare repeat of an event whose effect was applied but not yet
// recorded.
type Consumer struct {
	r      *kafka.Reader
	db     *mongo.Database
	group  string
	topic  string
	handle Handler
	log    *slog.Logger
}

// NewConsumer returns a consumer of topic in group, on cluster c. db holds the group's
// processed-event records (collection ProcessedCollection); with a nil db
// nothing is recorded and every delivery reaches the handler, which must then
// be idempotent by itself (dropping a cache entry, say). A new group starts
// from the oldest event of the topic.
func NewConsumer(c Cluster, group, topic string, db *mongo.Database, handle Handler, log *slog.Logger) *Consumer {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("component", "kafkax.consumer", "topic", topic, "group", group)
	return &Consumer{
		r:      GroupReader(c, group, topic, Fetch{MaxBytes: 10 << 20, MaxWait: 500 * time.Millisecond}, log),
		db:     db,
		group:  group,
		topic:  topic,
		handle: handle,
		log:    log,
	}
}

// Fetch bounds a group reader's fetches from the broker: the bytes of one
// fetch, and how long the broker holds one back waiting for a first message.
type Fetch struct {
	MaxBytes int
	MaxWait  time.Duration
}

// Timing of a group member. A dead member's partitions wait SessionTimeout
// for it. A rebalance waits for its members' joins RebalanceTimeout, and
// kafka-go waits for the answer to its join 5 s longer (its fixed
// network timeout).
//
// RebalanceTimeout is short because kfake, the embedded Kafka, starts
// that wait again at each join and drops a member that waits in a join
// past its session timeout (a real broker does neither). At 10 s, replicas
// SIGKILLed and started again a few seconds apart (TestClusterChaos)
// made each live member's join outlast kafka-go's 15 s: it joined again
// as a new member, which started the broker's wait again, and the group
// stayed in its rebalance for minutes, consuming nothing. At 3 s a
// rebalance ends 3 s after its last join, inside the 5 s margin. A live
// member learns of a rebalance from its next heartbeat (1 s) and rejoins
// from its own goroutine, whatever its handler is doing; one that misses
// the 3 s is left out of that generation and joins the next.
const (
	groupHeartbeat        = time.Second
	groupSessionTimeout   = 10 * time.Second
	groupRebalanceTimeout = 3 * time.Second
)

// GroupReader returns a kafka-go reader of topic as a member of group on
// c, starting a new group at the topic's oldest message, committing only
// when told (CommitMessages, synchronously), with the group timing above
// and kafka-go's errors logged to log.
func GroupReader(c Cluster, group, topic string, f Fetch, log *slog.Logger) *kafka.Reader {
	return kafka.NewReader(kafka.ReaderConfig{
		Brokers:               c.Brokers,
		Dialer:                c.Dialer(),
		GroupID:               group,
		Topic:                 topic,
		StartOffset:           kafka.FirstOffset,
		MinBytes:              1,
		MaxBytes:              f.MaxBytes,
		MaxWait:               f.MaxWait,
		CommitInterval:        0,
		HeartbeatInterval:     groupHeartbeat,
		SessionTimeout:        groupSessionTimeout,
		RebalanceTimeout:      groupRebalanceTimeout,
		JoinGroupBackoff:      250 * time.Millisecond,
		ReadBackoffMin:        50 * time.Millisecond,
		ReadBackoffMax:        time.Second,
		WatchPartitionChanges: true,
		ErrorLogger:           ErrorLogger(log),
	})
}

// ErrorLogger passes what a kafka-go reader or writer reports as an error
// (a failed join of its group, heartbeat or commit, which it retries by
// itself) to log as a warning: without it they were silent, and a group
// that stopped moving said nothing of why.
func ErrorLogger(log *slog.Logger) kafka.Logger {
	return kafka.LoggerFunc(func(msg string, args ...any) {
		log.Warn("kafka-go: " + fmt.Sprintf(msg, args...))
	})
}

// Run consumes until ctx is done or the consumer is closed, then returns nil.
// A failing handler holds its partition: the event is retried with backoff
// (doubling up to 5s), never skipped, unless the handler returned
// Permanent(err): the event is then dead-lettered (DeadLetterCollection of
// the consumer's database, with the group; only logged and counted without
// a database) and the partition moves on. A message that is not an event
// envelope is logged and skipped; so is an event the handler does not know
// (it returned an error wrapping envelope.ErrUnknown: a newer schema
// version or an undeclared type), counted by kafkax.ignored_events.
func (c *Consumer) Run(ctx context.Context) error {
	pctx, stop := context.WithCancel(ctx)
	defer stop()
	defer c.observeLag()()
	if c.db != nil {
		go c.prune(pctx)
	}
	failures := 0
	for {
		msgs, err := c.fetch(ctx)
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, io.EOF) {
				return nil
			}
			failures++
			wait := backoff.Wait(failures, minConsumerBackoff, maxConsumerBackoff)
			c.log.WarnContext(ctx, "fetch event", "err", err, "retry_in", wait.String())
			if !sleep(ctx, wait) {
				return nil
			}
			continue
		}
		failures = 0
		if !c.processBatch(ctx, msgs) {
			return nil
		}
	}
}

// Bounds of a consumer's batch: the messages it fetched already, taken
// together so that their processed records are looked up in one query and
// written in one, and their offsets committed in one request.
const (
	maxConsumerBatch = 100
	// batchGather is how long a batch waits for more messages after its
	// first, in all.
	batchGather = time.Millisecond
)

// fetch waits for a message, then takes those that follow within
// batchGather (the reader has them already), up to maxConsumerBatch: a
// batch holds its first event back by batchGather at most.
func (c *Consumer) fetch(ctx context.Context) ([]kafka.Message, error) {
	m, err := c.r.FetchMessage(ctx)
	if err != nil {
		return nil, err
	}
	msgs := []kafka.Message{m}
	more, cancel := context.WithTimeout(ctx, batchGather)
	defer cancel()
	for len(msgs) < maxConsumerBatch {
		m, err := c.r.FetchMessage(more)
		if err != nil {
			break
		}
		msgs = append(msgs, m)
	}
	return msgs, nil
}

// batch is the messages of one fetch being processed, in order: the
// events handled wait to be recorded as processed (one write) and their
// messages committed (one request), which settle does.
type batch struct {
	c       *Consumer
	msgs    []kafka.Message
	events  []decoded       // msgs[i] decoded
	done    int             // msgs[:done] are handled, ignored or dead-lettered
	settled int             // msgs[:settled] are recorded and committed
	seen    map[string]bool // processed records' ids: written before, or of events handled here
	records []any           // the records of events handled, not written yet
}

// decoded is a message decoded (Decode): its event, or why it is none.
type decoded struct {
	ev  Event
	err error
}

// processBatch processes msgs in order and settles them; false when ctx
// ended first (what was not settled comes again, and records keep the
// handled events from being handled twice but for the last ones).
func (c *Consumer) processBatch(ctx context.Context, msgs []kafka.Message) bool {
	b := &batch{c: c, msgs: msgs, events: make([]decoded, len(msgs)), seen: map[string]bool{}}
	for i, m := range msgs {
		b.events[i].ev, b.events[i].err = Decode(m)
	}
	if !b.lookUp(ctx) {
		return false
	}
	for i, m := range msgs {
		if !c.process(ctx, m, b.events[i], b) {
			return false
		}
		b.done = i + 1
	}
	return b.settle(ctx)
}

// lookUp reads which events of the batch the group processed already,
// retrying with backoff; false when ctx ended first.
func (b *batch) lookUp(ctx context.Context) bool {
	c := b.c
	if c.db == nil {
		return true
	}
	var keys []string
	for _, d := range b.events {
		if d.err == nil {
			keys = append(keys, c.group+":"+d.ev.ID)
		}
	}
	for attempt := 1; ; attempt++ {
		err := processedOf(ctx, c.db.Collection(ProcessedCollection), keys, b.seen)
		if err == nil {
			return true
		}
		if !c.retry(ctx, "look up processed events", err, attempt) {
			return false
		}
	}
}

// processedOf adds to seen those of keys recorded as processed.
func processedOf(ctx context.Context, coll *mongo.Collection, keys []string, seen map[string]bool) error {
	if len(keys) == 0 {
		return nil
	}
	cur, err := coll.Find(ctx, bson.M{"_id": bson.M{"$in": keys}}, options.Find().SetProjection(bson.M{"_id": 1}))
	if err != nil {
		return fmt.Errorf("look up processed events: %w", err)
	}
	var found []struct {
		ID string `bson:"_id"`
	}
	if err := cur.All(ctx, &found); err != nil {
		return fmt.Errorf("look up processed events: %w", err)
	}
	for _, f := range found {
		seen[f.ID] = true
	}
	return nil
}

// settle writes the records of the events handled so far, retrying with
// backoff, then commits the messages done; false when ctx ended first.
func (b *batch) settle(ctx context.Context) bool {
	c := b.c
	for attempt := 1; len(b.records) > 0; attempt++ {
		err := insertRecords(ctx, c.db.Collection(ProcessedCollection), b.records)
		if err == nil {
			b.records = nil
			break
		}
		if !c.retry(ctx, "record processed events", err, attempt) {
			return false
		}
	}
	done := b.msgs[b.settled:b.done]
	if len(done) == 0 {
		return true
	}
	b.settled = b.done
	if err := c.r.CommitMessages(ctx, done...); err != nil {
		if ctx.Err() != nil || errors.Is(err, io.EOF) {
			return false
		}
		// The events are recorded as processed: a redelivery is skipped.
		last := done[len(done)-1]
		c.log.WarnContext(ctx, "commit events", "err", err, "partition", last.Partition, "offset", last.Offset)
	}
	return true
}

// insertRecords writes processed records; one written before (a
// redelivery handled again after a crash) is no error.
func insertRecords(ctx context.Context, coll *mongo.Collection, records []any) error {
	_, err := coll.InsertMany(ctx, records, options.InsertMany().SetOrdered(false))
	var bwe mongo.BulkWriteException
	if errors.As(err, &bwe) && bwe.WriteConcernError == nil && len(bwe.WriteErrors) > 0 {
		for _, we := range bwe.WriteErrors {
			if !mongo.IsDuplicateKeyError(we) {
				return fmt.Errorf("record processed events: %w", err)
			}
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("record processed events: %w", err)
	}
	return nil
}

// retry logs a failure of the batch's bookkeeping and waits before the
// next attempt; false when ctx ended first.
func (c *Consumer) retry(ctx context.Context, what string, err error, attempt int) bool {
	if ctx.Err() != nil {
		return false
	}
	wait := backoff.Wait(attempt, minConsumerBackoff, maxConsumerBackoff)
	c.log.ErrorContext(ctx, what, "err", err, "attempt", attempt, "retry_in", wait.String())
	return sleep(ctx, wait)
}

// Close leaves the group and closes the connections; Run returns.
func (c *Consumer) Close() error { return c.r.Close() }

// process handles one message of b until it is done; false when ctx
// ended first. Before waiting to try a failed event again, it settles the
// events before it, so that one failing event holds no other's record.
func (c *Consumer) process(ctx context.Context, m kafka.Message, d decoded, b *batch) bool {
	ev := d.ev
	if d.err != nil {
		c.log.ErrorContext(ctx, "skip message that is not an event", "err", d.err,
			"partition", m.Partition, "offset", m.Offset)
		return true
	}
	if g := replayFor(m); g != "" && g != c.group {
		return true // a dead letter of another group replayed: handled here the first time
	}
	ctx, span := otel.Tracer(tracerName).Start(ContextFromHeaders(ctx, m.Headers), c.topic+" process",
		trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithAttributes(
			attribute.String("messaging.system", "kafka"),
			attribute.String("messaging.operation.type", "process"),
			attribute.String("messaging.destination.name", c.topic),
			attribute.String("messaging.consumer.group.name", c.group),
			attribute.String("messaging.message.id", ev.ID),
			attribute.Int("messaging.destination.partition.id", m.Partition),
			attribute.Int64("messaging.kafka.offset", m.Offset),
		))
	defer span.End()

	log := c.log.With("event_id", ev.ID, "event_type", ev.Type, "trace_id", span.SpanContext().TraceID().String())
	first := time.Now().UTC()
	var refusal error // the handler's Permanent error, once it gave one
	tries := 0        // calls of the handler
	for attempt := 1; ; attempt++ {
		var err error
		if refusal == nil {
			tries++
			err = c.once(ctx, ev, b)
			if IsUnknown(err) {
				c.ignore(ctx, log, err)
				return true
			}
			if IsPermanent(err) {
				refusal = err
				span.RecordError(err)
				span.SetStatus(codes.Error, "event refused by its handler")
			}
		}
		if refusal != nil {
			err = c.deadLetter(ctx, m, ev, refusal, tries, first)
		}
		if err == nil {
			if refusal != nil {
				log.ErrorContext(ctx, "event refused by its handler, moved to the dead letters", "err", refusal, "attempts", tries)
			}
			return true
		}
		if ctx.Err() != nil {
			span.SetStatus(codes.Error, "stopped before the event was handled")
			return false
		}
		span.RecordError(err)
		if attempt == 1 && !b.settle(ctx) {
			span.SetStatus(codes.Error, "stopped before the event was handled")
			return false
		}
		wait := backoff.Wait(attempt, minConsumerBackoff, maxConsumerBackoff)
		log.ErrorContext(ctx, "handle event", "err", err, "attempt", attempt, "retry_in", wait.String())
		if !sleep(ctx, wait) {
			span.SetStatus(codes.Error, "stopped before the event was handled")
			return false
		}
	}
}

// IsUnknown reports whether err, a handler's, says the event is unknown to
// its consumer (envelope.ErrUnknown: a type its producer does not declare,
// or a newer schema version than the consumer reads).
func IsUnknown(err error) bool { return errors.Is(err, envelope.ErrUnknown) }

// ignore logs and counts an event the handler does not know (IsUnknown):
// the partition goes on, as it does past a message that is not an event.
func (c *Consumer) ignore(ctx context.Context, log *slog.Logger, err error) {
	log.WarnContext(ctx, "ignore an event this consumer does not know", "err", err)
	countIgnored(ctx, attribute.String("messaging.destination.name", c.topic),
		attribute.String("messaging.consumer.group.name", c.group))
}

// deadLetter records ev, which the handler refused, in the group's dead
// letters (or only counts it, without a database).
func (c *Consumer) deadLetter(ctx context.Context, m kafka.Message, ev Event, refusal error, attempts int, first time.Time) error {
	if c.db != nil {
		raw, err := bson.Marshal(ev)
		if err != nil {
			return fmt.Errorf("encode dead letter %s: %w", ev.ID, err)
		}
		err = bury(ctx, c.db, SourceConsumer+":"+c.group+":"+ev.ID, bson.M{
			"source": SourceConsumer, "topic": c.topic, "group": c.group, "partition": m.Partition, "offset": m.Offset,
			"event": bson.Raw(raw), "error": errorText(refusal), "attempts": attempts, "lastFailedAt": time.Now().UTC(),
		}, first)
		if err != nil {
			return err
		}
	}
	countDeadLetter(ctx, attribute.String("source", SourceConsumer),
		attribute.String("messaging.destination.name", c.topic), attribute.String("messaging.consumer.group.name", c.group))
	return nil
}

// once handles ev unless the group already did (b's records say), and
// adds its record to b's.
func (c *Consumer) once(ctx context.Context, ev Event, b *batch) error {
	if c.db == nil {
		return c.handle(ctx, ev)
	}
	id := c.group + ":" + ev.ID
	if b.seen[id] {
		return nil
	}
	if err := c.handle(ctx, ev); err != nil {
		return err
	}
	b.seen[id] = true
	b.records = append(b.records, bson.M{"_id": id, "group": c.group, "type": ev.Type, "at": time.Now().UTC()})
	return nil
}

// Decode reads the event envelope of a message, with the trace context of
// its headers in Trace. A message without an event id is not an envelope.
func Decode(m kafka.Message) (Event, error) {
	var ev Event
	if err := json.Unmarshal(m.Value, &ev); err != nil {
		return Event{}, fmt.Errorf("decode event: %w", err)
	}
	if ev.ID == "" {
		return Event{}, errors.New("decode event: no id")
	}
	ev.Trace = traceFromHeaders(m.Headers)
	return ev, nil
}

// sleep waits d or until ctx is done; false when ctx is done.
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
