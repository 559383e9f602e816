package service

import (
	"context"
	"fmt"
	"sync"
)

// group runs background goroutines and stops them together: stop cancels
// each one's context and waits until all have returned. Like an errgroup
// without the cancel on first error: a worker's failure is its own (Core.Go
// logs it) and stops none of the others. The zero group is ready to use.
type group struct {
	mu      sync.Mutex
	cancels []context.CancelFunc
	wg      sync.WaitGroup
}

// run runs f in a goroutine of the group, with a context that stop cancels.
func (g *group) run(ctx context.Context, f func(context.Context)) {
	ctx, cancel := context.WithCancel(ctx)
	g.mu.Lock()
	g.cancels = append(g.cancels, cancel)
	g.wg.Add(1)
	g.mu.Unlock()
	go func() {
		defer g.wg.Done()
		defer cancel()
		f(ctx)
	}()
}

// stop cancels the group's goroutines and waits for them to return, at most
// until ctx is done (an error then: some still run).
func (g *group) stop(ctx context.Context, what string) error {
	g.mu.Lock()
	for _, cancel := range g.cancels {
		cancel()
	}
	g.mu.Unlock()
	done := make(chan struct{})
	go func() {
		g.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("stop %s: %w", what, ctx.Err())
	}
}
