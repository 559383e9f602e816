// Package sizedcache is the platform's one cache type: least recently used,
// bounded in entries and in bytes, its lookups counted by name (Observe),
// its values optionally expiring (Expire). Without expiry it is for
// immutable values kept under keys that name what they were made from (a
// revision by its id, a page rendered from a revision): such a cache is
// never stale, only full. A value larger than the whole byte budget is not
// kept; a cache bounded in entries alone is made with maxBytes 0 and given
// values of size 0.
package sizedcache

import (
	"context"
	"sync"
	"time"

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
	// ttl, when set (Expire), is how long a value is served after it
	// was added, by the clock now.
	ttl time.Duration
	now func() time.Time
}

type entry[V any] struct {
	v     V
	size  int64
	until time.Time // with a ttl: when the value expires
}

// New returns a cache of at most entries values and maxBytes bytes.
func New[K comparable, V any](entries int, maxBytes int64) *Cache[K, V] {
	c := &Cache[K, V]{max: maxBytes}
	c.lru, _ = lru.NewWithEvict(max(entries, 1), func(_ K, e entry[V]) { c.bytes -= e.size })
	return c
}

// Get returns the value under key, if kept (and not expired), and makes
// it the most recent.
func (c *Cache[K, V]) Get(key K) (V, bool) {
	e, ok := c.lru.Get(key)
	if ok && c.expired(e) {
		c.removeExpired(key)
		e, ok = entry[V]{}, false
	}
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
	if ok && c.expired(e) {
		return e.v, false
	}
	return e.v, ok
}

// Expire makes values expire ttl after they were added (by the clock now;
// nil is time.Now) and returns the cache: an expired value is a miss, and
// goes at its next lookup or when the least recent values go. Call it
// before the cache is shared.
func (c *Cache[K, V]) Expire(ttl time.Duration, now func() time.Time) *Cache[K, V] {
	c.ttl, c.now = ttl, now
	if c.now == nil {
		c.now = time.Now
	}
	return c
}

func (c *Cache[K, V]) expired(e entry[V]) bool { return c.ttl > 0 && !c.now().Before(e.until) }

// removeExpired drops key's value if it is still an expired one (another
// goroutine may have set a fresh one meanwhile).
func (c *Cache[K, V]) removeExpired(key K) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.lru.Peek(key); ok && c.expired(e) {
		c.lru.Remove(key)
	}
}

// entry is v of size as kept now.
func (c *Cache[K, V]) entry(v V, size int64) entry[V] {
	e := entry[V]{v: v, size: size}
	if c.ttl > 0 {
		e.until = c.now().Add(c.ttl)
	}
	return e
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

// Add keeps v (of about size bytes) under key unless a value (not
// expired) is there already, then drops the least recently used values over the budget.
func (c *Cache[K, V]) Add(key K, v V, size int64) {
	if size > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.lru.Peek(key); ok {
		if !c.expired(old) {
			return
		}
		c.lru.Remove(key)
	}
	c.lru.Add(key, c.entry(v, size))
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
	c.lru.Add(key, c.entry(v, size))
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
