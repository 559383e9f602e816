package customfield

import (
	"context"

	"github.com/docspub/platform/libs/envelope"
)

// SpaceValues are the values one space holds, for the definitions of the
// organization they were written in.
type SpaceValues struct {
	Space        string
	Organization string
	Values       Values
}

// Change is what an update does to what it read: it changes it and
// returns the events that record the change (none: nothing to record). An
// error writes nothing. It may run twice, on a fresh read each time.
type Change[T any] func(*T) ([]envelope.Event, error)

// Store is what the domain needs from storage. Every write but the purges
// records its event on the written document in the same update (the
// outbox). Reads of one missing definition return an apierr not-found error.
type Store interface {
	// InsertField stores a new definition; a live definition of the same
	// name in the organization is an apierr conflict.
	InsertField(ctx context.Context, f Field, ev envelope.Event) error
	// Field returns the live definition named name in org.
	Field(ctx context.Context, org, name string) (Field, error)
	// Fields returns one page of org's definitions by name, and how many
	// there are in all.
	Fields(ctx context.Context, org string, p Page) ([]Field, int, error)
	// UpdateField reads the live definition id, applies change to it and
	// stores what it changed with its events, all or nothing; it returns
	// the definition as stored. Another write of the definition meanwhile
	// is retried once, then an apierr.ErrChanged conflict.
	UpdateField(ctx context.Context, id string, change Change[Field]) (Field, error)
	// RemoveField deletes the definition and frees its name.
	RemoveField(ctx context.Context, f Field, ev envelope.Event) error

	// SpaceValues returns the space's values; a space without any has none
	// (and no organization).
	SpaceValues(ctx context.Context, space string) (SpaceValues, error)
	// UpdateSpaceValues reads the space's values (none yet: no
	// organization, no values), applies change to them and stores them
	// with its events, all or nothing. Another write of them meanwhile is
	// retried once, then an apierr.ErrChanged conflict.
	UpdateSpaceValues(ctx context.Context, space string, change Change[SpaceValues]) error
	// ClearValues removes the values of the field name from every space of
	// org, without events (the field's deletion event says they are gone).
	ClearValues(ctx context.Context, org, name string) error
}
