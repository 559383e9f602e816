// Package waittest waits in tests for something that happens asynchronously
// (an event consumed, a projection updated): it polls a condition until it
// holds or a deadline passes, never sleeping for a guessed duration.
package waittest

import (
	"testing"
	"time"
)

// Interval is how often Until checks its condition.
const Interval = 20 * time.Millisecond

// Until checks cond every Interval until it holds; the test fails, naming
// what it waited for, when within passes first.
func Until(t testing.TB, what string, within time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	tick := time.NewTicker(Interval)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline.C:
			t.Fatalf("timed out after %s waiting for %s", within, what)
		case <-tick.C:
		}
	}
}
