package waittest

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

func TestUntilReturnsOnceTheConditionHolds(t *testing.T) {
	var n atomic.Int32
	Until(t, "the third check", time.Second, func() bool { return n.Add(1) >= 3 })
	if got := n.Load(); got != 3 {
		t.Errorf("checked %d times, want 3", got)
	}
}

func TestUntilFailsAtTheDeadline(t *testing.T) {
	// Run in a goroutine with a recording TB so that the failure is observed, not reported.
	rec := &recorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Until(rec, "never", 50*time.Millisecond, func() bool { return false })
	}()
	<-done
	if !rec.failed {
		t.Error("Until did not fail when the condition never held")
	}
}

// recorder is a testing.TB whose Fatalf records the failure and ends the goroutine.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(string, ...any) {
	r.failed = true
	runtime.Goexit()
}
