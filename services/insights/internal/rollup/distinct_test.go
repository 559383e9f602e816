package rollup

import (
	"math"
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
