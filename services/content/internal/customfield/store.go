package customfield

import (
	"context"
	"github.com/docspub/platform/libs/apierr"

	"github.com/docspub/platform/libs/envelope"
)

// SpaceValues are the values one space holds, for the definitions of the
// organization they were written in.
type SpaceValues struct {
	Space        string
	Organization string
	Values       Values
	// Version counts the writes of the space's values (0: none yet).
	Version int64
}

// ErrChanged: a definition or a space's values changed between reading and
// writing them (another request won the race); nothing was written.
var ErrChanged = apierr.Conflict("the custom field values or definition changed meanwhile; read them again and retry")

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
	// UpdateField stores the title, description, placeholder, options and
	// updatedAt of f, provided the stored definition is at f.Version
	// (ErrChanged otherwise).
	UpdateField(ctx context.Context, f Field, ev envelope.Event) error
	// RemoveField deletes the definition and frees its name.
	RemoveField(ctx context.Context, f Field, ev envelope.Event) error

	// SpaceValues returns the space's values; a space without any has none
	// (and no organization).
	SpaceValues(ctx context.Context, space string) (SpaceValues, error)
	// SetSpaceValues sets and clears values of a space of org, provided
	// they are still as read in was (compare-and-set on its organization and
	// version; ErrChanged otherwise). Values written in another organization
	// (before a transfer) are dropped.
	SetSpaceValues(ctx context.Context, org string, was SpaceValues, set Values, clear []string, ev envelope.Event) error
	// ClearValues removes the values of the field name from every space of
	// org, without events (the field's deletion event says they are gone).
	ClearValues(ctx context.Context, org, name string) error
}
