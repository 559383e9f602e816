// Package tokenmongo stores identity's API tokens in MongoDB through
// libs/docstore: every write records its event on the written document in
// the same update (the outbox of libs/kafkax).
package tokenmongo

import (
	"context"
	"time"

	"github.com/docspub/platform/libs/docstore"
	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/identity/internal/token"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Collection holds the tokens; its documents carry pending events.
const Collection = "tokens"

// Store implements token.Store.
type Store struct {
	d *docstore.Store
}

var _ token.Store = (*Store)(nil)

// NewStore returns a store on db, whose document locks the outbox relay
// shares (see mongox.DB). written (nil: none) is called after every write
// that recorded events, with them: the relay's Notify, so that they leave
// at once, and the drop of the cached callers of their organization.
func NewStore(db mongox.DB, written func(events []envelope.Event)) *Store {
	return &Store{d: docstore.New(db, map[string]string{Collection: "token"}, written)}
}

// Indexes are the indexes the store relies on.
func Indexes() []mongox.Index { return []mongox.Index{mongox.Unique(Collection, "hash")} }

// Insert stores a new token with its event.
func (s *Store) Insert(ctx context.Context, t token.Token, ev envelope.Event) error {
	return s.d.Insert(ctx, Collection, t, ev)
}

// Revoke marks a token revoked at at and records its event.
func (s *Store) Revoke(ctx context.Context, id string, at time.Time, ev envelope.Event) error {
	return s.d.Set(ctx, Collection, id, bson.M{"revokedAt": at}, ev)
}

// Token returns a token by id.
func (s *Store) Token(ctx context.Context, id string) (token.Token, error) {
	return docstore.FindOne[token.Token](ctx, s.d, Collection, bson.M{"_id": id})
}

// TokenByHash returns the token with the hash.
func (s *Store) TokenByHash(ctx context.Context, hash string) (token.Token, error) {
	return docstore.FindOne[token.Token](ctx, s.d, Collection, bson.M{"hash": hash})
}
