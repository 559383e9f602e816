// Package rollupmongo stores insights' rollup buckets, chunk records and
// applied batch ids in MongoDB. Buckets are read by site, granularity and
// time range in one query (index site, gran, start): a chunk reads every
// bucket it touches at once, a query reads its range at once. The embedded
// FerretDB answers every filter, even on _id, by scanning the collection, so
// the store keeps its documents small (rows compressed) and its queries few.
package rollupmongo

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"time"

	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/insights/internal/rollup"
	"github.com/docspub/platform/services/insights/internal/visit"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Collections of the store.
const (
	Buckets = "buckets"
	Chunks  = "chunks"
	Applied = "applied_batches"
)

// AppliedTTL is how long an applied batch id is kept: far longer than any
// redelivery of the log.
const AppliedTTL = 7 * 24 * time.Hour

// Store is the MongoDB store of rollups.
type Store struct {
	db    *mongo.Database
	locks *mongox.DocLocks
}

// NewStore returns the store on db; locks serialise writers of one document
// in this process (FerretDB applies an update by read-modify-write).
func NewStore(db *mongo.Database, locks *mongox.DocLocks) *Store { return &Store{db: db, locks: locks} }

// Indexes are the store's indexes: buckets are read by site, granularity
// and time; applied batch ids are pruned by time.
func Indexes() []mongox.Index {
	return []mongox.Index{mongox.Keys(Buckets, "site", "gran", "start"), mongox.Keys(Applied, "at")}
}

// Known implements rollup.Store.
func (s *Store) Known(ctx context.Context, ids []string) (map[string]bool, error) {
	known := map[string]bool{}
	cur, err := s.db.Collection(Applied).Find(ctx, bson.M{"_id": bson.M{"$in": ids}}, options.Find().SetProjection(bson.M{"_id": 1}))
	if err != nil {
		return nil, fmt.Errorf("look up applied batches: %w", err)
	}
	var applied []struct {
		ID string `bson:"_id"`
	}
	if err := cur.All(ctx, &applied); err != nil {
		return nil, fmt.Errorf("look up applied batches: %w", err)
	}
	for _, a := range applied {
		known[a.ID] = true
	}
	// Batches of a recorded chunk are being applied (or will be by Recover).
	cur, err = s.db.Collection(Chunks).Find(ctx, bson.M{}, options.Find().SetProjection(bson.M{"batches": 1}))
	if err != nil {
		return nil, fmt.Errorf("list chunks: %w", err)
	}
	var cs []rollup.Chunk
	if err := cur.All(ctx, &cs); err != nil {
		return nil, fmt.Errorf("list chunks: %w", err)
	}
	for _, c := range cs {
		for _, id := range c.Batches {
			known[id] = true
		}
	}
	return known, nil
}

// SaveChunk implements rollup.Store.
func (s *Store) SaveChunk(ctx context.Context, c rollup.Chunk) error {
	if _, err := s.db.Collection(Chunks).InsertOne(ctx, c); err != nil {
		return fmt.Errorf("save chunk: %w", err)
	}
	return nil
}

// MarkApplied implements rollup.Store.
func (s *Store) MarkApplied(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	now := time.Now().UTC()
	docs := make([]any, len(ids))
	for i, id := range ids {
		docs[i] = bson.M{"_id": id, "at": now}
	}
	_, err := s.db.Collection(Applied).InsertMany(ctx, docs, options.InsertMany().SetOrdered(false))
	var bw mongo.BulkWriteException
	if errors.As(err, &bw) {
		for _, we := range bw.WriteErrors {
			if !mongo.IsDuplicateKeyError(we) {
				return fmt.Errorf("mark batches applied: %w", err)
			}
		}
		return nil
	}
	if err != nil && !mongo.IsDuplicateKeyError(err) {
		return fmt.Errorf("mark batches applied: %w", err)
	}
	return nil
}

// DropChunk implements rollup.Store.
func (s *Store) DropChunk(ctx context.Context, id string) error {
	if _, err := s.db.Collection(Chunks).DeleteOne(ctx, bson.M{"_id": id}); err != nil {
		return fmt.Errorf("drop chunk: %w", err)
	}
	return nil
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
// two blobs, the rows' dimensions and event counts, and their distinct
// sets, so that a query that counts events reads only the first. Small
// documents also keep the embedded FerretDB fast: its SQLite backend
// parses whole documents when it filters.
type doc struct {
	ID      string    `bson:"_id"`
	Org     string    `bson:"org"`
	Site    string    `bson:"site"`
	Gran    string    `bson:"gran"`
	Start   time.Time `bson:"start"`
	Shard   int       `bson:"shard"`
	Count   int       `bson:"count,omitempty"`
	Version int64     `bson:"version"`
	Chunks  []string  `bson:"chunks"`
	Rows    []byte    `bson:"rows"`
	Sets    []byte    `bson:"sets"`
}

type rowCounts struct {
	Key    string
	Dims   visit.Dims
	Events int64
}

type rowSets struct {
	Visitors, Sessions rollup.Distinct
}

func toDoc(b rollup.Bucket) (doc, error) {
	counts := make([]rowCounts, len(b.Rows))
	sets := make([]rowSets, len(b.Rows))
	for i, r := range b.Rows {
		counts[i] = rowCounts{Key: r.Key, Dims: r.Dims, Events: r.Events}
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
		b.Rows[i] = rollup.Row{Key: c.Key, Dims: c.Dims, Events: c.Events}
	}
	if d.Sets != nil {
		var sets []rowSets
		if err := unpack(d.Sets, &sets); err != nil {
			return b, err
		}
		for i := range sets {
			if i < len(b.Rows) {
				b.Rows[i].Visitors, b.Rows[i].Sessions = sets[i].Visitors, sets[i].Sessions
			}
		}
	}
	return b, nil
}

func pack(v any) ([]byte, error) {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	if err := gob.NewEncoder(zw).Encode(v); err != nil {
		return nil, fmt.Errorf("encode bucket: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("encode bucket: %w", err)
	}
	return buf.Bytes(), nil
}

func unpack(b []byte, v any) error {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("decode bucket: %w", err)
	}
	if err := gob.NewDecoder(zr).Decode(v); err != nil {
		return fmt.Errorf("decode bucket: %w", err)
	}
	return nil
}

// find reads the shards matching filter.
func (s *Store) find(ctx context.Context, filter bson.M, sets bool) ([]rollup.Bucket, error) {
	opts := options.Find()
	if !sets {
		opts.SetProjection(bson.M{"sets": 0, "chunks": 0})
	}
	cur, err := s.db.Collection(Buckets).Find(ctx, filter, opts)
	if err != nil {
		return nil, fmt.Errorf("read buckets: %w", err)
	}
	defer cur.Close(ctx)
	var out []rollup.Bucket
	for cur.Next(ctx) {
		var d doc
		if err := cur.Decode(&d); err != nil {
			return nil, fmt.Errorf("read buckets: %w", err)
		}
		b, err := fromDoc(d)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	if err := cur.Err(); err != nil {
		return nil, fmt.Errorf("read buckets: %w", err)
	}
	return out, nil
}

// Shards implements rollup.Store.
func (s *Store) Shards(ctx context.Context, site string, grans []string, from, to time.Time) ([]rollup.Bucket, error) {
	return s.find(ctx, bson.M{"site": site, "gran": bson.M{"$in": grans},
		"start": bson.M{"$gte": from.UTC(), "$lte": to.UTC()}}, true)
}

// Range implements rollup.Reader.
func (s *Store) Range(ctx context.Context, site, gran string, from, to time.Time, sets bool) ([]rollup.Bucket, error) {
	return s.find(ctx, bson.M{"site": site, "gran": gran, "start": bson.M{"$gte": from.UTC(), "$lt": to.UTC()}}, sets)
}

// PutShard implements rollup.Store: a compare-and-set on the version.
func (s *Store) PutShard(ctx context.Context, b rollup.Bucket) (bool, error) {
	d, err := toDoc(b)
	if err != nil {
		return false, err
	}
	unlock := s.locks.Lock(Buckets, b.ID)
	defer unlock()
	coll := s.db.Collection(Buckets)
	if b.Version == 1 {
		_, err := coll.InsertOne(ctx, d)
		if mongo.IsDuplicateKeyError(err) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("write bucket: %w", err)
		}
		return true, nil
	}
	res, err := coll.ReplaceOne(ctx, bson.M{"_id": b.ID, "version": b.Version - 1}, d)
	if err != nil {
		return false, fmt.Errorf("write bucket: %w", err)
	}
	return res.MatchedCount == 1, nil
}
