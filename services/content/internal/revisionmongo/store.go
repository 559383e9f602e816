// Package revisionmongo stores revisions in MongoDB and file bytes in
// GridFS.
//
// Collection "revisions": one insert-only document per revision, _id the
// revision id, with space, organization, type, parents, mergedFrom, pages
// (the tree), files, reusableContents and createdAt. The space store writes
// a space's first revision there as a minimal document (no pages, files or
// reusable contents), which reads as an empty revision. GridFS bucket
// "files" (files.files, files.chunks) holds file bytes; a file's blob id is
// the hex of its GridFS ObjectID, and the GridFS metadata keeps its
// contentType.
package revisionmongo

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/docstore"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/content/internal/revision"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// The collection and the GridFS bucket.
const (
	Revisions = "revisions"
	Bucket    = "files"
)

// Indexes are the indexes the store relies on (GridFS makes its own on
// first upload).
func Indexes() []mongox.Index {
	return []mongox.Index{mongox.Keys(Revisions, "space")}
}

// Store implements revision.Store.
type Store struct {
	db     *mongo.Database
	bucket *mongo.GridFSBucket
}

var _ revision.Store = (*Store)(nil)

// NewStore returns a store on db.
func NewStore(db *mongo.Database) *Store {
	return &Store{db: db, bucket: db.GridFSBucket(options.GridFSBucket().SetName(Bucket))}
}

// Insert stores a new revision; an existing id is a conflict.
func (s *Store) Insert(ctx context.Context, r revision.Revision) error {
	if r.Parents == nil {
		r.Parents = []string{}
	}
	if r.Pages == nil {
		r.Pages = []revision.Page{}
	}
	if r.Files == nil {
		r.Files = []revision.File{}
	}
	if r.ReusableContents == nil {
		r.ReusableContents = []revision.ReusableContent{}
	}
	_, err := s.db.Collection(Revisions).InsertOne(ctx, r)
	return mongox.Err(err, "revision")
}

// Get reads a revision; a missing one is "revision not found".
func (s *Store) Get(ctx context.Context, id string) (revision.Revision, error) {
	var r revision.Revision
	err := s.db.Collection(Revisions).FindOne(ctx, docstore.Live(bson.M{"_id": id})).Decode(&r)
	if err != nil {
		return revision.Revision{}, mongox.Err(err, "revision")
	}
	if r.Parents == nil {
		r.Parents = []string{}
	}
	return r, nil
}

// DeleteSpace removes every revision of a purged space. File bytes stay
// in GridFS: a blob may be shared with the copies of a duplicated space.
func (s *Store) DeleteSpace(ctx context.Context, spaceID string) error {
	_, err := s.db.Collection(Revisions).DeleteMany(ctx, bson.M{"space": spaceID})
	return mongox.Err(err, "revisions")
}

// PutBlob streams r into GridFS and returns the blob id and its size.
func (s *Store) PutBlob(ctx context.Context, name, contentType string, r io.Reader) (string, int64, error) {
	cr := &counter{r: r}
	opts := options.GridFSUpload().SetMetadata(bson.D{{Key: "contentType", Value: contentType}})
	id, err := s.bucket.UploadFromStream(ctx, name, cr, opts)
	if err != nil {
		return "", 0, fmt.Errorf("store blob %q: %w", name, err)
	}
	return id.Hex(), cr.n, nil
}

// OpenBlob streams a blob's bytes; a missing one is "file not found".
func (s *Store) OpenBlob(ctx context.Context, id string) (io.ReadCloser, error) {
	oid, err := bson.ObjectIDFromHex(id)
	if err != nil {
		return nil, apierr.NotFound("file not found")
	}
	ds, err := s.bucket.OpenDownloadStream(ctx, oid)
	if errors.Is(err, mongo.ErrFileNotFound) {
		return nil, apierr.NotFound("file not found")
	}
	if err != nil {
		return nil, fmt.Errorf("open blob %s: %w", id, err)
	}
	return ds, nil
}

// counter counts the bytes read through it.
type counter struct {
	r io.Reader
	n int64
}

func (c *counter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
