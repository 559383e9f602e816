package rollup

import (
	"math"
	"testing"

	"github.com/cespare/xxhash/v2"
)

// Adding ids one by one past the exact bound gives the sketch's estimate,
// the same as merging them, and a sealed count merges like a stored one.
func TestDistinctAddPastTheBound(t *testing.T) {
	for _, n := range []int{10, ExactBound, ExactBound + 1, 20000} {
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
		if a.Count() != m.Count() {
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
