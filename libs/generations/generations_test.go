package generations

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
)

// Keys of the tests, each in a bucket of its own (checked by
// TestTestKeysApart).
const (
	a = "org:a"
	b = "org:b"
	c = "org:c"
)

func TestTestKeysApart(t *testing.T) {
	if bucket(a) == bucket(b) || bucket(a) == bucket(c) || bucket(b) == bucket(c) {
		t.Fatalf("test keys share buckets: %d %d %d", bucket(a), bucket(b), bucket(c))
	}
}

// TestBumpDropsItsKeyOnly: a bump moves its key's generation and no other
// key's; BumpAll moves every key's.
func TestBumpDropsItsKeyOnly(t *testing.T) {
	var g Counters
	ga, gb := g.Of(a), g.Of(b)
	g.Bump(b)
	if g.Of(a) != ga {
		t.Error("a bump of b moved a's generation")
	}
	if g.Of(b) == gb {
		t.Error("a bump of b left its generation")
	}
	ga, gb = g.Of(a), g.Of(b)
	g.BumpAll()
	if g.Of(a) == ga || g.Of(b) == gb {
		t.Error("BumpAll left a generation")
	}
	// A key bumped after BumpAll moves again, the others stay.
	ga, gb = g.Of(a), g.Of(b)
	g.Bump(a)
	if g.Of(a) == ga || g.Of(b) != gb {
		t.Errorf("a bump of a after BumpAll: a moved %v, b moved %v", g.Of(a) != ga, g.Of(b) != gb)
	}
}

// TestReadBeganBeforeBump: what was read under the generation before a
// bump is no longer current after it; what is read after it is, until
// the next.
func TestReadBeganBeforeBump(t *testing.T) {
	var g Counters
	before := g.Of(a) // a read begins
	g.Bump(a)         // a write ends meanwhile
	if g.Of(a) == before {
		t.Fatal("a read begun before a bump is still current after it")
	}
	after := g.Of(a)
	g.Bump(b)
	if g.Of(a) != after {
		t.Fatal("a read begun after a bump is not current")
	}
}

// TestStamp: an entry of several keys whose read began at a mark is not
// kept when one of them was bumped since, and stops being current when
// one is bumped later or all are; other keys' bumps leave it.
func TestStamp(t *testing.T) {
	var g Counters
	mark := g.Now()
	g.Bump(a)
	if _, ok := g.Stamp(mark, b, a); ok {
		t.Fatal("stamped an entry one of whose keys was bumped after its read began")
	}
	s, ok := g.Stamp(mark, b, c)
	if !ok || !g.Current(s) {
		t.Fatalf("an entry of keys not bumped: stamped %v, current %v", ok, g.Current(s))
	}
	g.Bump(a)
	if !g.Current(s) {
		t.Error("another key's bump dropped the entry")
	}
	g.Bump(c)
	if g.Current(s) {
		t.Error("a bump of one of its keys left the entry")
	}

	mark = g.Now()
	s, _ = g.Stamp(mark, b)
	none, _ := g.Stamp(mark)
	g.BumpAll()
	if g.Current(s) || g.Current(none) {
		t.Error("BumpAll left an entry")
	}
	if _, ok := g.Stamp(mark); ok {
		t.Error("stamped an entry whose read began before BumpAll")
	}
}

// TestNeverStale: with writes and bumps running, an entry read after Of
// that is still current once a write's bump returned holds that write
// (or a later one).
func TestNeverStale(t *testing.T) {
	var g Counters
	var data, done atomic.Int64
	const writes = 20_000
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { // the writer of a
		defer wg.Done()
		for i := int64(1); i <= writes; i++ {
			data.Store(i)
			g.Bump(a)
			done.Store(i)
		}
	}()
	go func() { // others' writes
		defer wg.Done()
		for i := range writes {
			if i%1000 == 0 {
				g.BumpAll()
			}
			g.Bump(fmt.Sprint("org:", i))
		}
	}()
	for done.Load() < writes {
		gen := g.Of(a)
		v := data.Load()
		for range 10 {
			d := done.Load()
			if g.Of(a) == gen && v < d {
				t.Fatalf("read %d is current after write %d", v, d)
			}
		}
	}
	wg.Wait()
}
