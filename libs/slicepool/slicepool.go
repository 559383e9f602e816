// Package slicepool lends slices from one use to the next (a request's
// body, a batch's visits or encoded bytes), so that a hot path does not
// allocate them again for every request: a slice goes back cleared once
// nothing reads it, and one grown past the pool's bound is left to the
// collector.
package slicepool

import "sync"

// Pool lends slices of T.
type Pool[T any] struct {
	max  int // the largest capacity kept
	pool sync.Pool
}

// New returns a pool that keeps slices of capacity max at most.
func New[T any](max int) *Pool[T] {
	return &Pool[T]{max: max}
}

// Get returns an empty slice, with the capacity of one given back before
// when there is one. Its elements past its length are zero.
func (p *Pool[T]) Get() []T {
	if s, ok := p.pool.Get().(*[]T); ok {
		return *s
	}
	return nil
}

// Put takes back s (what Get returned, appended to). Nothing may read or
// write s after: its elements are cleared, so that nothing of one use
// lingers into the next.
func (p *Pool[T]) Put(s []T) {
	if cap(s) == 0 || cap(s) > p.max {
		return
	}
	clear(s)
	s = s[:0]
	p.pool.Put(&s)
}
