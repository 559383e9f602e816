// Package sharelinkmongo stores share links in MongoDB (libs/docstore):
// every write pushes its event onto the written document in the same update
// (the outbox of libs/kafkax), a revoked link is tombstoned with its key
// erased, and every read skips tombstones. Driver errors never leave this
// package.
package sharelinkmongo

import (
	"context"

	"github.com/docspub/platform/libs/docstore"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/sites/internal/sharelink"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// Links is the collection of share links: sharelink.Link, unique by keyHash.
const Links = "share_links"

// Store implements sharelink.Store.
type Store struct {
	ds *docstore.Store
}

var _ sharelink.Store = (*Store)(nil)

// NewStore returns a store on db. Updates of one document are serialised
// with its document locks, which the outbox relay shares (see mongox.DB).
// written (nil: none) is called after each write with events, with them:
// the relay's Notify, so that they leave at once, and the reader's drop of
// what it keeps of their organization.
func NewStore(db mongox.DB, written func(events []kafkax.Event)) *Store {
	return &Store{ds: docstore.New(db, map[string]string{Links: "share link"}, written)}
}

// Indexes are the indexes the store relies on: keys are unique and looked
// up by their hash; a site's links are listed by id.
func Indexes() []mongox.Index {
	return []mongox.Index{
		mongox.Unique(Links, "keyHash"),
		mongox.Keys(Links, "site", "_id"),
	}
}

// EnsureIndexes creates the indexes.
func EnsureIndexes(ctx context.Context, db *mongo.Database) error {
	return mongox.EnsureIndexes(ctx, db, Indexes()...)
}

// Collections lists the collections whose documents carry events, for the relay.
func Collections() []string { return []string{Links} }

// Insert stores a new link.
func (s *Store) Insert(ctx context.Context, l sharelink.Link, ev kafkax.Event) error {
	return s.ds.Insert(ctx, Links, l, ev)
}

// Link returns the live link id of site.
func (s *Store) Link(ctx context.Context, site, id string) (sharelink.Link, error) {
	return docstore.FindOne[sharelink.Link](ctx, s.ds, Links, bson.M{"_id": id, "site": site})
}

// Links returns one page of site's links by id (creation order) and counts them all.
func (s *Store) Links(ctx context.Context, site string, p sharelink.Page) ([]sharelink.Link, int, error) {
	return docstore.Page[sharelink.Link](ctx, s.ds, Links, bson.M{"site": site},
		docstore.Keyset{Field: "_id", AfterValue: p.AfterID, AfterID: p.AfterID, Limit: p.Limit})
}

// Update sets the fields the change holds.
func (s *Store) Update(ctx context.Context, site, id string, ch sharelink.Change, ev kafkax.Event) error {
	set := bson.M{"updatedAt": ch.UpdatedAt}
	if ch.Name != nil {
		set["name"] = *ch.Name
	}
	if ch.Active != nil {
		set["active"] = *ch.Active
	}
	return s.ds.Update(ctx, Links, id, bson.M{"site": site}, bson.M{"$set": set}, ev)
}

// Remove tombstones the link, deactivates it and erases its key: the
// tombstone, kept until the relay publishes the event, opens nothing.
func (s *Store) Remove(ctx context.Context, site, id string, ev kafkax.Event) error {
	return s.ds.Update(ctx, Links, id, bson.M{"site": site}, bson.M{"$set": bson.M{
		kafkax.TombstoneField: true, "active": false, "key": "", "keyHash": "removed/" + id,
	}}, ev)
}

// ByKeyHash returns the live link whose key hashes to hash.
func (s *Store) ByKeyHash(ctx context.Context, hash string) (sharelink.Link, error) {
	return docstore.FindOne[sharelink.Link](ctx, s.ds, Links, bson.M{"keyHash": hash})
}

// DeleteSite removes every link of the site without events (the site's
// deletion event says they are gone), when a deleted site is purged.
func (s *Store) DeleteSite(ctx context.Context, site string) error {
	return s.ds.Delete(ctx, Links, bson.M{"site": site})
}
