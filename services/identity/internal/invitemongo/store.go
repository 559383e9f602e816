// Package invitemongo stores identity's invite links in MongoDB through
// libs/docstore: every write records its event on the written document in
// the same update (the outbox of libs/kafkax), removals tombstone the
// document, and every read skips tombstones.
package invitemongo

import (
	"context"

	"github.com/docspub/platform/libs/docstore"
	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/identity/internal/invite"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Collection holds the invite links; its documents carry pending events.
const Collection = "invites"

// Store implements invite.Store.
type Store struct {
	d *docstore.Store
}

var _ invite.Store = (*Store)(nil)

// NewStore returns a store on db, whose document locks the outbox relay
// shares (see mongox.DB). written (nil: none) is called after every write
// that recorded events, with them: the relay's Notify, so that they leave
// at once, and the drop of the cached callers of their organization.
func NewStore(db mongox.DB, written func(events []envelope.Event)) *Store {
	return &Store{d: docstore.New(db, map[string]string{Collection: "invite"}, written)}
}

// Indexes are the indexes the store relies on.
func Indexes() []mongox.Index { return []mongox.Index{mongox.Keys(Collection, "organization")} }

// Insert stores a new invite link with its event.
func (s *Store) Insert(ctx context.Context, i invite.Invite, ev envelope.Event) error {
	return s.d.Insert(ctx, Collection, i, ev)
}

// SetRole changes a link's role and records its event.
func (s *Store) SetRole(ctx context.Context, id string, r roles.Role, ev envelope.Event) error {
	return s.d.Set(ctx, Collection, id, bson.M{"role": r}, ev)
}

// Remove tombstones a live link and records its deletion event.
func (s *Store) Remove(ctx context.Context, id string, ev envelope.Event) error {
	return s.d.Remove(ctx, Collection, id, bson.M{"key": "removed/" + id}, ev)
}

// Invite returns org's live link id.
func (s *Store) Invite(ctx context.Context, org, id string) (invite.Invite, error) {
	return docstore.FindOne[invite.Invite](ctx, s.d, Collection, bson.M{"_id": id, "organization": org})
}

// Invites returns a page of org's links by id and their count.
func (s *Store) Invites(ctx context.Context, org, after string, limit int) ([]invite.Invite, int, error) {
	return docstore.Page[invite.Invite](ctx, s.d, Collection, bson.M{"organization": org}, docstore.Keyset{AfterID: after, Limit: limit})
}
