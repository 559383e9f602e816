package envelope

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
)

// ErrUnknown marks an event its consumer does not know: a type its
// producer's catalogue does not declare, or a schema version newer than
// the consumer reads (the producer was deployed first). A consumer ignores
// such an event: libs/kafkax logs and counts it and goes on, the partition
// never held up by it.
var ErrUnknown = errors.New("unknown event")

// ErrBadData marks an event whose data cannot be read at its version: not
// the JSON of its payload, or a version older than the consumer still
// reads. Retrying cannot help: consumers refuse it for good
// (kafkax.Permanent, a dead letter).
var ErrBadData = errors.New("unreadable event data")

// Catalogue declares a producer's event types, each with the schema
// version of its data that the producer writes now. Every libs/internalapi
// package of a producing service has one (Events).
type Catalogue map[string]int

// Check is nil when c declares ev's type at ev's version or an older one,
// else an error wrapping ErrUnknown.
func (c Catalogue) Check(ev Event) error {
	cur, ok := c[ev.Type]
	if !ok {
		return fmt.Errorf("%w: type %q", ErrUnknown, ev.Type)
	}
	if v := ev.SchemaVersion(); v > cur {
		return fmt.Errorf("%w: %s version %d, this consumer reads up to %d", ErrUnknown, ev.Type, v, cur)
	}
	return nil
}

// Types are the event types of c, sorted.
func (c Catalogue) Types() []string {
	out := make([]string, 0, len(c))
	for t := range c {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// Schema is how a consumer reads the data of an event type as its payload
// T: the data of version Current decodes into T as it is; the data of the
// version before, while producers may still write it or it waits in
// outboxes and topics, goes through Previous (nil when Current is 1).
// A consumer reads these two versions and no other.
type Schema[T any] struct {
	Current  int
	Previous func(data json.RawMessage) (T, error)
}

// Decode reads ev's data by its version (SchemaVersion: an event without
// one is of version 1). A newer version than Current is ErrUnknown (to
// ignore); data that is not the payload's JSON, or a version older than
// Current-1, is ErrBadData.
func (s Schema[T]) Decode(ev Event) (T, error) {
	var v T
	n := ev.SchemaVersion()
	switch {
	case n > s.Current:
		return v, fmt.Errorf("%w: %s version %d, this consumer reads up to %d", ErrUnknown, ev.Type, n, s.Current)
	case n == s.Current:
		if err := json.Unmarshal(ev.Data, &v); err != nil {
			return v, fmt.Errorf("%w: %s version %d: %v", ErrBadData, ev.Type, n, err)
		}
		return v, nil
	case n == s.Current-1 && s.Previous != nil:
		v, err := s.Previous(ev.Data)
		if err != nil {
			return v, fmt.Errorf("%w: %s version %d: %v", ErrBadData, ev.Type, n, err)
		}
		return v, nil
	}
	return v, fmt.Errorf("%w: %s version %d is no longer read (current %d)", ErrBadData, ev.Type, n, s.Current)
}
