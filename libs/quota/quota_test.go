package quota_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/quota"
)

func status(err error) int { return apierr.ToBody(err).Error.Code }

func TestOneKeyQueuesOnlyItself(t *testing.T) {
	l := quota.New("renders", quota.Limits{PerKey: 2, Queue: 1, Total: 4})
	ctx := context.Background()
	var held []func()
	for range 2 {
		r, err := l.Acquire(ctx, "noisy")
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, r)
	}
	// A third caller of the same key waits; a fourth is refused at once.
	waiting := make(chan error, 1)
	go func() {
		for {
			r, err := l.Acquire(ctx, "noisy")
			if status(err) == http.StatusTooManyRequests {
				continue // a probe below held the queue's place for a moment
			}
			if err == nil {
				r()
			}
			waiting <- err
			return
		}
	}()
	deadline := time.Now().Add(5 * time.Second)
	var err error
	for time.Now().Before(deadline) {
		probe, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
		_, err = l.Acquire(probe, "noisy")
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			break // the waiter is queued: the probe was refused
		}
	}
	// Another key still gets its turns at once.
	for range 2 {
		c, cancel := context.WithTimeout(ctx, time.Second)
		r, err := l.Acquire(c, "quiet")
		cancel()
		if err != nil {
			t.Fatalf("another key waited behind the noisy one: %v", err)
		}
		defer r()
	}
	for _, r := range held {
		r()
	}
	if err := <-waiting; err != nil {
		t.Fatalf("the waiting caller: %v", err)
	}
}

func TestTotalBoundsAllKeys(t *testing.T) {
	l := quota.New("imports", quota.Limits{PerKey: 2, Queue: 2, Total: 2, MaxWait: 50 * time.Millisecond})
	ctx := context.Background()
	r1, err := l.Acquire(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	r2, err := l.Acquire(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Acquire(ctx, "c"); status(err) != http.StatusTooManyRequests {
		t.Fatalf("third key over the total after MaxWait: %v, want 429", err)
	}
	r1()
	r3, err := l.Acquire(ctx, "c")
	if err != nil {
		t.Fatalf("after a release: %v", err)
	}
	r2()
	r3()
	r3() // a second release is harmless
}

func TestCancelledWaitGivesBack(t *testing.T) {
	l := quota.New("compiles", quota.Limits{PerKey: 1, Queue: 1})
	r, err := l.Acquire(context.Background(), "k")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { _, err := l.Acquire(ctx, "k"); errc <- err }()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled wait: %v", err)
	}
	r()
	// Both turns are free again.
	if err := l.Do(context.Background(), "k", func(context.Context) error { return nil }); err != nil {
		t.Fatal(err)
	}
}

func TestConcurrentNeverExceeds(t *testing.T) {
	l := quota.New("work", quota.Limits{PerKey: 3, Queue: 100, Total: 5})
	var mu sync.Mutex
	running, perKey, maxTotal := 0, map[string]int{}, 0
	var wg sync.WaitGroup
	for i := range 60 {
		k := string(rune('a' + i%3))
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := l.Do(context.Background(), k, func(context.Context) error {
				mu.Lock()
				running++
				perKey[k]++
				if perKey[k] > 3 {
					t.Errorf("key %s runs %d at once", k, perKey[k])
				}
				maxTotal = max(maxTotal, running)
				mu.Unlock()
				time.Sleep(time.Millisecond) // the work itself, not synchronisation
				mu.Lock()
				running--
				perKey[k]--
				mu.Unlock()
				return nil
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if maxTotal > 5 {
		t.Errorf("ran %d at once, total is 5", maxTotal)
	}
}
