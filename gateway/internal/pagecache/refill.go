package pagecache

import "sync"

// refills are the refills under way of answers kept and gone stale (past
// their TTL, or purged), by key: when a kept answer ends, the readers
// asking for it at once (a popular page, a search asked again and again)
// would all reach sites; one refills it and the others wait for that
// refill (Refill). An answer never kept is never waited for: what sites
// does not let the cache keep (a restricted site, an error) reaches sites
// every time, as before.
type refills struct {
	mu sync.Mutex
	m  map[Key]chan struct{}
}

// fresh tells whether the answer kept under k may be served.
func (c *Cache) fresh(k Key) bool {
	e, found := c.of(k).Peek(k)
	return found && c.usable(e)
}

// usable tells whether e may be served: within its TTL, none of its tags
// purged since its fill began.
func (c *Cache) usable(e *Entry) bool { return c.now().Sub(e.at) < c.ttl && c.tags.Current(e.stamp) }

// Refill tells a reader whose lookup of k found nothing fresh whether to
// wait for another reader's refill of it: wait, closed when that refill
// ends (kept or not; look up again then), or, when the caller is to
// refill it, release, to call once its answer is kept or known not to
// be (a stale answer not kept again is then dropped). Both are nil when no answer is kept under k, stale or not: the
// caller asks sites without waiting nor making others wait.
func (c *Cache) Refill(k Key) (release func(), wait <-chan struct{}) {
	if c == nil {
		return nil, nil
	}
	if _, kept := c.of(k).Peek(k); !kept {
		return nil, nil
	}
	c.refills.mu.Lock()
	defer c.refills.mu.Unlock()
	if ch, ok := c.refills.m[k]; ok {
		return nil, ch
	}
	if c.refills.m == nil {
		c.refills.m = map[Key]chan struct{}{}
	}
	ch := make(chan struct{})
	c.refills.m[k] = ch
	var once sync.Once
	return func() {
		once.Do(func() {
			c.refills.mu.Lock()
			if !c.fresh(k) {
				// Not kept again (sites no longer lets it be: a site
				// made restricted, an error): forgotten, so that its next
				// readers do not wait for one another.
				c.of(k).Remove(k)
			}
			delete(c.refills.m, k)
			c.refills.mu.Unlock()
			close(ch)
		})
	}, nil
}
