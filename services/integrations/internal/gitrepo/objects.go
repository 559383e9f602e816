package gitrepo

import (
	"fmt"
	"io"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
)

// maxDeltaChain bounds the deltas an object's bytes go through (Git
// writes chains of at most 50 by default; 4,095 is its hard limit).
const maxDeltaChain = 4095

// EncodedObject reads an object of the clone. An object larger than
// largeObject that its pack stores as a delta is resolved here, whole in
// memory (its base read the same way, the delta applied by go-git's
// PatchDelta) and checked against its name: go-git streams such objects
// through packfile.ReaderFromDelta, which loses its place in the base
// after a copy from behind the previous one and yields other bytes of the
// same size (go-git v5.19.3: an OpenAPI spec came back with spliced
// words). Every other object is go-git's. The objects an export stages
// are files, never deltas; the clone's objects are at most
// Limits.MaxObjectBytes each (the quota), so one is held at a time plus
// its base.
func (s storage) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	return s.object(t, h, 0)
}

func (s storage) object(t plumbing.ObjectType, h plumbing.Hash, depth int) (plumbing.EncodedObject, error) {
	o, err := s.Storage.EncodedObject(t, h)
	if err != nil || o.Size() <= largeObject {
		return o, err
	}
	if _, streamed := o.(*packfile.FSObject); !streamed {
		return o, nil // loose, or read whole already
	}
	if cached, ok := s.resolved.Get(h); ok {
		return cached, nil
	}
	d, err := s.Storage.DeltaObject(plumbing.AnyObject, h) // its type is the delta's
	if err != nil {
		return nil, err
	}
	delta, ok := d.(plumbing.DeltaObject)
	if !ok {
		return o, nil // stored whole: streamed as it is
	}
	if depth >= maxDeltaChain {
		return nil, fmt.Errorf("object %s: a chain of more than %d deltas", h, maxDeltaChain)
	}
	out, err := s.patch(delta, o.Size(), depth)
	if err != nil {
		return nil, fmt.Errorf("object %s: %w", h, err)
	}
	if t != plumbing.AnyObject && out.Type() != t {
		return nil, plumbing.ErrObjectNotFound
	}
	s.resolved.Put(out)
	return out, nil
}

// patch applies delta to its base and checks that the result is the
// object it names, size bytes long (the pack's; go-git's ActualSize is
// the delta's).
func (s storage) patch(delta plumbing.DeltaObject, size int64, depth int) (plumbing.EncodedObject, error) {
	base, err := s.object(plumbing.AnyObject, delta.BaseHash(), depth+1)
	if err != nil {
		return nil, fmt.Errorf("read its delta's base %s: %w", delta.BaseHash(), err)
	}
	src, err := readAll(base)
	if err != nil {
		return nil, err
	}
	ops, err := readAll(delta)
	if err != nil {
		return nil, err
	}
	data, err := packfile.PatchDelta(src, ops)
	if err != nil {
		return nil, fmt.Errorf("apply its delta: %w", err)
	}
	if int64(len(data)) != size {
		return nil, fmt.Errorf("its delta gives %d bytes, want %d", len(data), size)
	}
	if got := plumbing.ComputeHash(base.Type(), data); got != delta.ActualHash() {
		return nil, fmt.Errorf("its delta gives the bytes of %s", got)
	}
	out := &plumbing.MemoryObject{}
	out.SetType(base.Type())
	if _, err := out.Write(data); err != nil {
		return nil, err
	}
	return out, nil
}

// readAll reads an object's bytes whole.
func readAll(o plumbing.EncodedObject) ([]byte, error) {
	r, err := o.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	b := make([]byte, o.Size())
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, fmt.Errorf("read object %s: %w", o.Hash(), err)
	}
	return b, nil
}
