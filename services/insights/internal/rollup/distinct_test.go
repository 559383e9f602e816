package rollup

import (
	"math"
	"strconv"
	"testing"

	"github.com/cespare/xxhash/v2"
)

// Adding ids one by one past the exact bound gives the sketch's estimate,
// the same as merging them (except between DenseFrom/2 and 2^Precision ids,
// where added ids make a dense sketch and merged ones a sparse one, both
// within the error bound), and a sealed count merges like a stored one.
func TestDistinctAddPastTheBound(t *testing.T) {
	for _, n := range []int{10, ExactBound, ExactBound + 1, DenseFrom - 1, DenseFrom + 100, 20000} {
		var added Distinct
		var merged Distinct
		for i := range n {
			h := xxhash.Sum64String(string(rune(i)) + "-id")
			added.Add(h)
			added.Add(h) // twice: counted once
			merged.Merge(Distinct{IDs: []int64{int64(h)}})
		}
		added.Seal()
		var a, m Counter
		a.Merge(&added)
		m.Merge(&merged)
		bothSparseOrDense := n <= ExactBound+1 || n > 1<<Precision
		if bothSparseOrDense && a.Count() != m.Count() {
			t.Errorf("%d ids: added counts %d, merged %d", n, a.Count(), m.Count())
		}
		if n <= ExactBound && (a.Count() != uint64(n) || added.Sketch != nil) {
			t.Errorf("%d ids: count %d, sketch %v; want exact", n, a.Count(), added.Sketch != nil)
		}
		if err := math.Abs(float64(a.Count())-float64(n)) / float64(n); err > 0.03 {
			t.Errorf("%d ids: count %d, error %.3f", n, a.Count(), err)
		}
	}
}

// Ids added many times over (a chunk where the same visitors made many
// rows' events) stay in a sparse sketch: a few bytes an id, not the
// dense sketch's 16 KiB.
func TestDistinctRepeatsStaySparse(t *testing.T) {
	var d Distinct
	for range 50 {
		for i := range 100 {
			d.Add(xxhash.Sum64String(string(rune(i)) + "-id"))
		}
	}
	d.Seal()
	var c Counter
	c.Merge(&d)
	if c.Count() != 100 || len(d.Sketch) > 2000 {
		t.Errorf("100 ids added 50 times: count %d in a sketch of %d bytes; want 100 in at most 2000", c.Count(), len(d.Sketch))
	}
}

// A stored count merging chunks' counts turns dense once it counts
// DenseFrom/2 ids (merging into dense registers costs no re-encoding of a
// list), and counts as before; under that it stays a sparse list.
func TestDistinctMergeTurnsDense(t *testing.T) {
	for _, tc := range []struct {
		ids   int
		dense bool
	}{{DenseFrom/2 - 300, false}, {DenseFrom/2 + 300, true}, {3 * DenseFrom, true}} {
		var stored Distinct
		for start := 0; start < tc.ids; start += 300 {
			var chunk Distinct
			for i := start; i < min(start+300, tc.ids); i++ {
				chunk.Add(xxhash.Sum64String(strconv.Itoa(i) + "-id"))
			}
			chunk.Seal()
			stored.Merge(chunk)
		}
		if dense := len(stored.Sketch) == denseBytes; dense != tc.dense {
			t.Errorf("%d ids: a sketch of %d bytes; want dense %v", tc.ids, len(stored.Sketch), tc.dense)
		}
		var c Counter
		c.Merge(&stored)
		if err := math.Abs(float64(c.Count())-float64(tc.ids)) / float64(tc.ids); err > 0.03 {
			t.Errorf("%d ids: count %d, error %.3f", tc.ids, c.Count(), err)
		}
	}
}

// Many adds keep a bounded list: past compactAt hashes the repeats are
// sorted out, and a list of DenseFrom/2 distinct hashes or more moves into
// the dense sketch that later adds go to, which counts as Seal's did.
func TestDistinctAddStaysBounded(t *testing.T) {
	var repeats, distinct Distinct
	for i := range 200_000 {
		repeats.Add(xxhash.Sum64String(strconv.Itoa(i%100) + "-id"))
		distinct.Add(xxhash.Sum64String(strconv.Itoa(i) + "-id"))
		if len(repeats.more) > compactAt || len(distinct.more) > compactAt {
			t.Fatalf("after %d adds: lists of %d and %d hashes; want at most %d", i+1, len(repeats.more), len(distinct.more), compactAt)
		}
	}
	if distinct.dense == nil || repeats.dense != nil {
		t.Fatalf("dense sketches: distinct %v, repeats %v; want only distinct's", distinct.dense != nil, repeats.dense != nil)
	}
	repeats.Seal()
	distinct.Seal()
	var r, d Counter
	r.Merge(&repeats)
	d.Merge(&distinct)
	if r.Count() != 100 || len(repeats.Sketch) > 2000 {
		t.Errorf("100 ids added 2000 times: count %d in a sketch of %d bytes; want 100 in at most 2000", r.Count(), len(repeats.Sketch))
	}
	if err := math.Abs(float64(d.Count())-200_000) / 200_000; err > 0.03 {
		t.Errorf("200,000 ids: count %d, error %.3f", d.Count(), err)
	}
	if distinct.dense != nil || distinct.more != nil {
		t.Error("sealed, the count still holds unsealed hashes")
	}
}

// BenchmarkDistinctAdd adds a chunk's worth of distinct visitors' hashes
// to one row (100,000 of them, as a second of a flood brings) and seals it.
func BenchmarkDistinctAdd(b *testing.B) {
	hs := make([]uint64, 100_000)
	for i := range hs {
		hs[i] = xxhash.Sum64String(strconv.Itoa(i) + "-id")
	}
	b.ReportAllocs()
	for range b.N {
		var d Distinct
		for _, h := range hs {
			d.Add(h)
		}
		d.Seal()
	}
}
