// Package rollupmongo stores insights' rollup buckets, chunk records and
// applied batch ids in MongoDB. Every read is by _id (a bucket shard's id is
// site:granularity:time:shard), which both real MongoDB and the embedded
// FerretDB answer from their primary key; lookups of many ids run a few at a
// time in parallel rather than as one $in, which FerretDB would answer by
// scanning the collection.
package rollupmongo

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/insights/internal/rollup"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"golang.org/x/sync/errgroup"
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

// lookups is how many _id reads run at once.
const lookups = 8

// Store is the MongoDB store of rollups.
type Store struct {
	db    *mongo.Database
	locks *mongox.DocLocks
}

// NewStore returns the store on db; locks serialise writers of one document
// in this process (FerretDB applies an update by read-modify-write).
func NewStore(db *mongo.Database, locks *mongox.DocLocks) *Store { return &Store{db: db, locks: locks} }

// Indexes are the store's indexes: applied batch ids are pruned by time.
func Indexes() []mongox.Index { return []mongox.Index{mongox.Keys(Applied, "at")} }

// Known implements rollup.Store.
func (s *Store) Known(ctx context.Context, ids []string) (map[string]bool, error) {
	known := map[string]bool{}
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(lookups)
	for _, id := range ids {
		g.Go(func() error {
			err := s.db.Collection(Applied).FindOne(gctx, bson.M{"_id": id}).Err()
			if errors.Is(err, mongo.ErrNoDocuments) {
				return nil
			}
			if err != nil {
				return fmt.Errorf("look up applied batch: %w", err)
			}
			mu.Lock()
			known[id] = true
			mu.Unlock()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	// Batches of a recorded chunk are being applied (or will be by Recover).
	cur, err := s.db.Collection(Chunks).Find(ctx, bson.M{}, options.Find().SetProjection(bson.M{"batches": 1}))
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

// Shards implements rollup.Store: shard 0, 1, … until one is missing.
func (s *Store) Shards(ctx context.Context, site, gran string, start time.Time) ([]rollup.Bucket, error) {
	var out []rollup.Bucket
	for i := 0; ; i++ {
		var b rollup.Bucket
		err := s.db.Collection(Buckets).FindOne(ctx, bson.M{"_id": rollup.BucketID(site, gran, start, i)}).Decode(&b)
		if errors.Is(err, mongo.ErrNoDocuments) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read bucket: %w", err)
		}
		out = append(out, b)
	}
}

// withoutSets leaves the rows' distinct counts out of a read.
var withoutSets = options.FindOne().SetProjection(bson.M{"rows.v": 0, "rows.s": 0, "chunks": 0})

// Range implements rollup.Reader: shard 0 of each bucket, then the other
// shards it counts, in the order of starts (empty buckets are left out).
func (s *Store) Range(ctx context.Context, site, gran string, starts []time.Time, sets bool) ([]rollup.Bucket, error) {
	opts := options.FindOne()
	if !sets {
		opts = withoutSets
	}
	read := func(ctx context.Context, t time.Time, shard int) (rollup.Bucket, bool, error) {
		var b rollup.Bucket
		err := s.db.Collection(Buckets).FindOne(ctx, bson.M{"_id": rollup.BucketID(site, gran, t, shard)}, opts).Decode(&b)
		if errors.Is(err, mongo.ErrNoDocuments) {
			return b, false, nil
		}
		if err != nil {
			return b, false, fmt.Errorf("read bucket: %w", err)
		}
		return b, true, nil
	}
	parts := make([][]rollup.Bucket, len(starts))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(lookups)
	for i, t := range starts {
		g.Go(func() error {
			b, ok, err := read(gctx, t, 0)
			if err != nil || !ok {
				return err
			}
			parts[i] = append(parts[i], b)
			for shard := 1; shard < b.Count; shard++ {
				o, ok, err := read(gctx, t, shard)
				if err != nil {
					return err
				}
				if ok {
					parts[i] = append(parts[i], o)
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	var out []rollup.Bucket
	for _, p := range parts {
		out = append(out, p...)
	}
	return out, nil
}

// PutShard implements rollup.Store: a compare-and-set on the version.
func (s *Store) PutShard(ctx context.Context, b rollup.Bucket) (bool, error) {
	unlock := s.locks.Lock(Buckets, b.ID)
	defer unlock()
	coll := s.db.Collection(Buckets)
	if b.Version == 1 {
		_, err := coll.InsertOne(ctx, b)
		if mongo.IsDuplicateKeyError(err) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("write bucket: %w", err)
		}
		return true, nil
	}
	res, err := coll.ReplaceOne(ctx, bson.M{"_id": b.ID, "version": b.Version - 1}, b)
	if err != nil {
		return false, fmt.Errorf("write bucket: %w", err)
	}
	return res.MatchedCount == 1, nil
}
