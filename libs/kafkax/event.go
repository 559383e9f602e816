// Package kafkax carries domain events to Kafka without loss.
//
// A change and its event are written together, in one single-document update:
// the event is pushed onto the changed document's pending list (field
// OutboxField). A Relay sweeps the registered collections, publishes pending
// events to Kafka (keyed by subject, so events of one aggregate keep their
// order) and removes each event from its document once Kafka acknowledged it.
// While Kafka is down events stay pending and are retried. A deletion marks the
// document as a tombstone (field TombstoneField) and pushes the event; the
// relay deletes the document after publishing. Reads must skip tombstones
// (see Live).
//
// Consumers are idempotent: they record the ids of handled events.
//
// Trace context travels with the event: Event.WithTrace captures the request's
// W3C trace context when the change is made, it is stored with the pending
// event, sent as Kafka headers, and the consumer's handler runs in a span of
// the same trace.
//
// The pieces: Publisher (kafka-go writer, key = subject), Relay (pending
// events → Publisher), Consumer (kafka-go group reader → Handler, once per
// group).
package kafkax

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Field names used on documents that carry pending events.
const (
	OutboxField    = "_outbox"
	TombstoneField = "_tombstone"
)

// Event is the one envelope of every topic.
type Event struct {
	ID           string    `json:"id" bson:"id"`
	Type         string    `json:"type" bson:"type"` // e.g. "member.updated"
	OccurredAt   time.Time `json:"occurredAt" bson:"occurredAt"`
	Organization string    `json:"organization,omitempty" bson:"organization,omitempty"`
	Subject      string    `json:"subject" bson:"subject"` // the aggregate id; the Kafka key
	// Data is the resource as the API returns it (JSON).
	Data json.RawMessage `json:"data,omitempty" bson:"data,omitempty"`
	// Trace carries W3C trace context captured when the change was made.
	Trace map[string]string `json:"-" bson:"trace,omitempty"`
}

// NewEvent builds an event with a fresh id and the current time. data is
// marshalled to JSON; a value that cannot be marshalled yields no data.
func NewEvent(typ, organization, subject string, data any) Event {
	var raw json.RawMessage
	if data != nil {
		raw, _ = json.Marshal(data)
	}
	return Event{ID: NewID(), Type: typ, OccurredAt: time.Now().UTC(), Organization: organization, Subject: subject, Data: raw}
}

// NewID returns a random event id.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Push returns the update operator that appends events to a document's
// pending list; merge it into the update of the change:
//
//	bson.M{"$set": bson.M{"role": r}, "$push": kafkax.Push(ev)}
func Push(events ...Event) bson.M {
	return bson.M{OutboxField: bson.M{"$each": events}}
}

// Pending is embedded (inline) in stored documents to carry their pending events.
type Pending struct {
	Outbox    []Event `bson:"_outbox,omitempty"`
	Tombstone bool    `bson:"_tombstone,omitempty"`
}

// Tombstone returns the update that marks a document deleted and records the
// deletion event; the relay removes the document once the event is published.
func Tombstone(ev Event) bson.M {
	return bson.M{"$set": bson.M{TombstoneField: true}, "$push": Push(ev)}
}

// Live is the filter that skips tombstoned documents; add it to every read.
func Live() bson.M { return bson.M{TombstoneField: bson.M{"$ne": true}} }
