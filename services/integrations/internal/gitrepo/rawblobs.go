package gitrepo

import (
	"bufio"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
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

// pack is the pack a push sends in place of go-git's: the objects
// go-git's would have (the push checks it has as many), each deflated
// at the fastest level, or stored when its first bytes do not compress
// (images), where go-git's encoder deflates every object at the default
// level.
type pack struct {
	store  storer.EncodedObjectStorer
	hashes []plumbing.Hash
	names  map[plumbing.Hash]string // the paths of the files an export wrote, for errors
}

// sniffBytes is how much of an object the pack deflates to tell whether
// it compresses.
const sniffBytes = 32 << 10

func (p *pack) write(w io.Writer) error {
	sum := sha1.New() // the pack's trailer: a checksum, not an object name
	bw := bufio.NewWriterSize(io.MultiWriter(w, sum), 64<<10)
	var hdr [12]byte
	copy(hdr[:], "PACK")
	binary.BigEndian.PutUint32(hdr[4:], 2)
	binary.BigEndian.PutUint32(hdr[8:], uint32(len(p.hashes)))
	if _, err := bw.Write(hdr[:]); err != nil {
		return err
	}
	fast, _ := zlib.NewWriterLevel(nil, zlib.BestSpeed)
	stored, _ := zlib.NewWriterLevel(nil, zlib.NoCompression)
	sniff, _ := zlib.NewWriterLevel(nil, zlib.BestSpeed)
	buf := make([]byte, sniffBytes)
	for _, h := range p.hashes {
		o, err := p.store.EncodedObject(plumbing.AnyObject, h)
		if err != nil {
			return err
		}
		size := o.Size()
		b := []byte{byte(o.Type())<<4 | byte(size&0x0f)}
		for size >>= 4; size > 0; size >>= 7 {
			b[len(b)-1] |= 0x80
			b = append(b, byte(size&0x7f))
		}
		if _, err := bw.Write(b); err != nil {
			return err
		}
		r, err := o.Reader()
		if err != nil {
			return err
		}
		n, err := io.ReadFull(r, buf)
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
			r.Close()
			return err
		}
		zw := fast
		if n == sniffBytes {
			var c countWriter
			sniff.Reset(&c)
			_, _ = sniff.Write(buf[:n])
			_ = sniff.Close()
			if c.n > int64(n)*97/100 {
				zw = stored
			}
		}
		// Every object is hashed as it goes: the pack holds the bytes its
		// names say, or nothing is pushed.
		sum := plumbing.NewHasher(o.Type(), o.Size())
		zw.Reset(bw)
		out := io.MultiWriter(zw, sum)
		_, err = out.Write(buf[:n])
		if err == nil {
			_, err = io.Copy(out, r)
		}
		r.Close()
		if err == nil {
			err = zw.Close()
		}
		if err != nil {
			return err
		}
		if got := sum.Sum(); got != h {
			return p.corrupt(h, got)
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	_, err := w.Write(sum.Sum(nil))
	return err
}

// corrupt is the error of an object whose bytes are not its name's.
func (p *pack) corrupt(want, got plumbing.Hash) error {
	what := "object " + want.String()
	if name, ok := p.names[want]; ok {
		what = name
	}
	return fmt.Errorf("%w: %s was staged as %s, and reads as %s", ErrCorrupt, what, want, got)
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}
