package gitrepo

import (
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// limitError is a clone stopped by one of its limits; its message says which.
type limitError struct{ msg string }

func (e *limitError) Error() string        { return e.msg }
func (e *limitError) Is(target error) bool { return target == ErrTooLarge }

func tooLarge(format string, args ...any) error {
	return &limitError{msg: ErrTooLarge.Error() + ": " + fmt.Sprintf(format, args...)}
}

// size says n bytes in the largest binary unit that keeps it ≥ 1.
func size(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}

// quota counts the objects of the packs a clone receives, and their
// inflated bytes, as the pack streams in: the object count from the pack's
// header, each object's inflated size from its own header (a delta's from
// the header of its inflated data, the size of the object it makes) before
// it is inflated. The first limit passed stops the clone.
type quota struct {
	lim      Limits
	mu       sync.Mutex
	objects  int64
	inflated int64
	err      error
}

func (q *quota) fail(err error) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.err == nil {
		q.err = err
	}
	return q.err
}

// Err is the limit the clone passed, if any.
func (q *quota) Err() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.err
}

func (q *quota) addObjects(n int64) error {
	q.mu.Lock()
	q.objects += n
	total := q.objects
	q.mu.Unlock()
	if total > int64(q.lim.MaxObjects) {
		return q.fail(tooLarge("it has %d objects (files, directories and commits), more than the %d a clone may have", total, q.lim.MaxObjects))
	}
	return nil
}

func (q *quota) addObject(n int64) error {
	if n > q.lim.MaxObjectBytes {
		return q.fail(tooLarge("one of its files is %s, more than the %s a file may have", size(n), size(q.lim.MaxObjectBytes)))
	}
	q.mu.Lock()
	q.inflated += n
	total := q.inflated
	q.mu.Unlock()
	if total > q.lim.MaxInflatedBytes {
		return q.fail(tooLarge("its files are more than %s uncompressed", size(q.lim.MaxInflatedBytes)))
	}
	return nil
}

// storage is the on-disk storage of a clone, whose pack writer counts
// against the quota.
type storage struct {
	*filesystem.Storage
	q *quota
	// resolved keeps the objects EncodedObject resolved from deltas.
	resolved cache.Object
}

// PackfileWriter returns the storage's pack writer behind the quota.
func (s storage) PackfileWriter() (io.WriteCloser, error) {
	w, err := s.Storage.PackfileWriter()
	if err != nil {
		return nil, err
	}
	pr, pw := io.Pipe()
	qw := &quotaWriter{inner: w, pw: pw, done: make(chan error, 1)}
	go func() {
		err := s.q.scan(pr)
		if err != nil {
			pr.CloseWithError(err)
		} else {
			_, _ = io.Copy(io.Discard, pr) // the pack's trailer
		}
		qw.done <- err
	}()
	return qw, nil
}

// quotaWriter hands each chunk of a pack to the quota's scanner before the
// storage's writer: a chunk the scanner refuses never reaches the disk.
type quotaWriter struct {
	inner io.WriteCloser
	pw    *io.PipeWriter
	done  chan error
}

func (w *quotaWriter) Write(p []byte) (int, error) {
	if _, err := w.pw.Write(p); err != nil {
		return 0, err
	}
	return w.inner.Write(p)
}

func (w *quotaWriter) Close() error {
	_ = w.pw.Close()
	err := <-w.done
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.Is(err, packfile.ErrEmptyPackfile) {
		err = nil // a pack cut short: the storage's writer says so
	}
	return errors.Join(err, w.inner.Close())
}

// scan reads a pack's object headers as the pack streams in, inflating
// each object into a small buffer only to find where it ends (and, for a
// delta, the size of the object it makes).
func (q *quota) scan(r io.Reader) error {
	sc := packfile.NewScanner(r)
	_, count, err := sc.Header()
	if err != nil {
		return err
	}
	if err := q.addObjects(int64(count)); err != nil {
		return err
	}
	var head deltaHead
	for range count {
		h, err := sc.NextObjectHeader()
		if err != nil {
			return err
		}
		switch h.Type {
		case plumbing.OFSDeltaObject, plumbing.REFDeltaObject:
			if h.Length > q.lim.MaxObjectBytes {
				// A delta's data is mostly the bytes it inserts into the
				// object it makes: that object is too large as well.
				return q.addObject(h.Length)
			}
			head = deltaHead{}
			if _, _, err := sc.NextObject(&head); err != nil {
				return err
			}
			target, ok := head.target()
			if !ok {
				return fmt.Errorf("%w: a delta without its sizes", packfile.ErrMalformedPackFile)
			}
			if err := q.addObject(target); err != nil {
				return err
			}
		default:
			if err := q.addObject(h.Length); err != nil {
				return err
			}
			if _, _, err := sc.NextObject(io.Discard); err != nil {
				return err
			}
		}
	}
	return nil
}

// deltaHead keeps the first bytes of an inflated delta: the sizes of its
// base and of its target, two little-endian base-128 numbers.
type deltaHead struct {
	b [20]byte
	n int
}

func (d *deltaHead) Write(p []byte) (int, error) {
	d.n += copy(d.b[d.n:], p)
	return len(p), nil
}

func (d *deltaHead) target() (int64, bool) {
	b := d.b[:d.n]
	skip := func() bool { // the base's size
		for i, c := range b {
			if c&0x80 == 0 {
				b = b[i+1:]
				return true
			}
		}
		return false
	}
	if !skip() {
		return 0, false
	}
	var v int64
	for i, c := range b {
		if i >= 9 {
			return 0, false
		}
		v |= int64(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			return v, true
		}
	}
	return 0, false
}
