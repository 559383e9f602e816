// Package rollupmongo stores insights' rollup buckets, chunk records and
// applied batch ids in MongoDB. Bucket shards are read by _id only (their
// ids are computed from site, granularity and start): on MongoDB an _id
// lookup is an index hit, and the embedded FerretDB pushes down no other
// filter (a range query, even an _id $in, scans and decodes the whole
// collection, every tenant's), so a query's cost is the number of buckets
// of its own range, whatever else is stored.
package rollupmongo

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/insights/internal/rollup"
	"github.com/docspub/platform/services/insights/internal/visit"
	"github.com/klauspost/compress/gzip"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"golang.org/x/sync/errgroup"
)

// Collections of the store.
const (
	Buckets = "buckets"
	Sets    = "bucket_sets"
	Chunks  = "chunks"
	Applied = "applied_batches"
	// Meta keeps the store's own marks (how far CollectSets has looked).
	Meta = "rollup_meta"
)

// AppliedTTL is how long an applied batch id is kept: far longer than any
// redelivery of the log.
const AppliedTTL = 7 * 24 * time.Hour

// Store is the MongoDB store of rollups.
type Store struct {
	db mongox.DB
}

// NewStore returns the store on db.
func NewStore(db mongox.DB) *Store { return &Store{db: db} }

// Indexes are the store's indexes: buckets are read by _id alone; applied
// batch ids are pruned by time, and sets documents looked at by time.
func Indexes() []mongox.Index {
	return []mongox.Index{mongox.Keys(Applied, "at"), mongox.Keys(Sets, "at")}
}

// SaveChunk implements rollup.Store.
func (s *Store) SaveChunk(ctx context.Context, c rollup.Chunk) error {
	if _, err := s.db.Collection(Chunks).InsertOne(ctx, c); err != nil {
		return fmt.Errorf("save chunk: %w", err)
	}
	return nil
}

// Claim implements rollup.Store: one unordered insert of the ids, under
// their chunk; an id already there is looked up by _id (an index hit) to
// tell its chunk. Ids marked before claims carry no chunk: they are taken.
func (s *Store) Claim(ctx context.Context, chunk string, ids []string) (map[string]bool, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	now := time.Now().UTC()
	docs := make([]any, len(ids))
	for i, id := range ids {
		docs[i] = bson.M{"_id": id, "at": now, "chunk": chunk}
	}
	_, err := s.db.Collection(Applied).InsertMany(ctx, docs, options.InsertMany().SetOrdered(false))
	var dups []string
	var bw mongo.BulkWriteException
	switch {
	case errors.As(err, &bw):
		for _, we := range bw.WriteErrors {
			if !mongo.IsDuplicateKeyError(we) || we.Index < 0 || we.Index >= len(ids) {
				return nil, fmt.Errorf("claim batches: %w", err)
			}
			dups = append(dups, ids[we.Index])
		}
	case err != nil:
		return nil, fmt.Errorf("claim batches: %w", err)
	}
	taken := map[string]bool{}
	for _, id := range dups {
		var d struct {
			Chunk string `bson:"chunk"`
		}
		err := s.db.Collection(Applied).FindOne(ctx, bson.M{"_id": id}).Decode(&d)
		if err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
			return nil, fmt.Errorf("read claim of batch %s: %w", id, err)
		}
		if d.Chunk != chunk {
			taken[id] = true
		}
	}
	return taken, nil
}

// DropChunk implements rollup.Store.
func (s *Store) DropChunk(ctx context.Context, id string) error {
	if _, err := s.db.Collection(Chunks).DeleteOne(ctx, bson.M{"_id": id}); err != nil {
		return fmt.Errorf("drop chunk: %w", err)
	}
	return nil
}

// SetsGrace is how old an unreferenced sets document must be before
// CollectSets removes it: far longer than a shard write between the sets'
// insert and the shard's swap to them.
const SetsGrace = time.Hour

// collectBatch bounds the sets documents CollectSets reads at once.
const collectBatch = 5000

// setsSwept is the _id of the Meta document saying until when sets
// documents were looked at.
const setsSwept = "sets-swept"

// CollectSets removes the sets documents that their shard does not name
// (a writer that stopped between inserting new sets and swapping its
// shard to them, or before deleting the sets it replaced, leaves them),
// and returns how many. It looks at the sets written since its last run
// and before cutoff, once each: a shard only ever swaps to sets written
// just before, so one older than cutoff (SetsGrace ago) that its shard
// does not name will never be named. Sets documents from before they
// carried their time are stamped now, and so looked at a grace period
// later. A run that fails is done again in full by the next.
func (s *Store) CollectSets(ctx context.Context, cutoff time.Time) (int, error) {
	coll := s.db.Collection(Sets)
	if _, err := coll.UpdateMany(ctx, bson.M{"at": bson.M{"$exists": false}},
		bson.M{"$set": bson.M{"at": time.Now().UTC()}}); err != nil {
		return 0, fmt.Errorf("stamp bucket sets: %w", err)
	}
	var mark struct {
		Until time.Time `bson:"until"`
	}
	err := s.db.Collection(Meta).FindOne(ctx, bson.M{"_id": setsSwept}).Decode(&mark)
	if err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
		return 0, fmt.Errorf("read how far bucket sets were collected: %w", err)
	}
	cutoff = cutoff.UTC()
	if !mark.Until.Before(cutoff) {
		return 0, nil
	}
	removed, after := 0, ""
	for {
		filter := bson.M{"at": bson.M{"$gte": mark.Until, "$lt": cutoff}}
		if after != "" {
			filter["_id"] = bson.M{"$gt": after}
		}
		cur, err := coll.Find(ctx, filter, options.Find().SetProjection(bson.M{"_id": 1}).
			SetSort(bson.M{"_id": 1}).SetLimit(collectBatch))
		if err != nil {
			return removed, fmt.Errorf("list bucket sets: %w", err)
		}
		var ids []struct {
			ID string `bson:"_id"`
		}
		if err := cur.All(ctx, &ids); err != nil {
			return removed, fmt.Errorf("list bucket sets: %w", err)
		}
		for _, d := range ids {
			named, err := s.named(ctx, d.ID)
			if err != nil {
				return removed, err
			}
			if named {
				continue
			}
			res, err := coll.DeleteOne(ctx, bson.M{"_id": d.ID})
			if err != nil {
				return removed, fmt.Errorf("remove bucket sets %s: %w", d.ID, err)
			}
			removed += int(res.DeletedCount)
		}
		if len(ids) < collectBatch {
			break
		}
		after = ids[len(ids)-1].ID
	}
	// $max: a replica sweeping with an earlier cutoff at the same time never
	// moves the mark back.
	_, err = s.db.Collection(Meta).UpdateOne(ctx, bson.M{"_id": setsSwept}, bson.M{"$max": bson.M{"until": cutoff}},
		options.UpdateOne().SetUpsert(true))
	if err != nil {
		return removed, fmt.Errorf("record how far bucket sets were collected: %w", err)
	}
	return removed, nil
}

// named tells whether the shard a sets document was written for
// (SetsRef "<shard id>/<version>/<nonce>") names it now.
func (s *Store) named(ctx context.Context, ref string) (bool, error) {
	i := strings.LastIndexByte(ref, '/')
	j := -1
	if i > 0 {
		j = strings.LastIndexByte(ref[:i], '/')
	}
	if j <= 0 {
		return false, nil // not a sets id of this store
	}
	var d struct {
		SetsRef string `bson:"setsRef"`
	}
	err := s.db.Collection(Buckets).FindOne(ctx, bson.M{"_id": ref[:j]},
		options.FindOne().SetProjection(bson.M{"setsRef": 1})).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read bucket %s: %w", ref[:j], err)
	}
	return d.SetsRef == ref, nil
}

// Unfinished implements rollup.Store.
func (s *Store) Unfinished(ctx context.Context, before time.Time) ([]rollup.Chunk, error) {
	cur, err := s.db.Collection(Chunks).Find(ctx, bson.M{"at": bson.M{"$lt": before.UTC()}})
	if err != nil {
		return nil, fmt.Errorf("list unfinished chunks: %w", err)
	}
	var cs []rollup.Chunk
	if err := cur.All(ctx, &cs); err != nil {
		return nil, fmt.Errorf("list unfinished chunks: %w", err)
	}
	return cs, nil
}

// PruneApplied deletes applied batch ids recorded before t.
func (s *Store) PruneApplied(ctx context.Context, t time.Time) error {
	_, err := s.db.Collection(Applied).DeleteMany(ctx, bson.M{"at": bson.M{"$lt": t.UTC()}})
	if err != nil {
		return fmt.Errorf("prune applied batches: %w", err)
	}
	return nil
}

// doc is a stored bucket shard. The rows are stored compressed (gob, gzip):
// the rows' dimensions and event counts in the shard's document, their
// distinct sets in a document of their own (Sets, _id SetsRef), so that a
// query that counts events reads only the first: the embedded FerretDB
// pushes no projection down and decodes every field of a document it
// returns. A write inserts the sets under a new _id first, then swaps the
// shard's SetsRef to it in the shard's compare-and-set, then deletes the
// sets it replaced: a shard always names complete sets (a crash between
// the steps leaves at most an unreferenced sets document behind). Shards
// written before kept their sets inline (Sets).
type doc struct {
	ID      string      `bson:"_id"`
	Org     string      `bson:"org"`
	Site    string      `bson:"site"`
	Gran    rollup.Gran `bson:"gran"`
	Start   time.Time   `bson:"start"`
	Shard   int         `bson:"shard"`
	Count   int         `bson:"count,omitempty"`
	Version int64       `bson:"version"`
	Chunks  []string    `bson:"chunks"`
	Rows    []byte      `bson:"rows"`
	Sets    []byte      `bson:"sets,omitempty"`
	SetsRef string      `bson:"setsRef,omitempty"`
}

// setsDoc is the distinct sets of one version of a shard, with when it
// was written (CollectSets reads it).
type setsDoc struct {
	ID   string    `bson:"_id"`
	Sets []byte    `bson:"sets"`
	At   time.Time `bson:"at"`
}

type rowCounts struct {
	Key    string
	Dims   visit.Dims
	Slot   int
	Events int64
}

type rowSets struct {
	Visitors, Sessions rollup.Distinct
}

func toDoc(b rollup.Bucket) (doc, error) {
	counts := make([]rowCounts, len(b.Rows))
	sets := make([]rowSets, len(b.Rows))
	for i, r := range b.Rows {
		counts[i] = rowCounts{Key: r.Key, Dims: r.Dims, Slot: r.Slot, Events: r.Events}
		sets[i] = rowSets{Visitors: r.Visitors, Sessions: r.Sessions}
	}
	rows, err := pack(counts)
	if err != nil {
		return doc{}, err
	}
	ss, err := pack(sets)
	if err != nil {
		return doc{}, err
	}
	return doc{ID: b.ID, Org: b.Org, Site: b.Site, Gran: b.Gran, Start: b.Start, Shard: b.Shard, Count: b.Count,
		Version: b.Version, Chunks: b.Chunks, Rows: rows, Sets: ss}, nil
}

func fromDoc(d doc) (rollup.Bucket, error) {
	b := rollup.Bucket{ID: d.ID, Org: d.Org, Site: d.Site, Gran: d.Gran, Start: d.Start.UTC(), Shard: d.Shard,
		Count: d.Count, Version: d.Version, Chunks: d.Chunks}
	var counts []rowCounts
	if err := unpack(d.Rows, &counts); err != nil {
		return b, err
	}
	b.Rows = make([]rollup.Row, len(counts))
	for i, c := range counts {
		b.Rows[i] = rollup.Row{Key: c.Key, Dims: c.Dims, Slot: c.Slot, Events: c.Events}
	}
	if d.Sets != nil {
		if err := unpackSets(d.Sets, b.Rows); err != nil {
			return b, err
		}
	}
	return b, nil
}

// unpackSets sets the distinct sets of rows from their blob.
func unpackSets(blob []byte, rows []rollup.Row) error {
	{
		var sets []rowSets
		if err := unpack(blob, &sets); err != nil {
			return err
		}
		for i := range sets {
			if i < len(rows) {
				rows[i].Visitors, rows[i].Sessions = sets[i].Visitors, sets[i].Sessions
			}
		}
	}
	return nil
}

// gzip writers and readers are reused: a writer holds about 1 MiB of
// compression state, and a shard write packs twice.
var (
	gzipWriters = sync.Pool{New: func() any { zw, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed); return zw }}
	gzipReaders sync.Pool // of *gzip.Reader
)

func pack(v any) ([]byte, error) {
	var buf bytes.Buffer
	zw := gzipWriters.Get().(*gzip.Writer)
	defer gzipWriters.Put(zw)
	zw.Reset(&buf)
	if err := gob.NewEncoder(zw).Encode(v); err != nil {
		return nil, fmt.Errorf("encode bucket: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("encode bucket: %w", err)
	}
	return buf.Bytes(), nil
}

func unpack(b []byte, v any) error {
	zr, _ := gzipReaders.Get().(*gzip.Reader)
	var err error
	if zr == nil {
		zr, err = gzip.NewReader(bytes.NewReader(b))
	} else {
		err = zr.Reset(bytes.NewReader(b))
	}
	if err != nil {
		return fmt.Errorf("decode bucket: %w", err)
	}
	defer gzipReaders.Put(zr)
	if err := gob.NewDecoder(zr).Decode(v); err != nil {
		return fmt.Errorf("decode bucket: %w", err)
	}
	return nil
}

// readers is how many bucket lookups of one read run at once.
const readers = 8

// setsAttempts is how many times a shard is read when its sets keep being
// replaced while it is read.
const setsAttempts = 5

// Buckets implements rollup.Reader: shard 0 of every bucket by _id, then
// the other shards shard 0 counts, by _id.
func (s *Store) Buckets(ctx context.Context, site string, keys []rollup.Key, sets bool) ([]rollup.Bucket, error) {
	ids := make([]string, len(keys))
	for i, k := range keys {
		ids[i] = rollup.BucketID(site, k.Gran, k.Start, 0)
	}
	firsts, err := s.get(ctx, ids, sets)
	if err != nil {
		return nil, err
	}
	ids = ids[:0]
	for _, b := range firsts {
		for n := 1; n < b.Count; n++ {
			ids = append(ids, rollup.BucketID(site, b.Gran, b.Start, n))
		}
	}
	rest, err := s.get(ctx, ids, sets)
	if err != nil {
		return nil, err
	}
	return append(firsts, rest...), nil
}

// get reads the shards of ids that exist, in the order of ids.
func (s *Store) get(ctx context.Context, ids []string, sets bool) ([]rollup.Bucket, error) {
	opts := options.FindOne()
	if !sets {
		opts.SetProjection(bson.M{"sets": 0, "chunks": 0})
	}
	found := make([]*rollup.Bucket, len(ids))
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(readers)
	for i, id := range ids {
		g.Go(func() error {
			// A writer deletes the sets it replaced once the shard names
			// new ones: sets gone means the shard changed, read it again.
			for range setsAttempts {
				var d doc
				err := s.db.Collection(Buckets).FindOne(ctx, bson.M{"_id": id}, opts).Decode(&d)
				if errors.Is(err, mongo.ErrNoDocuments) {
					return nil
				}
				if err != nil {
					return fmt.Errorf("read bucket: %w", err)
				}
				b, err := fromDoc(d)
				if err != nil {
					return err
				}
				if sets && d.SetsRef != "" {
					var sd setsDoc
					err := s.db.Collection(Sets).FindOne(ctx, bson.M{"_id": d.SetsRef}).Decode(&sd)
					if errors.Is(err, mongo.ErrNoDocuments) {
						continue
					}
					if err != nil {
						return fmt.Errorf("read bucket sets: %w", err)
					}
					if err := unpackSets(sd.Sets, b.Rows); err != nil {
						return err
					}
				}
				found[i] = &b
				return nil
			}
			return fmt.Errorf("read bucket %s: its distinct sets changed %d times while it was read", id, setsAttempts)
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	out := make([]rollup.Bucket, 0, len(ids))
	for _, b := range found {
		if b != nil {
			out = append(out, *b)
		}
	}
	return out, nil
}

// PutShard writes b when the stored shard's version is b.Version-1 (see
// PutShards); false when another writer won.
func (s *Store) PutShard(ctx context.Context, b rollup.Bucket) (bool, error) {
	won, err := s.PutShards(ctx, []rollup.Bucket{b})
	return err == nil && won[0], err
}

// writers is how many shards PutShards encodes, or swaps, at once.
const writers = 4

// PutShards implements rollup.Store: the new sets of every shard in one
// insert (one write of the embedded server instead of one a shard), then a
// compare-and-set on each shard's version, then the removal of the sets
// each replaced (or its own, when it lost).
func (s *Store) PutShards(ctx context.Context, bs []rollup.Bucket) ([]bool, error) {
	won := make([]bool, len(bs))
	if len(bs) == 0 {
		return won, nil
	}
	docs := make([]doc, len(bs))
	sets := make([]any, len(bs))
	now := time.Now().UTC()
	var g errgroup.Group
	g.SetLimit(writers)
	for i, b := range bs {
		g.Go(func() error {
			d, err := toDoc(b)
			if err != nil {
				return err
			}
			var nonce [8]byte
			_, _ = rand.Read(nonce[:])
			d.SetsRef = fmt.Sprintf("%s/%d/%s", b.ID, b.Version, hex.EncodeToString(nonce[:]))
			sets[i] = setsDoc{ID: d.SetsRef, Sets: d.Sets, At: now}
			d.Sets = nil
			docs[i] = d
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return won, err
	}
	coll := s.db.Collection(Sets)
	if _, err := coll.InsertMany(ctx, sets); err != nil {
		return won, fmt.Errorf("write bucket sets: %w", err)
	}
	drop := make([]string, len(bs))
	swaps, swapCtx := errgroup.WithContext(ctx)
	swaps.SetLimit(writers)
	for i, b := range bs {
		swaps.Go(func() error {
			old, ok, err := s.swap(swapCtx, b, docs[i])
			won[i], drop[i] = ok, old
			if !ok || err != nil {
				drop[i] = docs[i].SetsRef // lost or failed: the new sets are nobody's
			}
			return err
		})
	}
	err := swaps.Wait()
	// Best effort: an unreferenced sets document is never read (and
	// CollectSets removes what is left).
	var del errgroup.Group
	del.SetLimit(writers)
	for _, ref := range drop {
		if ref != "" {
			del.Go(func() error {
				_, _ = coll.DeleteOne(context.WithoutCancel(ctx), bson.M{"_id": ref})
				return nil
			})
		}
	}
	_ = del.Wait()
	return won, err
}

// swap writes d over version b.Version-1 of its shard (or inserts it when
// b.Version is 1) and returns the SetsRef it replaced; false when the
// stored version is another.
func (s *Store) swap(ctx context.Context, b rollup.Bucket, d doc) (string, bool, error) {
	coll := s.db.Collection(Buckets)
	if b.Version == 1 {
		_, err := coll.InsertOne(ctx, d)
		if mongo.IsDuplicateKeyError(err) {
			return "", false, nil
		}
		if err != nil {
			return "", false, fmt.Errorf("write bucket: %w", err)
		}
		return "", true, nil
	}
	// The version read by _id, then the replace of that version: a
	// compare-and-set on MongoDB and on the embedded server alike (a
	// version names one content, so the SetsRef read is the one replaced),
	// with two index hits and no document sent back (the embedded server
	// has no findAndModify projection).
	var cur struct {
		Version int64  `bson:"version"`
		SetsRef string `bson:"setsRef"`
	}
	err := coll.FindOne(ctx, bson.M{"_id": b.ID}, options.FindOne().SetProjection(bson.M{"version": 1, "setsRef": 1})).Decode(&cur)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("write bucket: %w", err)
	}
	if cur.Version != b.Version-1 {
		return "", false, nil
	}
	res, err := coll.ReplaceOne(ctx, bson.D{{Key: "_id", Value: b.ID}, {Key: "version", Value: b.Version - 1}}, d)
	if err != nil {
		return "", false, fmt.Errorf("write bucket: %w", err)
	}
	return cur.SetsRef, res.MatchedCount == 1, nil
}
