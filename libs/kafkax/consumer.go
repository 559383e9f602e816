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
// skipped, so redelivery is harmless. An event is recorded after the handler
// succeeded and its offset committed after that; a crash in between makes the
// event come again, so handlers should tolerate the rare repeat of an event
// whose effect was applied but not yet recorded.
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
	return &Consumer{
		r: kafka.NewReader(kafka.ReaderConfig{
			Brokers:               c.Brokers,
			Dialer:                c.Dialer(),
			GroupID:               group,
			Topic:                 topic,
			StartOffset:           kafka.FirstOffset,
			MinBytes:              1,
			MaxBytes:              10 << 20,
			MaxWait:               500 * time.Millisecond,
			CommitInterval:        0, // commit synchronously, after the record
			HeartbeatInterval:     time.Second,
			SessionTimeout:        10 * time.Second,
			RebalanceTimeout:      10 * time.Second,
			JoinGroupBackoff:      250 * time.Millisecond,
			ReadBackoffMin:        50 * time.Millisecond,
			ReadBackoffMax:        time.Second,
			WatchPartitionChanges: true,
		}),
		db:     db,
		group:  group,
		topic:  topic,
		handle: handle,
		log:    log.With("component", "kafkax.consumer", "topic", topic, "group", group),
	}
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
		m, err := c.r.FetchMessage(ctx)
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
		if !c.process(ctx, m) {
			return nil
		}
		if err := c.r.CommitMessages(ctx, m); err != nil {
			if ctx.Err() != nil || errors.Is(err, io.EOF) {
				return nil
			}
			// The event is recorded as processed: a redelivery is skipped.
			c.log.WarnContext(ctx, "commit event", "err", err, "partition", m.Partition, "offset", m.Offset)
		}
	}
}

// Close leaves the group and closes the connections; Run returns.
func (c *Consumer) Close() error { return c.r.Close() }

// process handles one message until it is done; false when ctx ended first.
func (c *Consumer) process(ctx context.Context, m kafka.Message) bool {
	ev, err := Decode(m)
	if err != nil {
		c.log.ErrorContext(ctx, "skip message that is not an event", "err", err,
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
	handled := false
	first := time.Now().UTC()
	var refusal error // the handler's Permanent error, once it gave one
	tries := 0        // calls of the handler
	for attempt := 1; ; attempt++ {
		var err error
		if refusal == nil {
			tries++
			err = c.once(ctx, ev, &handled)
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

// once handles ev unless the group already did, then records it. handled
// remembers across retries that the handler succeeded and only the record
// is left to write.
func (c *Consumer) once(ctx context.Context, ev Event, handled *bool) error {
	if c.db == nil {
		return c.handle(ctx, ev)
	}
	coll := c.db.Collection(ProcessedCollection)
	id := c.group + ":" + ev.ID
	if !*handled {
		n, err := coll.CountDocuments(ctx, bson.M{"_id": id})
		if err != nil {
			return fmt.Errorf("look up processed event: %w", err)
		}
		if n > 0 {
			return nil
		}
		if err := c.handle(ctx, ev); err != nil {
			return err
		}
		*handled = true
	}
	_, err := coll.InsertOne(ctx, bson.M{"_id": id, "group": c.group, "type": ev.Type, "at": time.Now().UTC()})
	if err != nil && !mongo.IsDuplicateKeyError(err) {
		return fmt.Errorf("record processed event: %w", err)
	}
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
