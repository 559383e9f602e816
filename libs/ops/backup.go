package ops

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/docspub/platform/libs/blob"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// A backup is a directory: manifest.json; db/<collection>.bson, the
// collection's documents as concatenated BSON in _id order (the format
// of mongodump, readable by bsondump and mongorestore); and, for a
// service with a blob store, blobs/<key> with blobs.jsonl listing them.
const (
	manifestFile = "manifest.json"
	dbDir        = "db"
	blobsDir     = "blobs"
	blobsIndex   = "blobs.jsonl"
)

// Manifest says what a backup holds, to restore and check it by.
type Manifest struct {
	Service     string       `json:"service"`
	Database    string       `json:"database"`
	CreatedAt   time.Time    `json:"createdAt"`
	Collections []Collection `json:"collections"`
	Blobs       *BlobSet     `json:"blobs,omitempty"`
}

// Collection is one collection's documents in a backup.
type Collection struct {
	Name      string `json:"name"`
	Documents int64  `json:"documents"`
	Bytes     int64  `json:"bytes"`
	// SHA256 is of the documents' BSON in _id order: a restored
	// collection read back the same way has the same sum.
	SHA256 string `json:"sha256"`
}

// BlobSet counts the blob store's objects in a backup.
type BlobSet struct {
	Objects int64 `json:"objects"`
	Bytes   int64 `json:"bytes"`
}

// blobEntry is one line of blobs.jsonl.
type blobEntry struct {
	Key         string `json:"key"`
	Size        int64  `json:"size"`
	ContentType string `json:"contentType,omitempty"`
}

// Backup writes db's collections and the blob store's objects (blobs nil:
// none) into dir, which must not exist yet, and returns the manifest.
// It reads one document and one blob at a time. A backup of a service
// that is writing is not one instant of it: stop the service's writers
// (scale it to zero) first, or back up MongoDB from a snapshot
// (deployments/docs/operations/backup.md).
func Backup(ctx context.Context, service string, db *mongo.Database, blobs *blob.Store, dir string) (Manifest, error) {
	if err := os.Mkdir(dir, 0o700); err != nil {
		return Manifest{}, fmt.Errorf("backup directory: %w", err)
	}
	if err := os.Mkdir(filepath.Join(dir, dbDir), 0o700); err != nil {
		return Manifest{}, err
	}
	names, err := collections(ctx, db)
	if err != nil {
		return Manifest{}, err
	}
	m := Manifest{Service: service, Database: db.Name(), CreatedAt: time.Now().UTC().Truncate(time.Second), Collections: []Collection{}}
	for _, name := range names {
		c, err := dumpCollection(ctx, db.Collection(name), filepath.Join(dir, dbDir, name+".bson"))
		if err != nil {
			return Manifest{}, err
		}
		m.Collections = append(m.Collections, c)
	}
	if blobs != nil {
		set, err := dumpBlobs(ctx, blobs, dir)
		if err != nil {
			return Manifest{}, err
		}
		m.Blobs = &set
	}
	return m, writeJSON(filepath.Join(dir, manifestFile), m)
}

// collections lists db's collections but the system's, sorted.
func collections(ctx context.Context, db *mongo.Database) ([]string, error) {
	names, err := db.ListCollectionNames(ctx, bson.M{})
	if err != nil {
		return nil, fmt.Errorf("list collections of %s: %w", db.Name(), err)
	}
	names = slices.DeleteFunc(names, func(n string) bool { return strings.HasPrefix(n, "system.") })
	slices.Sort(names)
	return names, nil
}

// byID reads a collection whole, in _id order, a batch at a time.
func byID(ctx context.Context, coll *mongo.Collection) (*mongo.Cursor, error) {
	cur, err := coll.Find(ctx, bson.M{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}).SetBatchSize(500))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", coll.Name(), err)
	}
	return cur, nil
}

// dumpCollection writes coll's documents to path and sums them.
func dumpCollection(ctx context.Context, coll *mongo.Collection, path string) (Collection, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return Collection{}, err
	}
	w := bufio.NewWriter(f)
	c, err := sumCollection(ctx, coll, w)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return c, err
}

// sumCollection reads coll in _id order, summing its documents and
// writing them to w (nil: only sums).
func sumCollection(ctx context.Context, coll *mongo.Collection, w io.Writer) (Collection, error) {
	cur, err := byID(ctx, coll)
	if err != nil {
		return Collection{}, err
	}
	defer cur.Close(ctx)
	c := Collection{Name: coll.Name()}
	h := sha256.New()
	out := io.Writer(h)
	if w != nil {
		out = io.MultiWriter(h, w)
	}
	for cur.Next(ctx) {
		if _, err := out.Write(cur.Current); err != nil {
			return Collection{}, err
		}
		c.Documents++
		c.Bytes += int64(len(cur.Current))
	}
	if err := cur.Err(); err != nil {
		return Collection{}, fmt.Errorf("read %s: %w", coll.Name(), err)
	}
	c.SHA256 = hex.EncodeToString(h.Sum(nil))
	return c, nil
}

// dumpBlobs copies every object of the store under dir/blobs.
func dumpBlobs(ctx context.Context, blobs *blob.Store, dir string) (BlobSet, error) {
	idx, err := os.OpenFile(filepath.Join(dir, blobsIndex), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return BlobSet{}, err
	}
	defer idx.Close()
	enc := json.NewEncoder(idx)
	var set BlobSet
	err = blobs.List(ctx, "orgs/", func(o blob.Object) error {
		a, err := blobs.Attributes(ctx, o.Key)
		if err != nil {
			return err
		}
		if err := copyBlobOut(ctx, blobs, o, filepath.Join(dir, blobsDir, filepath.FromSlash(o.Key))); err != nil {
			return err
		}
		set.Objects++
		set.Bytes += o.Size
		return enc.Encode(blobEntry{Key: o.Key, Size: o.Size, ContentType: a.ContentType})
	})
	if err != nil {
		return BlobSet{}, err
	}
	return set, idx.Close()
}

// copyBlobOut writes one object to path, checking its bytes against its
// content address.
func copyBlobOut(ctx context.Context, blobs *blob.Store, o blob.Object, path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	r, err := blobs.NewRangeReader(ctx, o.Key, 0, -1)
	if err != nil {
		return err
	}
	defer r.Close()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	h := sha256.New()
	_, err = io.Copy(io.MultiWriter(f, h), r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("back up blob %s: %w", o.Key, err)
	}
	return checkSum(h, o)
}

func checkSum(h hash.Hash, o blob.Object) error {
	if o.SHA256 != "" && hex.EncodeToString(h.Sum(nil)) != o.SHA256 {
		return fmt.Errorf("%w: blob %s does not match its address", blob.ErrMismatch, o.Key)
	}
	return nil
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o600)
}

// ReadManifest reads the manifest of the backup in dir.
func ReadManifest(dir string) (Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, manifestFile))
	if err != nil {
		return Manifest{}, fmt.Errorf("read backup manifest: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return Manifest{}, fmt.Errorf("read backup manifest: %w", err)
	}
	if m.Service == "" || m.Database == "" {
		return Manifest{}, errors.New("backup manifest names no service or database")
	}
	return m, nil
}
