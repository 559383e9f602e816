package ops

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/docspub/platform/libs/blob"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// Bounds of one insert of a restore, below MongoDB's 48 MB message.
const (
	restoreBatchDocs  = 1000
	restoreBatchBytes = 8 << 20
	// maxDocument is MongoDB's limit: a larger length is a damaged file.
	maxDocument = 16 << 20
)

// Restore writes the backup in dir into db and the blob store (blobs nil:
// none), then checks them against the backup (Check) and returns the
// problems found. The backup must be service's. A collection that holds
// documents is refused unless replace, which drops it first.
func Restore(ctx context.Context, service string, db *mongo.Database, blobs *blob.Store, dir string, replace bool) ([]string, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	if m.Service != service {
		return nil, fmt.Errorf("the backup in %s is of %s, not %s", dir, m.Service, service)
	}
	if m.Blobs != nil && blobs == nil {
		return nil, errors.New("the backup holds blobs: set BLOB_URL")
	}
	for _, c := range m.Collections {
		if err := emptyOrDropped(ctx, db.Collection(c.Name), replace); err != nil {
			return nil, err
		}
	}
	for _, c := range m.Collections {
		if err := loadCollection(ctx, db.Collection(c.Name), filepath.Join(dir, dbDir, c.Name+".bson")); err != nil {
			return nil, err
		}
	}
	if m.Blobs != nil {
		if err := loadBlobs(ctx, blobs, dir); err != nil {
			return nil, err
		}
	}
	return Check(ctx, service, db, blobs, dir)
}

func emptyOrDropped(ctx context.Context, coll *mongo.Collection, replace bool) error {
	n, err := coll.EstimatedDocumentCount(ctx)
	if err != nil {
		return fmt.Errorf("count %s: %w", coll.Name(), err)
	}
	if n == 0 {
		return nil
	}
	if !replace {
		return fmt.Errorf("collection %s holds %d documents: restore into an empty database, or pass --replace", coll.Name(), n)
	}
	if err := coll.Drop(ctx); err != nil {
		return fmt.Errorf("drop %s: %w", coll.Name(), err)
	}
	return nil
}

// loadCollection inserts the documents of a .bson file in batches.
func loadCollection(ctx context.Context, coll *mongo.Collection, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	var batch []any
	size := 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if _, err := coll.InsertMany(ctx, batch); err != nil {
			return fmt.Errorf("restore %s: %w", coll.Name(), err)
		}
		batch, size = batch[:0], 0
		return nil
	}
	for {
		doc, err := readDocument(r)
		if errors.Is(err, io.EOF) {
			return flush()
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
		if len(batch) == restoreBatchDocs || size+len(doc) > restoreBatchBytes {
			if err := flush(); err != nil {
				return err
			}
		}
		batch, size = append(batch, doc), size+len(doc)
	}
}

// readDocument reads one BSON document; io.EOF at a clean end.
func readDocument(r *bufio.Reader) (bson.Raw, error) {
	head, err := r.Peek(4)
	if errors.Is(err, io.EOF) && len(head) == 0 {
		return nil, io.EOF
	}
	if err != nil {
		return nil, fmt.Errorf("truncated document: %w", err)
	}
	n := int(binary.LittleEndian.Uint32(head))
	if n < 5 || n > maxDocument {
		return nil, fmt.Errorf("a document of %d bytes", n)
	}
	doc := make([]byte, n)
	if _, err := io.ReadFull(r, doc); err != nil {
		return nil, fmt.Errorf("truncated document: %w", err)
	}
	raw := bson.Raw(doc)
	return raw, raw.Validate()
}

// loadBlobs writes every blob of the backup into the store: under its
// content address, which Put computes again from the bytes.
func loadBlobs(ctx context.Context, blobs *blob.Store, dir string) error {
	return eachBlob(dir, func(e blobEntry) error {
		org, ok := orgOf(e.Key)
		if !ok {
			return fmt.Errorf("blob key %q is not a content address", e.Key)
		}
		f, err := os.Open(filepath.Join(dir, blobsDir, filepath.FromSlash(e.Key)))
		if err != nil {
			return err
		}
		defer f.Close()
		o, err := blobs.Put(ctx, org, e.ContentType, f, e.Size, nil)
		if err != nil {
			return fmt.Errorf("restore blob %s: %w", e.Key, err)
		}
		if o.Key != e.Key {
			return fmt.Errorf("%w: blob %s restored as %s", blob.ErrMismatch, e.Key, o.Key)
		}
		return nil
	})
}

// orgOf is the organization of a content address orgs/<org>/sha256/<sum>.
func orgOf(key string) (string, bool) {
	rest, ok := strings.CutPrefix(key, "orgs/")
	if !ok {
		return "", false
	}
	org, sum, ok := strings.Cut(rest, "/sha256/")
	return org, ok && org != "" && blob.Key(org, sum) == key && blob.Sum(key) != ""
}

// eachBlob calls fn with each line of the backup's blobs.jsonl.
func eachBlob(dir string, fn func(blobEntry) error) error {
	f, err := os.Open(filepath.Join(dir, blobsIndex))
	if err != nil {
		return err
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	for {
		var e blobEntry
		if err := dec.Decode(&e); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return fmt.Errorf("read %s: %w", blobsIndex, err)
		}
		if err := fn(e); err != nil {
			return err
		}
	}
}

// Check compares db and the blob store with the backup in dir, and
// returns what differs: a collection whose documents are not the
// backup's (count or sum), one the backup does not have, a blob missing
// or of another size.
func Check(ctx context.Context, service string, db *mongo.Database, blobs *blob.Store, dir string) ([]string, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	if m.Service != service {
		return nil, fmt.Errorf("the backup in %s is of %s, not %s", dir, m.Service, service)
	}
	problems := []string{}
	want := map[string]bool{}
	for _, c := range m.Collections {
		want[c.Name] = true
		got, err := sumCollection(ctx, db.Collection(c.Name), nil)
		if err != nil {
			return nil, err
		}
		if got != c {
			problems = append(problems, fmt.Sprintf("collection %s: %d documents (sum %.12s), the backup has %d (sum %.12s)",
				c.Name, got.Documents, got.SHA256, c.Documents, c.SHA256))
		}
	}
	names, err := collections(ctx, db)
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		if !want[n] {
			problems = append(problems, fmt.Sprintf("collection %s is not in the backup", n))
		}
	}
	if m.Blobs == nil {
		return problems, nil
	}
	if blobs == nil {
		return nil, errors.New("the backup holds blobs: set BLOB_URL")
	}
	err = eachBlob(dir, func(e blobEntry) error {
		a, err := blobs.Attributes(ctx, e.Key)
		switch {
		case errors.Is(err, blob.ErrNotFound):
			problems = append(problems, "blob "+e.Key+" is missing")
		case err != nil:
			return err
		case a.Size != e.Size:
			problems = append(problems, fmt.Sprintf("blob %s has %d bytes, the backup %d", e.Key, a.Size, e.Size))
		}
		return nil
	})
	return problems, err
}
