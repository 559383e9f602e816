package kafkax

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/docspub/platform/libs/envelope"
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

// ErrTooLarge is returned for an event larger than MaxEventBytes, and for
// events whose pending bytes exceed MaxPendingBytes on their own; the
// error is a *TooLargeError.
var ErrTooLarge = errors.New("event too large")

// TooLargeError says which event (or set of events) is over which bound. It
// matches ErrTooLarge.
type TooLargeError struct {
	Type string // the event type, e.g. "comment.updated"
	ID   string // the event id; empty for a set of events
	Size int64  // the encoded bytes
	Max  int64  // the bound
}

func (e *TooLargeError) Error() string {
	if e.ID == "" {
		return fmt.Sprintf("%v: %s events take %d bytes pending, at most %d", ErrTooLarge, e.Type, e.Size, e.Max)
	}
	return fmt.Sprintf("%v: event %s (%s) is %d bytes, at most %d", ErrTooLarge, e.ID, e.Type, e.Size, e.Max)
}

// Is makes errors.Is(err, ErrTooLarge) hold.
func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// encodeValue encodes the JSON value of ev's message (without HTML escaping)
// and checks the message against MaxEventBytes.
func encodeValue(ev Event) ([]byte, error) {
	value, err := envelope.Encode(ev)
	if err != nil {
		return nil, fmt.Errorf("encode event %s: %w", ev.ID, err)
	}
	if size := len(ev.Subject) + len(value); size > MaxEventBytes {
		return nil, &TooLargeError{Type: ev.Type, ID: ev.ID, Size: int64(size), Max: MaxEventBytes}
	}
	return value, nil
}

// Size returns the bytes ev takes on Kafka, key and JSON value, encoded as
// the relay encodes it. The error is a *TooLargeError when the event is over
// MaxEventBytes, or says why the event cannot be encoded.
func Size(ev Event) (int, error) {
	value, err := encodeValue(ev)
	if err != nil {
		return 0, err
	}
	return len(ev.Subject) + len(value), nil
}

// refused reports whether err is Kafka refusing the message itself (too
// large, malformed), which sending it again cannot cure, as opposed to the
// broker being unreachable or busy.
func refused(err error) bool {
	var tooLarge kafka.MessageTooLargeError
	if errors.As(err, &tooLarge) || errors.Is(err, ErrTooLarge) {
		return true
	}
	var kerr kafka.Error
	if !errors.As(err, &kerr) {
		return false
	}
	switch kerr {
	case kafka.InvalidMessage, kafka.InvalidMessageSize, kafka.MessageSizeTooLarge,
		kafka.RecordListTooLarge, kafka.InvalidTimestamp, kafka.InvalidRecord:
		return true
	}
	return false
}

// metadataTTL bounds how long the writer trusts cached cluster metadata, and
// so how soon it notices a restarted broker or a topic to create again.
const metadataTTL = time.Second

// Publisher writes events to Kafka and waits until every in-sync replica
// acknowledged them. It is safe for concurrent use.
type Publisher struct {
	w *kafka.Writer
	t *kafka.Transport
}

// NewPublisher returns a publisher for cluster c. Events are keyed by
// subject: one subject always lands on one partition, in the order
// published. Topics are created on first use when the cluster allows it;
// where it does not, c.EnsureTopics provisions them first.
func NewPublisher(c Cluster) *Publisher {
	t := c.Transport()
	return &Publisher{t: t, w: &kafka.Writer{
		Addr:                   kafka.TCP(c.Brokers...),
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
		Transport:              t,
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

// Close flushes pending writes and closes the connections. The writer does
// not close a transport it was given: without CloseIdleConnections its
// connection pool would refresh the cluster's metadata every metadataTTL
// for the life of the process, to an address that may since serve
// something else (a stale pool read an HTTP answer as a Kafka array length
// and allocated 18 GiB).
func (p *Publisher) Close() error {
	err := p.w.Close()
	p.t.CloseIdleConnections()
	return err
}

// encode turns one event into its message. When the event carries a trace,
// a producer span continues it and the headers carry that span, so the
// consumer's work is a child of the publication.
func encode(topic string, ev Event) (outgoing, error) {
	value, err := encodeValue(ev)
	if err != nil {
		return outgoing{}, err
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
