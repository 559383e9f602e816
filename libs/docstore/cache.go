package docstore

import (
	"context"
	"slices"
	"time"

	"github.com/docspub/platform/libs/generations"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/libs/sizedcache"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// idCache keeps documents of one collection read by _id, as read.
type idCache struct {
	docs *sizedcache.Cache[idKey, bson.Raw]
	ttl  time.Duration
	// gens are the documents' generations, bumped by each write of one
	// (see changed).
	gens generations.Counters
}

// idKey names a document as read: its id, its generation before the read
// and the period of ttl the read started in. Lookups only ever name the
// current generation and period, so a kept document is never stale, only
// unused until the cache drops it.
type idKey struct {
	id     string
	gen    uint64
	period int64
}

// CacheByID keeps the documents of coll that FindCached reads, at most
// entries of them and maxBytes in all, for a collection read far more
// often than written (a space on every request about it). Call it before
// the store is shared.
//
// A kept document is never served after a write of it through this store
// (Insert, Update or Delete in this process): each is kept under its
// generation read before the document was, which the write bumps once
// done, and served only while the generation is the same. A write of one
// document drops no other (but those sharing its counter: one document in
// generations.Buckets); a Delete whose filter is not one _id drops every
// document of coll. Nor is a document served after the period of ttl its
// read started in, so a write through anything else, another instance of
// the service above all, shows within ttl (at once when its event reaches
// this one and calls Changed): the collection must be written through
// this store alone in the process, and a staleness of at most ttl across
// instances be acceptable (a change of who may read the document
// included). Documents not found are not kept.
func (s *Store) CacheByID(coll string, entries int, maxBytes int64, ttl time.Duration) {
	if s.byID == nil {
		s.byID = map[string]*idCache{}
	}
	s.byID[coll] = &idCache{docs: sizedcache.New[idKey, bson.Raw](entries, maxBytes).Observe("docstore." + coll), ttl: ttl}
}

// Changed drops what CacheByID keeps of document id of coll (every
// document of coll when id is ""), as a write of it through the store
// does: for another instance's write, whose event reached this one.
func (s *Store) Changed(coll, id string) { s.changed(coll, id) }

// changed bumps the generation of document id of coll, if coll is cached
// (of all its documents when id is ""). Writes call it once done.
func (s *Store) changed(coll, id string) {
	c := s.byID[coll]
	switch {
	case c == nil:
	case id == "":
		c.gens.BumpAll()
	default:
		c.gens.Bump(id)
	}
}

// FindCached is FindOne by _id through coll's cache (CacheByID; without
// one it is FindOne): for reads that answer with the document, never for
// one that a write depends on, which reads with FindOne.
func FindCached[T any](ctx context.Context, s *Store, coll, id string) (T, error) {
	c := s.byID[coll]
	if c == nil {
		return FindOne[T](ctx, s, coll, bson.M{"_id": id})
	}
	var v T
	key := idKey{id: id, gen: c.gens.Of(id), period: periodOf(c.ttl)}
	raw, ok := c.docs.Get(key)
	if !ok {
		var err error
		if raw, err = s.R(coll).FindOne(ctx, bson.M{"_id": id}).Raw(); err != nil {
			return v, mongox.Err(err, s.Name(coll))
		}
		c.docs.Add(key, raw, int64(len(raw)))
	}
	if t, ok := raw.Lookup(kafkax.TombstoneField).BooleanOK(); ok && t {
		return v, mongox.Err(mongo.ErrNoDocuments, s.Name(coll))
	}
	return v, mongox.Err(decodeKept(raw, &v), s.Name(coll))
}

// decodeKept decodes a kept document into v from a copy: what the caller
// gets is its own, and the kept bytes stay as read.
func decodeKept(raw bson.Raw, v any) error { return bson.Unmarshal(slices.Clone(raw), v) }

// periodOf is the period of ttl that now falls in: a kept read names the
// period it began in, and is not served in a later one.
func periodOf(ttl time.Duration) int64 { return time.Now().UnixNano() / int64(ttl) }
