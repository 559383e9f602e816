package sharelink

import (
	"context"

	"github.com/docspub/platform/libs/envelope"
)

// Store is what the domain needs from storage. Every write records its
// event on the written document in the same update (the outbox). Reads of
// one missing link return an apierr not-found error; removed links are never
// read.
type Store interface {
	// Insert stores a new link; a link with the same key hash is an apierr
	// conflict.
	Insert(ctx context.Context, l Link, ev envelope.Event) error
	// Link returns the live link id of site.
	Link(ctx context.Context, site, id string) (Link, error)
	// Links returns one page of site's live links in creation order, and
	// how many there are in all.
	Links(ctx context.Context, site string, p Page) ([]Link, int, error)
	// Update writes the fields the change sets on the live link id of site.
	Update(ctx context.Context, site, id string, ch Change, ev envelope.Event) error
	// Remove revokes the link of site for good: it is no longer read and
	// its key is erased.
	Remove(ctx context.Context, site, id string, ev envelope.Event) error
	// ByKeyHash returns the live link whose key hashes to hash, of any site.
	ByKeyHash(ctx context.Context, hash string) (Link, error)
}
