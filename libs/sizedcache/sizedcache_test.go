package sizedcache_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/docspub/platform/libs/sizedcache"
)

func TestBoundedInBytesAndEntries(t *testing.T) {
	c := sizedcache.New[string, int](3, 100)
	c.Add("a", 1, 40)
	c.Add("b", 2, 40)
	if _, ok := c.Get("a"); !ok { // a is now more recent than b
		t.Fatal("a is not kept")
	}
	c.Add("c", 3, 40) // 120 bytes: b, the least recent, goes
	if _, ok := c.Get("b"); ok {
		t.Error("b kept over the byte budget")
	}
	if c.Bytes() != 80 || c.Len() != 2 {
		t.Errorf("%d bytes in %d values, want 80 in 2", c.Bytes(), c.Len())
	}
	c.Add("big", 4, 101)
	if _, ok := c.Get("big"); ok {
		t.Error("a value larger than the budget is kept")
	}
	c.Add("d", 5, 1)
	c.Add("e", 6, 1) // four values: the least recent goes
	if c.Len() != 3 || c.Bytes() != 42 {
		t.Errorf("%d values of %d bytes, want 3 of 42", c.Len(), c.Bytes())
	}
	c.Add("e", 7, 1)
	if v, _ := c.Get("e"); v != 6 {
		t.Errorf("Add replaced a kept value: %d", v)
	}
}

func TestRemoveIf(t *testing.T) {
	c := sizedcache.New[string, int](10, 1000)
	for i := range 6 {
		c.Add(fmt.Sprint(i), i, 10)
	}
	c.RemoveIf(func(_ string, v int) bool { return v%2 == 0 })
	if c.Len() != 3 || c.Bytes() != 30 {
		t.Errorf("%d values of %d bytes after removing the even ones, want 3 of 30", c.Len(), c.Bytes())
	}
	if _, ok := c.Get("2"); ok {
		t.Error("2 is still kept")
	}
}

func TestConcurrentUseKeepsTheCount(t *testing.T) {
	c := sizedcache.New[int, int](50, 500)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 1000 {
				c.Add(g*1000+i, i, 7)
				c.Get(i)
			}
		}()
	}
	wg.Wait()
	if c.Bytes() != int64(c.Len())*7 || c.Bytes() > 500 {
		t.Errorf("%d bytes for %d values of 7", c.Bytes(), c.Len())
	}
}

// TestSetReplaces: Set replaces a kept value and counts its new size
// alone; a value over the budget is not kept and removes the old one.
func TestSetReplaces(t *testing.T) {
	c := sizedcache.New[string, int](3, 100)
	c.Add("a", 1, 40)
	c.Set("a", 2, 30)
	if v, _ := c.Get("a"); v != 2 || c.Bytes() != 30 || c.Len() != 1 {
		t.Errorf("after Set: %d, %d bytes in %d values", v, c.Bytes(), c.Len())
	}
	c.Set("b", 3, 80) // 110 bytes: a goes
	if _, ok := c.Get("a"); ok || c.Bytes() != 80 {
		t.Errorf("over the budget: a kept, %d bytes", c.Bytes())
	}
	c.Set("b", 4, 101)
	if _, ok := c.Get("b"); ok || c.Bytes() != 0 {
		t.Errorf("a value over the budget: b kept, %d bytes", c.Bytes())
	}
}

// With Expire, a value is served for its ttl after it was added, then is a
// miss and gives way to a new one; bounded in entries alone, sizes are 0.
func TestExpire(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := sizedcache.New[string, int](2, 0).Expire(time.Second, func() time.Time { return now })
	c.Add("a", 1, 0)
	now = now.Add(999 * time.Millisecond)
	if v, ok := c.Get("a"); !ok || v != 1 {
		t.Fatalf("within its ttl: %d, %v", v, ok)
	}
	c.Add("a", 2, 0)
	if v, _ := c.Peek("a"); v != 1 {
		t.Errorf("Add replaced a live value: %d", v)
	}
	now = now.Add(time.Millisecond)
	if _, ok := c.Peek("a"); ok {
		t.Error("Peek serves an expired value")
	}
	if _, ok := c.Get("a"); ok {
		t.Error("Get serves an expired value")
	}
	if c.Len() != 0 {
		t.Errorf("an expired value looked up is still kept: %d values", c.Len())
	}
	c.Add("a", 3, 0)
	now = now.Add(2 * time.Second)
	c.Add("a", 4, 0)
	if v, ok := c.Get("a"); !ok || v != 4 {
		t.Errorf("Add over an expired value: %d, %v; want 4", v, ok)
	}
	c.Set("b", 5, 0)
	c.Set("c", 6, 0) // three values: a, the least recent, goes
	if _, ok := c.Peek("a"); ok || c.Len() != 2 {
		t.Errorf("bounded in entries alone: a kept %v, %d values", ok, c.Len())
	}
}
