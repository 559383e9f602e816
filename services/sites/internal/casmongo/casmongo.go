// Package casmongo changes one stored document of the sites service as a
// compare-and-set: the store reads the document with its version (a field
// only the store knows), the domain's change edits the typed document and
// returns the change's event, and the store writes the fields that changed
// with the event (the outbox), only while the version is still the one it
// read. A change that lost the race runs again on the document as it now
// is; after a few lost races the update is a conflict.
package casmongo

import (
	"context"
	"errors"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/docstore"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongox"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// VersionField holds a document's version: one more at every change
// (documents stored before versions existed have none: version 0).
const VersionField = "version"

// attempts is how often a change runs before its lost races are a conflict.
const attempts = 5

// Change edits a document and returns the event of the change; a zero
// event (no type) writes the change without one.
type Change[T any] func(doc *T) (kafkax.Event, error)

// Check vets a change before it is written (old is the document as read),
// for example that a unique key is free.
type Check[T any] func(ctx context.Context, old, doc *T) error

type versioned[T any] struct {
	Doc     T     `bson:",inline"`
	Version int64 `bson:"version"`
}

// Update applies change to the live document of coll matching filter (its
// _id and further conditions, like the site it belongs to) and writes the
// fields that changed, with the event, as a compare-and-set on its
// version; check (nil: none) vets each result first. A change that
// changes nothing writes nothing. It returns the document as written.
func Update[T any](ctx context.Context, d *docstore.Store, coll string, filter bson.M, change Change[T], check Check[T]) (T, error) {
	id, _ := filter["_id"].(string)
	cond := bson.M{}
	for k, v := range filter {
		if k != "_id" {
			cond[k] = v
		}
	}
	for range attempts {
		cur, err := docstore.FindOne[versioned[T]](ctx, d, coll, filter)
		if err != nil {
			return cur.Doc, err
		}
		doc := cur.Doc
		ev, err := change(&doc)
		if err != nil {
			return doc, err
		}
		upd, err := mongox.Diff(cur.Doc, doc)
		if err != nil || len(upd) == 0 {
			return doc, err
		}
		if check != nil {
			if err := check(ctx, &cur.Doc, &doc); err != nil {
				return doc, err
			}
		}
		upd["$inc"] = bson.M{VersionField: 1}
		var evs []kafkax.Event
		if ev.Type != "" {
			evs = append(evs, ev)
		}
		err = d.Update(ctx, coll, id, at(cond, cur.Version), upd, evs...)
		if !errors.Is(err, apierr.ErrNotFound) {
			return doc, err
		}
		// Changed meanwhile (the next read says when it is gone).
	}
	var zero T
	return zero, apierr.Conflict("the %s changed meanwhile; try again", d.Name(coll))
}

// at is cond with the document's version (no $or: FerretDB would not look
// a document up by _id then).
func at(cond bson.M, version int64) bson.M {
	out := bson.M{VersionField: version}
	if version == 0 {
		out[VersionField] = bson.M{"$in": bson.A{int64(0), nil}}
	}
	for k, v := range cond {
		out[k] = v
	}
	return out
}
