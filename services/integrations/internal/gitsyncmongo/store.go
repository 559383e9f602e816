// Package gitsyncmongo stores the spaces' Git sync states in MongoDB
// (libs/docstore): one document per space in "git_sync", each write with its
// event. Driver errors never leave it.
package gitsyncmongo

import (
	"context"
	"errors"

	"github.com/docspub/platform/libs/apierr"
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

// NewStore returns a store on db (the service's, whose document locks it
// shares with the outbox relay).
func NewStore(db mongox.DB) *Store {
	return &Store{ds: docstore.New(db, map[string]string{States: "Git sync"}, nil)}
}

// OnWrite sets a function called after every write that recorded an event.
func (s *Store) OnWrite(f func()) { s.ds.OnWrite(f) }

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

// Put writes a state whole, keeping the events not yet relayed, as a
// compare-and-set on the version it was read at (0: not stored yet, or
// stored before states had versions); it stores the next version.
// Another write since is gitsync.ErrStateMoved.
func (s *Store) Put(ctx context.Context, st gitsync.State, ev *kafkax.Event) error {
	was := st.Version
	st.Version++
	raw, err := bson.Marshal(st)
	if err != nil {
		return err
	}
	var set bson.M
	if err := bson.Unmarshal(raw, &set); err != nil {
		return err
	}
	delete(set, "_id")
	unset := bson.M{}
	for _, f := range []string{"lastCommit", "lastTimestamp", "operation"} {
		if _, ok := set[f]; !ok {
			unset[f] = ""
		}
	}
	upd := bson.M{"$set": set}
	if len(unset) > 0 {
		upd["$unset"] = unset
	}
	var events []kafkax.Event
	if ev != nil {
		events = append(events, *ev)
	}
	cond := bson.M{"version": was}
	if was == 0 {
		cond = bson.M{"version": bson.M{"$in": bson.A{int64(0), nil}}}
	}
	err = s.ds.Update(ctx, States, st.ID, cond, upd, events...)
	if !errors.Is(err, apierr.ErrNotFound) {
		return err
	}
	if _, gerr := s.Get(ctx, st.ID); gerr == nil {
		return gitsync.ErrStateMoved // stored, at another version
	}
	if was != 0 {
		return gitsync.ErrStateMoved // removed since
	}
	if err := s.ds.Insert(ctx, States, st, events...); err != nil {
		if _, gerr := s.Get(ctx, st.ID); gerr == nil {
			return gitsync.ErrStateMoved // inserted meanwhile by another writer
		}
		return err
	}
	return nil
}

// Running counts org's states whose operation is running.
func (s *Store) Running(ctx context.Context, org string) (int, error) {
	return s.ds.Count(ctx, States, bson.M{"organization": org, "operation.state": gitsync.OpRunning})
}
