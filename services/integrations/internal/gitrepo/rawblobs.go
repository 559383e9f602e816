package gitrepo

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
)

// rawBlobs is an export's storage: the blobs the export stages are kept
// as plain files (one per blob, named by its hash, in dir), where go-git
// would deflate each into a loose object, then inflate and deflate it
// again into the pack it pushes. Every other object, and the blobs the
// clone has, stay in the clone's storage.
type rawBlobs struct {
	storage
	dir   string
	mu    sync.Mutex
	sizes map[plumbing.Hash]int64
}

func newRawBlobs(st storage, dir string) (*rawBlobs, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	return &rawBlobs{storage: st, dir: dir, sizes: map[plumbing.Hash]int64{}}, nil
}

func (s *rawBlobs) size(h plumbing.Hash) (int64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.sizes[h]
	return n, ok
}

// SetEncodedObject keeps a blob the storage does not have as a file; it
// hands the other objects to the storage.
func (s *rawBlobs) SetEncodedObject(o plumbing.EncodedObject) (h plumbing.Hash, err error) {
	if o.Type() != plumbing.BlobObject {
		return s.storage.SetEncodedObject(o)
	}
	h = o.Hash()
	if _, ok := s.size(h); ok {
		return h, nil
	}
	if err := s.storage.HasEncodedObject(h); err == nil {
		return h, nil
	} else if !errors.Is(err, plumbing.ErrObjectNotFound) {
		return h, err
	}
	r, err := o.Reader()
	if err != nil {
		return h, err
	}
	defer r.Close()
	f, err := os.CreateTemp(s.dir, "tmp-")
	if err != nil {
		return h, err
	}
	defer os.Remove(f.Name())
	n, err := io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && n != o.Size() {
		err = fmt.Errorf("blob %s: %d bytes, want %d", h, n, o.Size())
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(s.dir, h.String()))
	}
	if err != nil {
		return h, err
	}
	s.mu.Lock()
	s.sizes[h] = n
	s.mu.Unlock()
	return h, nil
}

func (s *rawBlobs) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	if n, ok := s.size(h); ok {
		if t != plumbing.AnyObject && t != plumbing.BlobObject {
			return nil, plumbing.ErrObjectNotFound
		}
		return &rawBlob{path: filepath.Join(s.dir, h.String()), hash: h, size: n}, nil
	}
	return s.storage.EncodedObject(t, h)
}

// DeltaObject is EncodedObject: a raw blob is never a delta (the pack's
// encoder asks for objects this way when the storage can).
func (s *rawBlobs) DeltaObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	if _, ok := s.size(h); ok {
		return s.EncodedObject(t, h)
	}
	return s.storage.DeltaObject(t, h)
}

func (s *rawBlobs) HasEncodedObject(h plumbing.Hash) error {
	if _, ok := s.size(h); ok {
		return nil
	}
	return s.storage.HasEncodedObject(h)
}

func (s *rawBlobs) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	if n, ok := s.size(h); ok {
		return n, nil
	}
	return s.storage.EncodedObjectSize(h)
}

// rawBlob is a blob kept as a plain file: read from it, never written.
type rawBlob struct {
	path string
	hash plumbing.Hash
	size int64
}

func (b *rawBlob) Hash() plumbing.Hash            { return b.hash }
func (b *rawBlob) Type() plumbing.ObjectType      { return plumbing.BlobObject }
func (b *rawBlob) SetType(plumbing.ObjectType)    {}
func (b *rawBlob) Size() int64                    { return b.size }
func (b *rawBlob) SetSize(int64)                  {}
func (b *rawBlob) Reader() (io.ReadCloser, error) { return os.Open(b.path) }
func (b *rawBlob) Writer() (io.WriteCloser, error) {
	return nil, errors.New("a staged blob is read only")
}
