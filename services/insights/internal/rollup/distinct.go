package rollup

import (
	"slices"

	"github.com/axiomhq/hyperloglog"
)

// ExactBound is how many distinct ids a stored row keeps exactly; beyond
// it the row keeps a HyperLogLog sketch.
const ExactBound = 64

// GroupExactBound is how many distinct ids an answered group counts
// exactly; beyond it the group merges into a sketch.
const GroupExactBound = 4096

// Precision of the sketches: 2^14 registers, a standard error of
// 1.04/sqrt(16384) ≈ 0.81%.
const Precision = 14

// Distinct is a mergeable distinct count: the sorted hashes of the ids (as
// int64: BSON has no unsigned integers) while
// there are at most ExactBound of them, a HyperLogLog sketch after.
type Distinct struct {
	IDs    []int64 `bson:"ids,omitempty"`
	Sketch []byte  `bson:"hll,omitempty"`
	// more is the hashes Add took past ExactBound (repeats included); Seal
	// puts them into Sketch at once.
	more []uint64
	// dense is the sketch Add inserts into once more held DenseFrom/2
	// distinct hashes (compact): a chunk of many distinct visitors keeps
	// 16 KiB of registers per row, not a list of every hash grown by
	// copying; Seal merges the stored sketch into it.
	dense *hyperloglog.Sketch
}

// compactAt is how many hashes more holds before Add sorts out its repeats
// (compact): its size stays bounded whatever a chunk brings.
const compactAt = 2 * DenseFrom

// DenseFrom is how many ids (Add's, repeats included) a count Seal builds
// must have for it to start as a dense sketch (2^Precision registers, 16 KiB) rather
// than a sparse one: inserting into a sparse sketch merges its list again
// every 164 ids (quadratic: a chunk of distinct visitors spent most of its
// time there), and past a quarter of the registers the sparse list is
// about as big as the dense registers anyway.
const DenseFrom = 1 << (Precision - 2)

func newSketch() *hyperloglog.Sketch {
	sk, _ := hyperloglog.NewSketch(Precision, true)
	return sk
}

func newDenseSketch() *hyperloglog.Sketch {
	sk, _ := hyperloglog.NewSketch(Precision, false)
	return sk
}

func (d *Distinct) size() int { return 8*len(d.IDs) + len(d.Sketch) + 16 }

// Add counts one id hash. Past ExactBound it keeps the hash for Seal
// (decoding and encoding the stored sketch at every id would cost far
// more): Seal must be called before the count is stored or merged.
func (d *Distinct) Add(h uint64) {
	if d.dense != nil {
		d.dense.InsertHash(h)
		return
	}
	if d.more == nil && d.Sketch == nil {
		x := int64(h)
		i, found := slices.BinarySearch(d.IDs, x)
		if found {
			return
		}
		if len(d.IDs) < ExactBound {
			d.IDs = slices.Insert(d.IDs, i, x)
			return
		}
		d.more = make([]uint64, len(d.IDs), 4*ExactBound)
		for i, id := range d.IDs {
			d.more[i] = uint64(id)
		}
		d.IDs = nil
	}
	d.more = append(d.more, h)
	if len(d.more) >= compactAt {
		d.compact()
	}
}

// compact sorts out the repeats of more and, when DenseFrom/2 or more
// distinct hashes are left, moves them into a dense sketch that Add then
// inserts into (the sketch Seal would have built of them).
func (d *Distinct) compact() {
	d.more = sortedSet(d.more)
	if len(d.more) < DenseFrom/2 {
		return
	}
	d.dense = newDenseSketch()
	for _, h := range d.more {
		d.dense.InsertHash(h)
	}
	d.more = nil
}

// Seal puts the hashes Add kept into the sketch: a dense one when Add
// moved them there already (compact), or when they are DenseFrom or more
// (repeats cost nothing there, so they are not sorted out: sorting was
// most of a chunk's cost) unless that sketch counts under half of
// DenseFrom (many repeats); else a sparse one.
func (d *Distinct) Seal() {
	hs, sk := d.more, d.dense
	if hs == nil && sk == nil {
		return
	}
	d.more, d.dense = nil, nil
	if streamed := sk != nil; streamed || len(hs) >= DenseFrom {
		if !streamed {
			sk = newDenseSketch()
		}
		if d.Sketch != nil {
			if old := decode(d.Sketch); old != nil {
				_ = sk.Merge(old)
			}
		}
		for _, h := range hs {
			sk.InsertHash(h)
		}
		if streamed || sk.Estimate() >= DenseFrom/2 {
			d.IDs = nil
			d.Sketch, _ = sk.MarshalBinary()
			return
		}
	}
	sk = d.sketch()
	for _, h := range sortedSet(hs) {
		sk.InsertHash(h)
	}
	d.IDs = nil
	d.Sketch, _ = sk.MarshalBinary()
}

// Merge adds the ids of o.
func (d *Distinct) Merge(o Distinct) {
	if d.IDs == nil && d.Sketch == nil && d.more == nil && d.dense == nil { // empty: a copy
		d.IDs, d.Sketch = slices.Clone(o.IDs), slices.Clone(o.Sketch)
		return
	}
	if d.Sketch == nil && o.Sketch == nil {
		for _, h := range o.IDs {
			if i, found := slices.BinarySearch(d.IDs, h); !found {
				d.IDs = slices.Insert(d.IDs, i, h)
			}
		}
		if len(d.IDs) <= ExactBound {
			return
		}
	}
	sk := d.sketch()
	if o.Sketch != nil {
		if other := decode(o.Sketch); other != nil {
			_ = sk.Merge(other)
		}
	}
	for _, h := range o.IDs {
		sk.InsertHash(uint64(h))
	}
	d.IDs = nil
	d.Sketch = merged(sk)
}

// merged is the binary form of a sketch Merge made. A sparse one that
// counts DenseFrom/2 ids or more is made dense first, as Seal does: a
// stored row merges a chunk's ids at every chunk, and merging into a sparse
// list decodes, sorts and encodes all of it again (most of a flood's
// applying), while dense registers are merged in place.
func merged(sk *hyperloglog.Sketch) []byte {
	b, _ := sk.MarshalBinary()
	if len(b) < denseBytes && sk.Estimate() >= DenseFrom/2 {
		dense := newDenseSketch()
		_ = dense.Merge(sk)
		b, _ = dense.MarshalBinary()
	}
	return b
}

// denseBytes is the size of a dense sketch's binary form.
var denseBytes = func() int {
	b, _ := newDenseSketch().MarshalBinary()
	return len(b)
}()

// sketch returns d as a sketch (a new one holding its ids when it has none).
func (d *Distinct) sketch() *hyperloglog.Sketch {
	if d.Sketch != nil {
		if sk := decode(d.Sketch); sk != nil {
			return sk
		}
	}
	sk := newSketch()
	for _, h := range d.IDs {
		sk.InsertHash(uint64(h))
	}
	return sk
}

func decode(b []byte) *hyperloglog.Sketch {
	sk := newSketch()
	if err := sk.UnmarshalBinary(b); err != nil {
		return nil
	}
	return sk
}

// Counter counts the distinct ids of an answered group: exactly while every
// part it merged was exact and the union is at most GroupExactBound, with
// a sketch after.
type Counter struct {
	set map[int64]struct{}
	sk  *hyperloglog.Sketch
}

// Merge adds a stored distinct count.
func (c *Counter) Merge(d *Distinct) {
	if c.sk == nil && d.Sketch == nil {
		if c.set == nil {
			c.set = make(map[int64]struct{}, len(d.IDs))
		}
		for _, h := range d.IDs {
			c.set[h] = struct{}{}
		}
		if len(c.set) <= GroupExactBound {
			return
		}
	}
	if c.sk == nil {
		c.sk = newSketch()
		for h := range c.set {
			c.sk.InsertHash(uint64(h))
		}
		c.set = nil
	}
	if d.Sketch != nil {
		if other := decode(d.Sketch); other != nil {
			_ = c.sk.Merge(other)
		}
	}
	for _, h := range d.IDs {
		c.sk.InsertHash(uint64(h))
	}
}

// Count returns the number of distinct ids.
func (c *Counter) Count() uint64 {
	if c.sk != nil {
		return c.sk.Estimate()
	}
	return uint64(len(c.set))
}
