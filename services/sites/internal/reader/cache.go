package reader

import (
	"sync"

	lru "github.com/hashicorp/golang-lru/v2"
)

// cache keeps immutable values (revisions, rendered pages, small files)
// under keys that name what they were made from, least recently used
// first out, bounded in entries and in bytes. A value larger than the
// whole budget is not kept.
type cache struct {
	mu    sync.Mutex // serialises adds with the byte count
	lru   *lru.Cache[string, entry]
	bytes int64
	max   int64
}

type entry struct {
	v    any
	size int64
}

func newCache(entries int, maxBytes int64) *cache {
	c := &cache{max: maxBytes}
	c.lru, _ = lru.NewWithEvict(entries, func(_ string, e entry) { c.bytes -= e.size })
	return c
}

func (c *cache) get(key string) (any, bool) {
	e, ok := c.lru.Get(key)
	return e.v, ok
}

// add keeps v (of about size bytes) under key unless it is there already.
func (c *cache) add(key string, v any, size int64) {
	if size > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if ok, _ := c.lru.ContainsOrAdd(key, entry{v: v, size: size}); ok {
		return
	}
	c.bytes += size
	for c.bytes > c.max {
		if _, _, ok := c.lru.RemoveOldest(); !ok {
			break
		}
	}
}
