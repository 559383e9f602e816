package space

import (
	"context"
	"time"

	"github.com/docspub/platform/libs/kafkax"
)

// Fields are stored fields to set, by their stored name.
type Fields map[string]any

// Store is what the tree needs from storage. Every write records its event
// with the change (the outbox); reads of one missing item return an apierr
// not-found error.
type Store interface {
	InsertSpace(ctx context.Context, sp Space, rev Revision, ev kafkax.Event) error
	SetSpace(ctx context.Context, id string, set Fields, ev *kafkax.Event) error
	// SetSpaceIf is SetSpace when the space also matches cond; otherwise not found.
	SetSpaceIf(ctx context.Context, id string, cond, set Fields, ev *kafkax.Event) error
	// PurgeSpace removes a deleted space for good, with its event.
	PurgeSpace(ctx context.Context, id string, ev kafkax.Event) error
	Space(ctx context.Context, id string) (Space, error)
	// SpacesByID returns the spaces with the ids in one read (deleted ones
	// too; unknown ids are left out).
	SpacesByID(ctx context.Context, ids []string) ([]Space, error)
	Spaces(ctx context.Context, q SpaceQuery) ([]Space, int, error)
	// DeletedBefore returns up to limit spaces deleted before t.
	DeletedBefore(ctx context.Context, t time.Time, limit int) ([]Space, error)
	Counts(ctx context.Context, spaces []string) (map[string]Counts, error)
	// CopyRevision stores a copy of a revision as the first revision of another space.
	CopyRevision(ctx context.Context, from string, to Revision) error

	InsertCollection(ctx context.Context, c Collection, ev kafkax.Event) error
	SetCollection(ctx context.Context, id string, set Fields, ev *kafkax.Event) error
	RemoveCollection(ctx context.Context, id string, ev kafkax.Event) error
	Collection(ctx context.Context, id string) (Collection, error)
	// OrgCollections returns every collection of an organization.
	OrgCollections(ctx context.Context, org string) ([]Collection, error)
	Collections(ctx context.Context, q CollectionQuery) ([]Collection, int, error)

	// Siblings returns every sibling under parent in org by position then id.
	Siblings(ctx context.Context, org, parent string) ([]Node, error)
	// SetPosition stores a new position without an event (positions are not
	// part of the resources).
	SetPosition(ctx context.Context, n Node, position int64) error
	// HasChildren reports whether a collection holds a live space or collection.
	HasChildren(ctx context.Context, collection string) (bool, error)
}

// Sort keys of space lists.
const (
	ByPosition = "position"
	ByID       = "_id"
)

// SpaceQuery selects a page of live spaces (never deleted ones).
type SpaceQuery struct {
	Organization string
	Parent       *string // nil: any parent
	// Hidden excludes spaces the caller cannot see: spaces whose default
	// level is NoAccess, and inheriting spaces under these collections.
	HideNoAccess      bool
	HiddenCollections []string
	Sort              string // ByPosition or ByID
	Desc              bool
	AfterPosition     int64
	AfterID           string // "" for the first page
	Limit             int
	IncludeDeleted    bool // also deleted spaces (for transfers)
}

// CollectionQuery selects a page of collections by position.
type CollectionQuery struct {
	Organization  string
	TopOnly       bool
	Parent        string // with TopOnly false: "" any, else only children of Parent
	Exclude       []string
	AfterPosition int64
	AfterID       string
	Limit         int
}
