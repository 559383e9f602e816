// Package gitsyncmongo stores the spaces' Git sync states in MongoDB
// (libs/docstore): one document per space in "git_sync", each write with its
// event. Driver errors never leave it.
package gitsyncmongo

import (
	"context"

	"github.com/docspub/platform/libs/docstore"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/integrations/internal/gitsync"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// States is the collection of sync states.
const States = "git_sync"

// Store implements gitsync.Store.
type Store struct {
	ds *docstore.Store
}

var _ gitsync.Store = (*Store)(nil)

// NewStore returns a store on db (the service's); written (nil: none) is
// called after every write that recorded an event (the relay's Notify).
func NewStore(db mongox.DB, written func()) *Store {
	return &Store{ds: docstore.New(db, map[string]string{States: "Git sync"}, docstore.Notify(written))}
}

// Indexes: running operations counted per organization.
func Indexes() []mongox.Index {
	return []mongox.Index{mongox.Keys(States, "organization", "operation.state")}
}

// Collections lists the collections whose documents carry events.
func Collections() []string { return []string{States} }

// Get returns a space's state, read where it is written (not through
// the reads' client, which may lag: MongoDB's secondaries, the embedded
// server's read pool): what a job decides from it (skipping an operation
// older than the last applied one) must not come from an older state.
func (s *Store) Get(ctx context.Context, space string) (gitsync.State, error) {
	return docstore.FindLatest[gitsync.State](ctx, s.ds, States, bson.M{"_id": space})
}

// Update applies change to the space's state (docstore.ModifyOrInsert):
// the state is created by its first write.
func (s *Store) Update(ctx context.Context, space string, change func(*gitsync.State) (*kafkax.Event, error)) error {
	_, err := docstore.ModifyOrInsert(ctx, s.ds, States, space, gitsync.State{ID: space}, func(st *gitsync.State) ([]kafkax.Event, error) {
		ev, err := change(st)
		if err != nil || ev == nil {
			return nil, err
		}
		return []kafkax.Event{*ev}, nil
	})
	return err
}

// Running counts org's states whose operation is running.
func (s *Store) Running(ctx context.Context, org string) (int, error) {
	return s.ds.Count(ctx, States, bson.M{"organization": org, "operation.state": gitsync.OpRunning})
}
