package kafkax

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/segmentio/kafka-go"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Headers set on every published message besides the trace context.
const (
	HeaderEventType = "event-type"
	HeaderEventID   = "event-id"
)

// MaxEventBytes bounds the encoded size of one event (key and value).
// Larger events are refused before anything is sent; the bound leaves room
// for headers below the 1 MiB message limit of a default Kafka broker.
const MaxEventBytes = 900 << 10

// ErrTooLarge is returned for an event larger than MaxEventBytes.
var ErrTooLarge = errors.New("event too large")

// metadataTTL bounds how long the writer trusts cached cluster metadata, and
// so how soon it notices a restarted broker or a topic to create again.
const metadataTTL = time.Second

// Publisher writes events to Kafka and waits until every in-sync replica
// acknowledged them. It is safe for concurrent use.
type Publisher struct {
	w *kafka.Writer
}

// NewPublisher returns a publisher for the cluster reached through brokers.
// Events are keyed by subject: one subject always lands on one partition, in
// the order published. Topics are created on first use when the cluster allows it.
func NewPublisher(brokers []string) *Publisher {
	return &Publisher{w: &kafka.Writer{
		Addr:                   kafka.TCP(brokers...),
		Balancer:               &kafka.Hash{},
		RequiredAcks:           kafka.RequireAll,
		AllowAutoTopicCreation: true,
		BatchTimeout:           5 * time.Millisecond,
		BatchBytes:             1 << 20,
		MaxAttempts:            3,
		WriteBackoffMin:        10 * time.Millisecond,
		WriteBackoffMax:        100 * time.Millisecond,
		ReadTimeout:            10 * time.Second,
		WriteTimeout:           10 * time.Second,
		Transport: &kafka.Transport{
			Dial:        (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
			MetadataTTL: metadataTTL,
		},
	}}
}

// Publish writes events to topic, in order, and returns once Kafka
// acknowledged them all. The value of each message is the JSON envelope, the
// key its subject; the headers carry the event's trace context, type and id.
// When some events could not be written the error wraps kafka.WriteErrors,
// indexed like events.
func (p *Publisher) Publish(ctx context.Context, topic string, events ...Event) error {
	out := make([]outgoing, 0, len(events))
	for _, ev := range events {
		o, err := encode(topic, ev)
		if err != nil {
			end(out, err)
			return err
		}
		out = append(out, o)
	}
	return p.write(ctx, topic, out)
}

// outgoing is an encoded event and its producer span (nil when untraced).
type outgoing struct {
	msg  kafka.Message
	span trace.Span
}

// write writes encoded events and ends their spans.
func (p *Publisher) write(ctx context.Context, topic string, out []outgoing) error {
	if len(out) == 0 {
		return nil
	}
	msgs := make([]kafka.Message, len(out))
	for i, o := range out {
		msgs[i] = o.msg
	}
	err := p.w.WriteMessages(ctx, msgs...)
	var werrs kafka.WriteErrors
	if errors.As(err, &werrs) && len(werrs) == len(out) {
		for i, o := range out {
			end([]outgoing{o}, werrs[i])
		}
	} else {
		end(out, err)
	}
	if err != nil {
		return fmt.Errorf("publish %d events to %s: %w", len(out), topic, err)
	}
	return nil
}

// Close flushes pending writes and closes the connections.
func (p *Publisher) Close() error { return p.w.Close() }

// encode turns one event into its message. When the event carries a trace,
// a producer span continues it and the headers carry that span, so the
// consumer's work is a child of the publication.
func encode(topic string, ev Event) (outgoing, error) {
	value, err := json.Marshal(ev)
	if err != nil {
		return outgoing{}, fmt.Errorf("encode event %s: %w", ev.ID, err)
	}
	m := kafka.Message{
		Topic: topic,
		Key:   []byte(ev.Subject),
		Value: value,
		Headers: []kafka.Header{
			{Key: HeaderEventType, Value: []byte(ev.Type)},
			{Key: HeaderEventID, Value: []byte(ev.ID)},
		},
	}
	size := len(m.Key) + len(m.Value)
	if size > MaxEventBytes {
		return outgoing{}, fmt.Errorf("%w: event %s is %d bytes, at most %d", ErrTooLarge, ev.ID, size, MaxEventBytes)
	}
	var span trace.Span
	ctx := traceContext(context.Background(), ev.Trace)
	if trace.SpanContextFromContext(ctx).IsValid() {
		ctx, span = otel.Tracer(tracerName).Start(ctx, topic+" publish",
			trace.WithSpanKind(trace.SpanKindProducer),
			trace.WithAttributes(
				attribute.String("messaging.system", "kafka"),
				attribute.String("messaging.operation.type", "send"),
				attribute.String("messaging.destination.name", topic),
				attribute.String("messaging.message.id", ev.ID),
				attribute.String("messaging.kafka.message.key", ev.Subject),
			))
	}
	otel.GetTextMapPropagator().Inject(ctx, HeaderCarrier{Headers: &m.Headers})
	return outgoing{msg: m, span: span}, nil
}

// end ends the spans of out, marking them failed when err is not nil.
func end(out []outgoing, err error) {
	for _, o := range out {
		if o.span == nil {
			continue
		}
		if err != nil {
			o.span.RecordError(err)
			o.span.SetStatus(codes.Error, "publish failed")
		}
		o.span.End()
	}
}

// written reports, for each of n events given to Publish, whether Kafka
// acknowledged it, from Publish's error.
func written(err error, n int) []bool {
	ok := make([]bool, n)
	if err == nil {
		for i := range ok {
			ok[i] = true
		}
		return ok
	}
	var werrs kafka.WriteErrors
	if errors.As(err, &werrs) && len(werrs) == n {
		for i, e := range werrs {
			ok[i] = e == nil
		}
	}
	return ok
}
