// Package kafkax carries domain events to Kafka without loss, and without
// letting one bad event hold up any other.
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
// Events are bounded when the change is written (NewOutbox; libs/docstore
// does it for every service): one event is at most MaxEventBytes on Kafka,
// key and JSON envelope encoded exactly as the relay sends it (without HTML
// escaping, so '<', '>' and '&' take one byte each), and the pending events
// of one document at most MaxPendingBytes (BSON bytes, counted in
// OutboxBytesField by the writes and the relay, the write being a
// compare-and-set on the count). A change over the first bound is refused for
// good, over the second until the relay caught up.
//
// A failure stays with what failed. A sweep goes through every collection,
// whatever failed in another; a collection whose query fails or passes the
// query timeout rests with backoff. An event that fails while Kafka is up
// (Kafka refuses the message, it cannot be encoded, or it fails while other
// events of the sweep are acknowledged) makes its document wait with backoff
// and then go alone, its attempts recorded on the document
// (OutboxFailureField) so that a restarted relay goes on counting; at the
// relay's maximum of attempts (DefaultMaxAttempts) the event moves to
// DeadLetterCollection and the document's later events flow, in order. When
// Kafka acknowledges nothing it is down: nothing is counted or dead-lettered,
// events wait and the relay backs off.
//
// Consumers are idempotent: they record the ids of handled events. A handler
// error is retried with backoff and never skips the event, except
// Permanent(err), which says the event can never be handled: it moves to
// DeadLetterCollection with the group and the partition goes on. Every dead
// letter is logged as an error and counted by the OpenTelemetry counter
// kafkax.dead_letters (global meter provider; a no-op until one is set).
//
// Trace context travels with the event: Event.WithTrace captures the request's
// W3C trace context when the change is made, it is stored with the pending
// event, sent as Kafka headers, and the consumer's handler runs in a span of
// the same trace.
//
// The pieces: Publisher (kafka-go writer, key = subject), Relay (pending
// events → Publisher), Consumer (kafka-go group reader → Handler, once per
// group), Outbox (the checked events of one write).
package kafkax

import (
	"github.com/docspub/platform/libs/envelope"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Field names used on documents that carry pending events.
const (
	OutboxField    = "_outbox"
	TombstoneField = "_tombstone"
)

// Event is the one envelope of every topic (see libs/envelope, where domain
// packages build it).
type Event = envelope.Event

// NewEvent builds an event with a fresh id and the current time (envelope.New).
func NewEvent(typ, organization, subject string, data any) Event {
	return envelope.New(typ, organization, subject, data)
}

// NewID returns a random event id.
func NewID() string { return envelope.NewID() }

// Pending is embedded (inline) in stored documents to carry their pending events.
type Pending struct {
	Outbox    []Event `bson:"_outbox,omitempty"`
	Tombstone bool    `bson:"_tombstone,omitempty"`
}

// Live is the filter that skips tombstoned documents; add it to every read.
func Live() bson.M { return bson.M{TombstoneField: bson.M{"$ne": true}} }
