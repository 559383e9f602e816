// Package sizedcache is a least-recently-used cache bounded both in entries
// and in bytes, for immutable values kept under keys that name what they
// were made from (a revision by its id, a page rendered from a revision):
// such a cache is never stale, only full. A value larger than the whole
// byte budget is not kept.
package sizedcache

import (
	"sync"

	lru "github.com/hashicorp/golang-lru/v2"
)

// Cache keeps values of about a known size; it is safe for concurrent use.
type Cache[K comparable, V any] struct {
	mu    sync.Mutex // serialises adds and removals with the byte count
	lru   *lru.Cache[K, entry[V]]
	bytes int64
	max   int64
}

type entry[V any] struct {
	v    V
	size int64
}

// New returns a cache of at most entries values and maxBytes bytes.
func New[K comparable, V any](entries int, maxBytes int64) *Cache[K, V] {
	c := &Cache[K, V]{max: maxBytes}
	c.lru, _ = lru.NewWithEvict(max(entries, 1), func(_ K, e entry[V]) { c.bytes -= e.size })
	return c
}

// Get returns the value under key, if kept, and makes it the most recent.
func (c *Cache[K, V]) Get(key K) (V, bool) {
	e, ok := c.lru.Get(key)
	return e.v, ok
}

// Add keeps v (of about size bytes) under key unless a value is there
// already, then drops the least recently used values over the budget.
func (c *Cache[K, V]) Add(key K, v V, size int64) {
	if size > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if ok, _ := c.lru.ContainsOrAdd(key, entry[V]{v: v, size: size}); ok {
		return
	}
	c.bytes += size
	for c.bytes > c.max {
		if _, _, ok := c.lru.RemoveOldest(); !ok {
			break
		}
	}
}

// RemoveIf drops every value for which drop is true.
func (c *Cache[K, V]) RemoveIf(drop func(K, V) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range c.lru.Keys() {
		if e, ok := c.lru.Peek(k); ok && drop(k, e.v) {
			c.lru.Remove(k)
		}
	}
}

// Bytes is the size of the values kept.
func (c *Cache[K, V]) Bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}

// Len is the number of values kept.
func (c *Cache[K, V]) Len() int { return c.lru.Len() }
