// Package translationmongo stores translation settings in MongoDB
// (libs/docstore): each write records its event on the written document,
// removals tombstone it for the relay. Driver errors never leave it.
package translationmongo

import (
	"context"

	"github.com/docspub/platform/libs/docstore"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/libs/paging"
	"github.com/docspub/platform/services/integrations/internal/translation"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Settings is the collection of translation settings.
const Settings = "translation_settings"

// Store implements translation.Store.
type Store struct {
	ds *docstore.Store
}

var _ translation.Store = (*Store)(nil)

// NewStore returns a store on db (the service's); written (nil: none) is
// called after every write that recorded an event (the relay's Notify).
func NewStore(db mongox.DB, written func()) *Store {
	return &Store{ds: docstore.New(db, map[string]string{Settings: "translation settings"}, docstore.Notify(written))}
}

// Indexes are the indexes the store relies on: an organization's settings by id.
func Indexes() []mongox.Index { return []mongox.Index{mongox.Keys(Settings, "organization", "_id")} }

// Collections lists the collections whose documents carry events.
func Collections() []string { return []string{Settings} }

// Insert stores new settings.
func (s *Store) Insert(ctx context.Context, st translation.Settings, ev kafkax.Event) error {
	return s.ds.Insert(ctx, Settings, st, ev)
}

// Get returns org's settings id.
func (s *Store) Get(ctx context.Context, org, id string) (translation.Settings, error) {
	return docstore.FindOne[translation.Settings](ctx, s.ds, Settings, bson.M{"_id": id, "organization": org})
}

// List returns one page of org's settings by id and counts them all.
func (s *Store) List(ctx context.Context, org string, p paging.Request) ([]translation.Settings, int, error) {
	return docstore.Page[translation.Settings](ctx, s.ds, Settings, bson.M{"organization": org},
		docstore.Keyset{Field: "_id", AfterValue: p.AfterID, AfterID: p.AfterID, Limit: p.Limit})
}

// Replace writes the settings' title, languages and update time.
func (s *Store) Replace(ctx context.Context, st translation.Settings, ev kafkax.Event) error {
	return s.ds.Update(ctx, Settings, st.ID, bson.M{"organization": st.Organization}, bson.M{"$set": bson.M{
		"title": st.Title, "languages": st.Languages, "updatedAt": st.UpdatedAt}}, ev)
}

// Remove tombstones the settings.
func (s *Store) Remove(ctx context.Context, org, id string, ev kafkax.Event) error {
	return s.ds.Update(ctx, Settings, id, bson.M{"organization": org},
		bson.M{"$set": bson.M{kafkax.TombstoneField: true}}, ev)
}
