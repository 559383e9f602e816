// Package samlmongo stores identity's SAML providers in MongoDB through
// libs/docstore: every write records its event on the written document in
// the same update (the outbox of libs/kafkax), removals tombstone the
// document, and every read skips tombstones.
package samlmongo

import (
	"context"

	"github.com/docspub/platform/libs/docstore"
	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/identity/internal/saml"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Collection holds the providers; its documents carry pending events.
const Collection = "saml_providers"

// Store implements saml.Store.
type Store struct {
	d *docstore.Store
}

var _ saml.Store = (*Store)(nil)

// NewStore returns a store on db, whose document locks the outbox relay
// shares (see mongox.DB). written (nil: none) is called after every write
// that recorded events, with them: the relay's Notify, so that they leave
// at once, and the drop of the cached callers of their organization.
func NewStore(db mongox.DB, written func(events []envelope.Event)) *Store {
	return &Store{d: docstore.New(db, map[string]string{Collection: "SAML provider"}, written)}
}

// Indexes are the indexes the store relies on.
func Indexes() []mongox.Index { return []mongox.Index{mongox.Keys(Collection, "organization")} }

// Insert stores a new provider with its event.
func (s *Store) Insert(ctx context.Context, p saml.Provider, ev envelope.Event) error {
	return s.d.Insert(ctx, Collection, p, ev)
}

// Update writes a provider's settings and records its event.
func (s *Store) Update(ctx context.Context, p saml.Provider, ev envelope.Event) error {
	return s.d.Set(ctx, Collection, p.ID, bson.M{"label": p.Label, "entityID": p.EntityID, "certificate": p.Certificate,
		"ssoURL": p.SSOURL, "defaultTeam": p.DefaultTeam, "defaultRole": p.DefaultRole}, ev)
}

// Remove tombstones a live provider and records its deletion event.
func (s *Store) Remove(ctx context.Context, id string, ev envelope.Event) error {
	return s.d.Remove(ctx, Collection, id, bson.M{"key": "removed/" + id}, ev)
}

// Provider returns org's live provider id.
func (s *Store) Provider(ctx context.Context, org, id string) (saml.Provider, error) {
	return docstore.FindOne[saml.Provider](ctx, s.d, Collection, bson.M{"_id": id, "organization": org})
}

// Providers returns a page of org's providers by id (all when limit is 0)
// and their count.
func (s *Store) Providers(ctx context.Context, org, after string, limit int) ([]saml.Provider, int, error) {
	return docstore.Page[saml.Provider](ctx, s.d, Collection, bson.M{"organization": org}, docstore.Keyset{AfterID: after, Limit: limit})
}
