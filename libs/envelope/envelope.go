// Package envelope is the one envelope of every domain event: what a change
// publishes (id, type, organization, subject, data as the API returns it),
// whatever carries it. Domain packages build events with it without knowing
// Kafka or MongoDB: libs/kafkax stores them with the change, relays them and
// consumes them (kafkax.Event is this Event).
package envelope

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
)

// Event is the one envelope of every topic.
type Event struct {
	ID   string `json:"id" bson:"id"`
	Type string `json:"type" bson:"type"` // e.g. "member.updated"
	// Version is the schema version of Data for Type (see SchemaVersion):
	// 0 (absent) in events written before events carried one, read as 1.
	Version      int       `json:"version,omitempty" bson:"version,omitempty"`
	OccurredAt   time.Time `json:"occurredAt" bson:"occurredAt"`
	Organization string    `json:"organization,omitempty" bson:"organization,omitempty"`
	Subject      string    `json:"subject" bson:"subject"` // the aggregate id; the Kafka key
	// Data is the resource as the API returns it (JSON).
	Data json.RawMessage `json:"data,omitempty" bson:"data,omitempty"`
	// Trace carries W3C trace context captured when the change was made.
	Trace map[string]string `json:"-" bson:"trace,omitempty"`
}

// New builds an event of type typ at schema version 1 with a fresh id and
// the current time (NewVersion). Producers build their events with the
// constructors of their libs/internalapi package, which name the version.
func New(typ, organization, subject string, data any) Event {
	return NewVersion(typ, 1, organization, subject, data)
}

// NewVersion builds an event of type typ whose data is of schema version
// version, with a fresh id and the current time. data is marshalled to
// JSON without HTML escaping (so '<', '>' and '&' stay one byte each); a
// value that cannot be marshalled yields no data.
func NewVersion(typ string, version int, organization, subject string, data any) Event {
	var raw json.RawMessage
	if data != nil {
		raw, _ = Marshal(data)
	}
	return Event{ID: NewID(), Type: typ, Version: version, OccurredAt: time.Now().UTC(),
		Organization: organization, Subject: subject, Data: raw}
}

// SchemaVersion is the schema version of ev's data: Version, or 1 for an
// event stored or published before events carried a version.
func (ev Event) SchemaVersion() int {
	if ev.Version <= 0 {
		return 1
	}
	return ev.Version
}

// Marshal is json.Marshal without HTML escaping: json.Marshal writes each
// '<', '>' and '&' as a 6-byte \u escape, which would let markup-heavy data
// grow an event sixfold.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Encode is Marshal(ev) without scanning ev.Data again: Data, JSON as
// NewVersion or a log writer encoded it (compact), is the last field
// encoded, and is copied in as it is. encoding/json checked and compacted
// it byte by byte, the largest part of encoding a log batch of visits.
func Encode(ev Event) ([]byte, error) {
	data := ev.Data
	ev.Data = nil
	head, err := Marshal(ev)
	if err != nil || len(data) == 0 {
		return head, err
	}
	const field = `,"data":`
	out := make([]byte, 0, len(head)+len(field)+len(data))
	out = append(out, head[:len(head)-1]...) // without its closing brace
	out = append(out, field...)
	out = append(out, data...)
	return append(out, '}'), nil
}

// NewID returns a random event id.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// WithTrace returns a copy of ev carrying the W3C trace context (and baggage)
// of ctx, captured through the global propagator. Call it where the change is
// made, so the event's trace continues the request's trace on Kafka:
//
//	ev := envelope.New("space.updated", org, id, space).WithTrace(ctx)
func (ev Event) WithTrace(ctx context.Context) Event {
	m := propagation.MapCarrier{}
	otel.GetTextMapPropagator().Inject(ctx, m)
	ev.Trace = nil // none when ctx carries no trace
	if len(m) > 0 {
		ev.Trace = m
	}
	return ev
}
