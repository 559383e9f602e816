package docstore

import (
	"context"
	"errors"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongox"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// VersionField counts the writes of a document that Modify changes: its
// compare-and-set is on it. It lives in the stored document only, never in
// the type the domain changes (a document stored without it is at 0).
const VersionField = "version"

// Change is what Modify does to a document: it changes *doc and returns the
// events the change records (none: a write without events; see One). An error stops
// the update with nothing written and is returned as is. It may run twice,
// on a fresh read each time, so it changes nothing but *doc.
type Change[T any] func(doc *T) ([]kafkax.Event, error)

// One is the events of a change that records at most one: none for the
// zero event (no type).
func One(ev kafkax.Event) []kafkax.Event {
	if ev.Type == "" {
		return nil
	}
	return []kafkax.Event{ev}
}

// modifyTries is how often Modify reads, changes and writes a document
// before it gives up with apierr.Changed: once, and once more after
// losing a race to another write of the document.
const modifyTries = 2

// Modify is the read-modify-write of the live document id of coll: it reads
// the document with its version, applies change to it and writes what
// changed (the top-level fields of T that differ, see mongox.Diff) with
// the change's events, provided the document is still at the version read
// (a compare-and-set on {_id, version} that counts the write in it). When
// another write came first it reads the document again and applies change
// anew, once; when that loses too it is apierr.Changed naming the
// resource, nothing written. A missing document is a not-found error. A
// change that alters no stored field writes nothing, its events included.
// It returns the document as written.
//
// The fields of the stored document that T does not hold are kept as they
// are; T must not hold VersionField.
func Modify[T any](ctx context.Context, s *Store, coll, id string, change Change[T]) (T, error) {
	var out T
	err := readModifyWrite(ctx, s, coll, id, func(raw bson.Raw) (bson.M, []kafkax.Event, error) {
		// The change works on a copy of its own (decoded again): was is
		// what the diff starts from.
		var was, now T
		if err := bson.Unmarshal(raw, &was); err != nil {
			return nil, nil, mongox.Err(err, s.Name(coll))
		}
		if err := bson.Unmarshal(raw, &now); err != nil {
			return nil, nil, mongox.Err(err, s.Name(coll))
		}
		events, err := change(&now)
		if err != nil {
			return nil, nil, err
		}
		upd, err := mongox.Diff(was, now, "_id", VersionField)
		out = now
		return upd, events, err
	})
	if err != nil {
		var zero T
		return zero, err
	}
	return out, nil
}

// Removal is what RemoveIf does to a document: it says, from the document
// as read, the events of its removal (see One), or an error that keeps it
// (nothing written, the error returned as is). Like a Change it may run
// twice, on a fresh read each time, and changes nothing.
type Removal[T any] func(doc T) ([]kafkax.Event, error)

// RemoveIf is Modify for a change that removes the live document id of
// coll: it reads the document with its version, asks remove whether and
// with what events, and tombstones it with them (the relay publishes them,
// then deletes it) provided it is still at the version read; when another
// write came first it reads it again and asks anew, once, then it is
// apierr.Changed naming the resource. A missing document is a not-found
// error.
func RemoveIf[T any](ctx context.Context, s *Store, coll, id string, remove Removal[T]) error {
	return readModifyWrite(ctx, s, coll, id, func(raw bson.Raw) (bson.M, []kafkax.Event, error) {
		var doc T
		if err := bson.Unmarshal(raw, &doc); err != nil {
			return nil, nil, mongox.Err(err, s.Name(coll))
		}
		events, err := remove(doc)
		if err != nil {
			return nil, nil, err
		}
		return bson.M{"$set": bson.M{kafkax.TombstoneField: true}}, events, nil
	})
}

// readModifyWrite is the loop of Modify and RemoveIf: it reads the live
// document id of coll as stored, asks update for the update of it (none:
// nothing to write) and its events, and writes them provided the document
// is still at the version read, counting the write in it; once more after
// losing a race, then apierr.Changed.
func readModifyWrite(ctx context.Context, s *Store, coll, id string, update func(raw bson.Raw) (bson.M, []kafkax.Event, error)) error {
	for try := 1; ; try++ {
		raw, err := s.latest(ctx, coll, id)
		if err != nil {
			return err
		}
		version, _ := raw.Lookup(VersionField).AsInt64OK()
		upd, events, err := update(raw)
		if err != nil {
			return err
		}
		if len(upd) == 0 {
			return nil // nothing changed: nothing to record either
		}
		upd["$inc"] = bson.M{VersionField: int64(1)}
		err = s.Update(ctx, coll, id, at(version), upd, events...)
		if tenant, ok := raw.Lookup(TenantField).StringValueOK(); ok && s.lists[coll] != nil {
			// The tenant it was read in, which events may not name (a
			// document moving to another).
			s.TenantChanged(coll, tenant)
		}
		if !errors.Is(err, apierr.ErrNotFound) {
			return err
		}
		// Nothing at that version: gone (the next read says so), or
		// written meanwhile.
		if try == modifyTries {
			if _, gone := s.latest(ctx, coll, id); gone != nil {
				return gone
			}
			return apierr.Changed(s.Name(coll))
		}
	}
}

// ModifyOrInsert is Modify for a document that may not be stored yet: a
// missing one is fresh (with _id id) changed by change, inserted with the
// change's events. When another write inserted it first, change applies
// to that one instead (Modify).
func ModifyOrInsert[T any](ctx context.Context, s *Store, coll, id string, fresh T, change Change[T]) (T, error) {
	doc, err := Modify(ctx, s, coll, id, change)
	if !errors.Is(err, apierr.ErrNotFound) {
		return doc, err
	}
	events, err := change(&fresh)
	if err != nil {
		return fresh, err
	}
	err = s.Insert(ctx, coll, fresh, events...)
	if errors.Is(err, apierr.ErrConflict) {
		return Modify(ctx, s, coll, id, change)
	}
	return fresh, err
}

// latest reads the live document id of coll as stored, where the store
// writes (a read a compare-and-set depends on).
func (s *Store) latest(ctx context.Context, coll, id string) (bson.Raw, error) {
	raw, err := s.C(coll).FindOne(ctx, bson.M{"_id": id}).Raw()
	if err != nil {
		return nil, mongox.Err(err, s.Name(coll))
	}
	if t, ok := raw.Lookup(kafkax.TombstoneField).BooleanOK(); ok && t {
		return nil, apierr.NotFound("%s not found", s.Name(coll))
	}
	return raw, nil
}

// at is the condition of a document at version: 0 is also a document
// stored before it had one. No $or: FerretDB would not look the document up
// by its _id then, but scan the collection.
func at(version int64) bson.M {
	if version == 0 {
		return bson.M{VersionField: bson.M{"$in": bson.A{int64(0), int32(0), nil}}}
	}
	return bson.M{VersionField: version}
}
