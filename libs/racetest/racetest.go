// Package racetest runs two conflicting requests at once, many times, for
// the race suites of the services (tests named TestRace…): each repetition
// starts both together behind one barrier, waits for both, then lets the
// test check its invariant.
//
// Under the race detector (`go test -race`, as `make test` runs the race
// suites) a suite runs Reps repetitions; in a plain run only ShortReps, so
// that the ordinary test pass stays quick.
package racetest

import (
	"os"
	"strconv"
	"sync"
	"testing"
	"time"
)

// Repetitions of a race under the race detector and without it.
const (
	Reps      = 200
	ShortReps = 20
)

// Enabled reports whether the race detector is on.
const Enabled = raceEnabled

// Count is how many repetitions a race runs in this build; RACETEST_REPS
// overrides it (to try a suite quickly, or longer).
func Count() int {
	if n, err := strconv.Atoi(os.Getenv("RACETEST_REPS")); err == nil && n > 0 {
		return n
	}
	if Enabled {
		return Reps
	}
	return ShortReps
}

// Run runs Count repetitions: before(i) prepares repetition i, a(i) and
// b(i) run at once, and check(i) checks the invariant after both returned.
// A failed check stops the run.
func Run(t *testing.T, before func(i int), a, b func(i int), check func(i int)) {
	t.Helper()
	began := time.Now()
	for i := range Count() {
		if i > 0 && i%50 == 0 {
			t.Logf("%d repetitions in %v", i, time.Since(began).Round(time.Millisecond))
		}
		if before != nil {
			before(i)
		}
		var start, done sync.WaitGroup
		start.Add(1)
		done.Add(2)
		for _, f := range []func(int){a, b} {
			go func() {
				defer done.Done()
				start.Wait()
				f(i)
			}()
		}
		start.Done()
		done.Wait()
		check(i)
		if t.Failed() {
			t.Fatalf("invariant broken in repetition %d of %d", i+1, Count())
		}
	}
}
