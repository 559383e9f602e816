package site

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/waittest"
	"github.com/docspub/platform/services/sites/internal/limits"
)

// TestCompileQuotaAndDeadline: an organization whose compilations hang
// waits at most limits.AdaptiveSchemaCompile for each, then gets a 400; its
// hung compilations keep their turns, so beyond its quota it gets a 429
// with Retry-After at once, while another organization compiles as usual.
func TestCompileQuotaAndDeadline(t *testing.T) {
	t.Parallel()
	hang := make(chan struct{})
	defer close(hang)
	s := &Service{compiles: compileQuota(), compileFn: func(doc map[string]any) error {
		if doc["org"] == "noisy" {
			<-hang
		}
		return compileSchema(doc)
	}}
	ctx := context.Background()
	noisy := map[string]any{"org": "noisy"}

	start := time.Now()
	err := s.compile(ctx, "noisy", noisy)
	var e *apierr.Error
	if !errors.As(err, &e) || e.Status != 400 || time.Since(start) > limits.AdaptiveSchemaCompile+time.Second {
		t.Fatalf("a hung compilation: %v after %s, want a 400 after %s", err, time.Since(start), limits.AdaptiveSchemaCompile)
	}
	// Its turn is still taken: more of the organization's compilations wait
	// in its queue, and one more is refused at once.
	stop := make(chan struct{})
	defer close(stop)
	for range limits.AdaptiveSchemaCompileQueue {
		go func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				_ = s.compile(ctx, "noisy", noisy) // queued; again when a probe held the place
			}
		}()
	}
	waittest.Until(t, "the organization's queue is full", 5*time.Second, func() bool {
		probe, cancel := context.WithCancel(ctx)
		cancel() // a full queue refuses at once; otherwise the probe leaves at once
		err := s.compile(probe, "noisy", noisy)
		return errors.As(err, &e) && e.Status == 429 && e.RetryAfter > 0
	})
	quiet := map[string]any{"type": "object"}
	start = time.Now()
	if err := s.compile(ctx, "quiet", quiet); err != nil || time.Since(start) > time.Second {
		t.Errorf("another organization's compilation: %v after %s", err, time.Since(start))
	}
}
