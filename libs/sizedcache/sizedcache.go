// Package sizedcache is a least-recently-used cache bounded both in entries
// and in bytes, for immutable values kept under keys that name what they
// were made from (a revision by its id, a page rendered from a revision):
// such a cache is never stale, only full. A value larger than the whole
// byte budget is not kept.
package sizedcache

import (
	"context"
	"sync"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"

	lru "github.com/hashicorp/golang-lru/v2"
)

// Cache keeps values of about a known size; it is safe for concurrent use.
type Cache[K comparable, V any] struct {
	mu    sync.Mutex // serialises adds and removals with the byte count
	lru   *lru.Cache[K, entry[V]]
	bytes int64
	max   int64
	// hit and miss count lookups once Observe named the cache (each one
	// option, as a slice passed on as it is: no slice made per lookup).
	hit, miss []metric.AddOption
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
	switch {
	case c.hit == nil:
	case ok:
		lookups().Add(context.Background(), 1, c.hit...)
	default:
		lookups().Add(context.Background(), 1, c.miss...)
	}
	return e.v, ok
}

// Peek returns the value under key, if kept, without making it the most
// recent or counting a lookup.
func (c *Cache[K, V]) Peek(key K) (V, bool) {
	e, ok := c.lru.Peek(key)
	return e.v, ok
}

// Observe names the cache in the metric sizedcache.lookups (by result,
// hit or miss, so that the hit rate is hits over lookups) and returns it.
// Call it before the cache is shared.
func (c *Cache[K, V]) Observe(name string) *Cache[K, V] {
	cache := attribute.String("cache.name", name)
	c.hit = []metric.AddOption{metric.WithAttributes(cache, attribute.String("cache.result", "hit"))}
	c.miss = []metric.AddOption{metric.WithAttributes(cache, attribute.String("cache.result", "miss"))}
	return c
}

// lookups counts lookups on the global meter provider (a no-op until one is set).
var lookups = sync.OnceValue(func() metric.Int64Counter {
	c, err := otel.Meter("github.com/docspub/platform/libs/sizedcache").Int64Counter("sizedcache.lookups",
		metric.WithUnit("{lookup}"), metric.WithDescription("Lookups of a named cache, by result (hit or miss)."))
	if err != nil {
		return noop.Int64Counter{}
	}
	return c
})

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

// Set keeps v (of about size bytes) under key, replacing what is there
// (for values that expire: an entry past its time is still there until
// replaced), then drops the least recently used values over the budget.
func (c *Cache[K, V]) Set(key K, v V, size int64) {
	if size > c.max {
		c.Remove(key)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lru.Remove(key)
	c.lru.Add(key, entry[V]{v: v, size: size})
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

// Remove drops the value under key, if kept.
func (c *Cache[K, V]) Remove(key K) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lru.Remove(key)
}
