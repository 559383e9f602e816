package slicepool_test

import (
	"testing"

	"github.com/docspub/platform/libs/slicepool"
)

// A slice given back is lent again empty and cleared, with its capacity;
// one over the bound is not kept.
func TestSlicesComeBackEmptyAndCleared(t *testing.T) {
	p := slicepool.New[string](8)
	s := append(p.Get(), "a", "b", "c")
	p.Put(s)
	got := p.Get()
	if len(got) != 0 {
		t.Fatalf("lent with %d elements", len(got))
	}
	if cap(got) != cap(s) {
		t.Skipf("the pool dropped the slice (capacity %d)", cap(got)) // sync.Pool may, under -race
	}
	for i, v := range got[:cap(got)] {
		if v != "" {
			t.Errorf("element %d kept %q", i, v)
		}
	}
	p.Put(make([]string, 9))
	if big := p.Get(); cap(big) > 8 {
		t.Errorf("kept a slice of capacity %d over the bound 8", cap(big))
	}
}
