package search

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// first keeps what a full sort would keep, in the same order.
func TestFirstIsTheSortedPrefix(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int{0, 1, 9, 10, 11, 200} {
		items := make([]int, size)
		for i := range items {
			items[i] = rng.IntN(50) // ties too
		}
		want := slices.Sorted(slices.Values(items))
		want = want[:min(10, len(want))]
		if got := first(slices.Clone(items), 10, cmp.Compare[int]); !slices.Equal(got, want) {
			t.Errorf("first 10 of %d: %v, want %v", size, got, want)
		}
	}
}
