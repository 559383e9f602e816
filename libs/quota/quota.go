// Package quota bounds expensive work per tenant, so that one tenant's burst
// queues only itself: each key (an organization id) runs at most PerKey
// operations at once and keeps at most Queue more waiting; beyond that a
// caller is refused at once with a 429. The process as a whole runs at most
// Total operations at once, so the machine stays within its budget while
// every other key keeps its own PerKey share.
package quota

import (
	"context"
	"sync"
	"time"

	"github.com/docspub/platform/libs/apierr"
)

// Limits of a Limiter.
type Limits struct {
	PerKey  int           // operations of one key running at once (≥ 1)
	Queue   int           // operations of one key waiting for a turn (≥ 0)
	Total   int           // operations of all keys running at once (0: no bound)
	MaxWait time.Duration // longest wait for a turn before a 429 (0: until the caller gives up)
}

// Limiter hands out turns. It is safe for concurrent use.
type Limiter struct {
	what   string
	limits Limits
	global chan struct{}

	mu   sync.Mutex
	keys map[string]*key
}

type key struct {
	turns    chan struct{} // capacity PerKey
	inFlight int           // running and waiting
}

// New returns a limiter of the operation named what ("PDF renders").
func New(what string, l Limits) *Limiter {
	if l.PerKey < 1 {
		l.PerKey = 1
	}
	if l.Queue < 0 {
		l.Queue = 0
	}
	lim := &Limiter{what: what, limits: l, keys: map[string]*key{}}
	if l.Total > 0 {
		lim.global = make(chan struct{}, l.Total)
	}
	return lim
}

// Limits returns the limiter's limits.
func (l *Limiter) Limits() Limits { return l.limits }

// Acquire waits for a turn of k and returns the function that gives it back
// (call it exactly once). It fails with a 429 when k already has PerKey
// running and Queue waiting, or when no turn came within MaxWait, and with
// ctx's error when ctx ends first.
func (l *Limiter) Acquire(ctx context.Context, k string) (release func(), err error) {
	l.mu.Lock()
	s := l.keys[k]
	if s == nil {
		s = &key{turns: make(chan struct{}, l.limits.PerKey)}
		l.keys[k] = s
	}
	if s.inFlight >= l.limits.PerKey+l.limits.Queue {
		l.mu.Unlock()
		return nil, l.busy()
	}
	s.inFlight++
	l.mu.Unlock()

	done := func() {
		l.mu.Lock()
		s.inFlight--
		if s.inFlight == 0 {
			delete(l.keys, k)
		}
		l.mu.Unlock()
	}
	var timeout <-chan time.Time
	if l.limits.MaxWait > 0 {
		t := time.NewTimer(l.limits.MaxWait)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case s.turns <- struct{}{}:
	case <-ctx.Done():
		done()
		return nil, ctx.Err()
	case <-timeout:
		done()
		return nil, l.busy()
	}
	if l.global != nil {
		select {
		case l.global <- struct{}{}:
		case <-ctx.Done():
			<-s.turns
			done()
			return nil, ctx.Err()
		case <-timeout:
			<-s.turns
			done()
			return nil, l.busy()
		}
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			if l.global != nil {
				<-l.global
			}
			<-s.turns
			done()
		})
	}, nil
}

// Do runs f in a turn of k.
func (l *Limiter) Do(ctx context.Context, k string, f func(context.Context) error) error {
	release, err := l.Acquire(ctx, k)
	if err != nil {
		return err
	}
	defer release()
	return f(ctx)
}

func (l *Limiter) busy() error {
	return apierr.TooMany(time.Second, "too many %s in progress for this organization (at most %d at once, %d waiting); retry shortly",
		l.what, l.limits.PerKey, l.limits.Queue)
}
