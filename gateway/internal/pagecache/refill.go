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

// Refill tells a reader whose lookup of k found nothing fresh whether to
// wait for another reader's refill of it: wait, closed when that refill
// ends (kept or not; look up again then), or, when the caller is to
// refill it, release, to call once its answer is kept or known not to
// be. Both are nil when no answer is kept under k, stale or not: the
// caller asks sites without waiting nor making others wait.
func (c *Cache) Refill(k Key) (release func(), wait <-chan struct{}) {
	if c == nil {
		return nil, nil
	}
	if _, kept := c.entries.Peek(k); !kept {
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
			delete(c.refills.m, k)
			c.refills.mu.Unlock()
			close(ch)
		})
	}, nil
}
