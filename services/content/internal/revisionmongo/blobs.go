package revisionmongo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/blob"
	"github.com/docspub/platform/services/content/internal/limits"
	"github.com/docspub/platform/services/content/internal/revision"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"golang.org/x/sync/errgroup"
)

// A blob's document and the collector agree through two fields: usedAt
// (when a write or a new revision last needed the blob) and deletingAt
// (set, by compare-and-set on an old usedAt, while the collector removes
// the blob). A write claims the blob's document (marks it used, or
// inserts it) before writing the bytes, and never claims one being
// deleted: it waits for the collector to finish, then inserts the
// document anew and writes the bytes again. A claim older than staleClaim
// is a collector that stopped half way: a write takes it over.
const staleClaim = 10 * time.Minute

// claimTries bounds how often a write waits for a removal in progress
// (claimWait apart) before answering 503.
const (
	claimTries = 50
	claimWait  = 20 * time.Millisecond
)

// blobDoc is a stored blob.
type blobDoc struct {
	ID           string     `bson:"_id"` // the blob store's key
	Organization string     `bson:"organization"`
	Size         int64      `bson:"size"`
	CreatedAt    time.Time  `bson:"createdAt"`
	UsedAt       time.Time  `bson:"usedAt"`
	DeletingAt   *time.Time `bson:"deletingAt,omitempty"`
}

// PutBlob streams r into the blob store under its content address for
// owner's organization and returns the blob id (the key) and its size.
// Bytes the organization already stores are stored once.
func (s *Store) PutBlob(ctx context.Context, owner revision.Owner, _, contentType string, r io.Reader) (string, int64, error) {
	o, err := s.blobs.Put(ctx, owner.Organization, contentType, r, limits.FileBytes, func(o blob.Object) error {
		return s.claimBlob(ctx, owner.Organization, o)
	})
	if errors.Is(err, blob.ErrTooLarge) {
		return "", 0, apierr.TooLarge("a file may have at most %d bytes", limits.FileBytes)
	}
	if err != nil {
		return "", 0, err
	}
	return o.Key, o.Size, nil
}

// putWorkers bounds the blobs PutBlobs writes at once.
const putWorkers = 4

// PutBlobs stores several files' bytes for owner and returns their blob
// ids, in order. Stopped half way, it leaves blobs no revision refers to,
// which the collector removes.
func (s *Store) PutBlobs(ctx context.Context, owner revision.Owner, blobs []revision.Blob) ([]string, error) {
	ids := make([]string, len(blobs))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(putWorkers)
	for i, b := range blobs {
		g.Go(func() error {
			o, err := s.blobs.PutBytes(gctx, owner.Organization, b.ContentType, b.Data, func(o blob.Object) error {
				return s.claimBlob(gctx, owner.Organization, o)
			})
			if err != nil {
				return fmt.Errorf("store %s: %w", b.Name, err)
			}
			ids[i] = o.Key
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return ids, nil
}

// OpenBlob opens a blob's bytes for reading and seeking (size is its size,
// or -1: read from the store); a missing one is "file not found".
func (s *Store) OpenBlob(ctx context.Context, id string, size int64) (io.ReadSeekCloser, error) {
	if blob.Sum(id) == "" {
		return nil, apierr.NotFound("file not found")
	}
	rc, err := s.blobs.Open(ctx, id, size)
	if errors.Is(err, blob.ErrNotFound) {
		return nil, apierr.NotFound("file not found")
	}
	if err != nil {
		return nil, fmt.Errorf("open blob %s: %w", id, err)
	}
	return rc, nil
}

// BlobURL is a short-lived URL reading a blob without credentials (S3
// backends); blob.ErrUnsupported for the others.
func (s *Store) BlobURL(ctx context.Context, id string, ttl time.Duration, contentType, disposition string) (string, error) {
	return s.blobs.SignedURL(ctx, id, ttl, contentType, disposition)
}

// claimBlob records a blob about to be written for org (see staleClaim):
// marks its document used now, or inserts it and counts its bytes, after
// checking org's quota.
func (s *Store) claimBlob(ctx context.Context, org string, o blob.Object) error {
	coll := s.db.Collection(Blobs)
	for try := 0; try < claimTries; try++ {
		now := s.clock()
		var d blobDoc
		// By _id alone: an index lookup on any server.
		err := coll.FindOne(ctx, bson.M{"_id": o.Key}).Decode(&d)
		switch {
		case errors.Is(err, mongo.ErrNoDocuments):
			if err := s.checkQuota(ctx, org, o.Size); err != nil {
				return err
			}
			_, err := coll.InsertOne(ctx, blobDoc{ID: o.Key, Organization: org, Size: o.Size, CreatedAt: now, UsedAt: now})
			if mongo.IsDuplicateKeyError(err) {
				continue // written meanwhile: read it again
			}
			if err != nil {
				return fmt.Errorf("record blob: %w", err)
			}
			return s.addUsage(ctx, org, o.Size, 0)
		case err != nil:
			return fmt.Errorf("read blob record: %w", err)
		case d.DeletingAt == nil:
			if d.UsedAt.After(now.Add(-time.Minute)) {
				return nil // marked within the last minute: nothing to rewrite
			}
			res, err := coll.UpdateOne(ctx, bson.M{"_id": o.Key, "deletingAt": bson.M{"$exists": false}},
				bson.M{"$set": bson.M{"usedAt": now}})
			if err != nil {
				return fmt.Errorf("mark blob used: %w", err)
			}
			if res.MatchedCount == 1 {
				return nil
			}
		case d.DeletingAt.Before(now.Add(-staleClaim)):
			// A collector stopped half way: take its claim over.
			res, err := coll.UpdateOne(ctx, bson.M{"_id": o.Key, "deletingAt": *d.DeletingAt},
				bson.M{"$set": bson.M{"usedAt": now}, "$unset": bson.M{"deletingAt": ""}})
			if err != nil {
				return fmt.Errorf("mark blob used: %w", err)
			}
			if res.MatchedCount == 1 {
				return nil
			}
		default:
			// Being removed: wait for the collector to finish.
			t := time.NewTimer(claimWait)
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-t.C:
			}
		}
	}
	return apierr.Unavailable(time.Second, "the file is being removed; retry shortly")
}

// useBlobs marks the files' blobs used now (or within the last minute), for
// the collector's grace, and makes sure none is being removed or gone: the
// collector claims only blobs unused since its cutoff, so once marked,
// a blob stays until the revision refers to it. Ids that are no blob
// store key (none of this store's) are left alone.
func (s *Store) useBlobs(ctx context.Context, files []revision.File) error {
	var keys []string
	for _, f := range files {
		if blob.Sum(f.Blob) != "" && !slices.Contains(keys, f.Blob) {
			keys = append(keys, f.Blob)
		}
	}
	now := s.clock()
	coll := s.db.Collection(Blobs)
	for part := range slices.Chunk(keys, batch) {
		if _, err := coll.UpdateMany(ctx, bson.M{"_id": bson.M{"$in": part}, "deletingAt": bson.M{"$exists": false},
			"usedAt": bson.M{"$lt": now.Add(-time.Minute)}}, bson.M{"$set": bson.M{"usedAt": now}}); err != nil {
			return fmt.Errorf("mark files used: %w", err)
		}
		cur, err := coll.Find(ctx, bson.M{"_id": bson.M{"$in": part}}, options.Find().SetProjection(bson.M{"_id": 1, "deletingAt": 1}))
		if err != nil {
			return fmt.Errorf("read files: %w", err)
		}
		var docs []blobDoc
		if err := cur.All(ctx, &docs); err != nil {
			return fmt.Errorf("read files: %w", err)
		}
		live := 0
		for _, d := range docs {
			if d.DeletingAt == nil {
				live++
			}
		}
		if live != len(part) {
			return apierr.Conflict("a file of the revision was removed as unused; upload it again")
		}
	}
	return nil
}
