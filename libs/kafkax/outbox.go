package kafkax

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Fields the outbox keeps next to OutboxField on a document.
const (
	// OutboxBytesField counts the BSON bytes of the document's pending
	// events: a write adds its events' bytes, the relay subtracts what it
	// removes (and drops the field when the outbox is empty).
	OutboxBytesField = "_outboxBytes"
	// OutboxFailureField records the failures of the first pending event
	// (attempts, first and last failure, when to try again), so that a
	// restarted relay goes on counting instead of starting from zero.
	OutboxFailureField = "_outboxFailure"
)

// MaxPendingBytes bounds the pending events of one document (BSON bytes).
// While Kafka is down events pile up in the document; the bound keeps it far
// below MongoDB's 16 MiB document limit. A write that would pass it is
// refused (Outbox.Room), and retried by its client once the relay caught up.
const MaxPendingBytes = 4 << 20

// Outbox is a set of events checked and ready to be recorded on one document
// in the update of its change:
//
//	o, err := kafkax.NewOutbox(ev)  // refuses events over MaxEventBytes
//	upd := bson.M{"$set": bson.M{"role": r}}
//	o.AddTo(upd)                    // $push the events, $inc the pending bytes
//	f := bson.M{"_id": id}
//	o.Room(f)                       // only if the document's pending events leave room
//	res, err := coll.UpdateOne(ctx, f, upd)
//
// When the update matches nothing although the document exists, its pending
// events are at MaxPendingBytes: refuse the change for now (503).
type Outbox struct {
	events []Event
	bytes  int64
}

// NewOutbox checks that every event fits in one Kafka message, encoded as the
// relay will encode it (Size), and that together they fit under
// MaxPendingBytes. A failure is a *TooLargeError (errors.Is ErrTooLarge) or
// says why an event cannot be encoded; either way nothing must be written.
func NewOutbox(events ...Event) (Outbox, error) {
	o := Outbox{events: events}
	for _, ev := range events {
		if _, err := Size(ev); err != nil {
			return Outbox{}, err
		}
		raw, err := bson.Marshal(ev)
		if err != nil {
			return Outbox{}, fmt.Errorf("encode event %s: %w", ev.ID, err)
		}
		o.bytes += int64(len(raw))
	}
	if o.bytes > MaxPendingBytes {
		return Outbox{}, &TooLargeError{Type: events[0].Type, Size: o.bytes, Max: MaxPendingBytes}
	}
	return o, nil
}

// Len is the number of events.
func (o Outbox) Len() int { return len(o.events) }

// Bytes is what the events add to the document's pending bytes.
func (o Outbox) Bytes() int64 { return o.bytes }

// Fields returns the fields of a new document carrying the events (none
// without events); append them to the document to insert.
func (o Outbox) Fields() bson.D {
	if len(o.events) == 0 {
		return nil
	}
	return bson.D{{Key: OutboxField, Value: o.events}, {Key: OutboxBytesField, Value: o.bytes}}
}

// AddTo merges into update the operators that record the events: a $push
// onto OutboxField and a $inc of OutboxBytesField, next to the operators the
// update already has. Without events update is unchanged.
func (o Outbox) AddTo(update bson.M) {
	if len(o.events) == 0 {
		return
	}
	merge(update, "$push", OutboxField, bson.M{"$each": o.events})
	merge(update, "$inc", OutboxBytesField, o.bytes)
}

// Tombstone returns the update that marks a document deleted and records
// the events (its deletion's); the relay removes the document once they are
// published.
func (o Outbox) Tombstone() bson.M {
	u := bson.M{"$set": bson.M{TombstoneField: true}}
	o.AddTo(u)
	return u
}

// Room adds to the filter f the condition that the document's pending events
// leave room for these under MaxPendingBytes (a document without the count
// has room). Without events f is unchanged.
func (o Outbox) Room(f bson.M) {
	if len(o.events) == 0 {
		return
	}
	f[OutboxBytesField] = bson.M{"$not": bson.M{"$gt": MaxPendingBytes - o.bytes}}
}

// merge sets field to v in the operator op of update, keeping the fields the
// operator already sets (as bson.M or bson.D).
func merge(update bson.M, op, field string, v any) {
	switch cur := update[op].(type) {
	case bson.M:
		cur[field] = v
	case map[string]any:
		cur[field] = v
	case bson.D:
		update[op] = append(cur, bson.E{Key: field, Value: v})
	default:
		update[op] = bson.M{field: v}
	}
}
