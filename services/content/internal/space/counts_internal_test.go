package space

import "testing"

// TestCountersChangedDropsItsSpacesOnly: a comment or change request
// written in one space leaves every other space's cached counters in use;
// a write that names no space drops them all.
func TestCountersChangedDropsItsSpacesOnly(t *testing.T) {
	c := NewCounters()
	c.lru.Add("a", generationCounts{gen: c.gens.Of("a"), n: Counts{Comments: 1}}, 0)
	c.lru.Add("b", generationCounts{gen: c.gens.Of("b"), n: Counts{Comments: 2}}, 0)
	current := func(id string) bool {
		e, ok := c.lru.Get(id)
		return ok && e.gen == c.gens.Of(id)
	}
	c.Changed("b")
	if !current("a") {
		t.Error("a write in b dropped a's counters")
	}
	if current("b") {
		t.Error("a write in b left b's counters")
	}
	c.Changed("")
	if current("a") {
		t.Error("a write of no space left a's counters")
	}
}
