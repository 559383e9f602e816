package space

import (
	"context"
	"time"

	"github.com/docspub/platform/libs/envelope"
)

// Store is what the tree needs from storage: its spaces, its collections
// and the tree's order and lock. Every write records its event with the
// change (the outbox); reads of one missing item return an apierr
// not-found error.
type Store interface {
	SpaceStore
	CollectionStore
	TreeStore
}

// Change is what an update does to a space or a collection as read: it
// changes *doc and returns the event recording the change (the zero event:
// none), or an error that stops the update, nothing written. It may run
// twice, on a fresh read each time (another write came first), so it
// changes nothing but *doc.
type Change[T any] func(doc *T) (envelope.Event, error)

// Removal says, from a space or a collection as read, the event of its
// removal, or an error that keeps it. Like a Change it may run twice.
type Removal[T any] func(doc T) (envelope.Event, error)

// Head is where a space's content is: the revision it points at, and the
// change request whose merge moved it there and is not finished ("" none).
type Head struct {
	Revision  string
	Merging   string
	UpdatedAt time.Time
}

// SpaceStore keeps spaces.
type SpaceStore interface {
	InsertSpace(ctx context.Context, sp Space, rev Revision, ev envelope.Event) error
	// UpdateSpace reads space id, applies change to it and stores what
	// changed with the change's event, all or nothing. Another write of
	// the space meanwhile is retried once, then an apierr.ErrChanged
	// conflict. It returns the space as stored.
	UpdateSpace(ctx context.Context, id string, change Change[Space]) (Space, error)
	// MoveHead points a live space at head, provided it still points at
	// the revision from with no unfinished merge; not found otherwise.
	MoveHead(ctx context.Context, id, from string, head Head, ev envelope.Event) error
	// ClearMerging clears the unfinished merge of changeRequest on a
	// space of org; not found when the space is not marked with it.
	ClearMerging(ctx context.Context, org, id, changeRequest string) error
	// ClearPendingIndex clears the pending re-index of a space of org; not
	// found when it is not pending there.
	ClearPendingIndex(ctx context.Context, id, org string) error
	// PurgeSpace removes space id for good with its revisions when purge,
	// asked about the space as read, says so, with the event it gives
	// (another write meanwhile: asked again once, then apierr.ErrChanged).
	PurgeSpace(ctx context.Context, id string, purge Removal[Space]) error
	Space(ctx context.Context, id string) (Space, error)
	// CachedSpace is Space for a read that answers with the space and
	// nothing else: it may be kept from an earlier read, never across a
	// write through this process, at most a second across a write through
	// another instance. A read that a write depends on uses Space.
	CachedSpace(ctx context.Context, id string) (Space, error)
	// SpacesByID returns the spaces with the ids in one read (deleted ones
	// too; unknown ids are left out).
	SpacesByID(ctx context.Context, ids []string) ([]Space, error)
	Spaces(ctx context.Context, q SpaceQuery) ([]Space, int, error)
	// CachedSpaces is Spaces for a list that answers a request: kept
	// like CachedSpace, and dropped by any write of the organization's
	// spaces through this process.
	CachedSpaces(ctx context.Context, q SpaceQuery) ([]Space, int, error)
	// SpaceNames returns up to q.Limit spaces of q by id (q's sort and
	// page aside), uncounted, each with only its ID, Organization, Title,
	// Parent and DefaultLevel: a list of names and who may read them,
	// for a request's answer, kept like CachedSpaces.
	SpaceNames(ctx context.Context, q SpaceQuery) ([]Space, error)
	// CountSpaces counts the spaces of org (deleted ones too) under the parents.
	CountSpaces(ctx context.Context, org string, parents []string) (int, error)
	// PendingIndex returns up to limit spaces of org whose index must follow a transfer.
	PendingIndex(ctx context.Context, org string, limit int) ([]Space, error)
	// DeletedBefore returns up to limit spaces deleted before t.
	DeletedBefore(ctx context.Context, t time.Time, limit int) ([]Space, error)
	Counts(ctx context.Context, spaces []string) (map[string]Counts, error)
	// CopyRevision stores a copy of a revision as the first revision of
	// another space (nothing when that revision exists already).
	CopyRevision(ctx context.Context, from string, to Revision) error
}

// CollectionStore keeps collections.
type CollectionStore interface {
	InsertCollection(ctx context.Context, c Collection, ev envelope.Event) error
	// UpdateCollection is UpdateSpace for a collection.
	UpdateCollection(ctx context.Context, id string, change Change[Collection]) (Collection, error)
	// RemoveCollection deletes collection id when remove, asked about it
	// as read, says so, with the event it gives (another write meanwhile:
	// asked again once, then apierr.ErrChanged).
	RemoveCollection(ctx context.Context, id string, remove Removal[Collection]) error
	Collection(ctx context.Context, id string) (Collection, error)
	// OrgCollections returns every collection of an organization.
	OrgCollections(ctx context.Context, org string) ([]Collection, error)
	// CachedOrgCollections is OrgCollections for a read that answers a
	// request, kept like CachedSpaces.
	CachedOrgCollections(ctx context.Context, org string) ([]Collection, error)
	// Collections returns a page of collections for a list that answers
	// a request, kept like CachedSpaces.
	Collections(ctx context.Context, q CollectionQuery) ([]Collection, int, error)
}

// TreeStore keeps the order of the tree and its per-organization lock.
type TreeStore interface {
	// Siblings returns every sibling under parent in org by position then id.
	Siblings(ctx context.Context, org, parent string) ([]Node, error)
	// SetPosition stores a new position without an event (positions are not
	// part of the resources) of a node of org.
	SetPosition(ctx context.Context, org string, n Node, position int64) error
	// HasChildren reports whether a collection holds a live space or collection.
	HasChildren(ctx context.Context, collection string) (bool, error)

	// LockTree takes (or renews) the tree lock of org for owner until the
	// lease ends; false when another owner holds it.
	LockTree(ctx context.Context, org, owner string, lease time.Duration) (bool, error)
	// UnlockTree frees the tree lock of org if owner holds it.
	UnlockTree(ctx context.Context, org, owner string) error
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
