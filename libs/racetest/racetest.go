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
	"sync"
	"testing"
)

// Repetitions of a race under the race detector and without it.
const (
	Reps      = 200
	ShortReps = 20
)

// Enabled reports whether the race detector is on.
const Enabled = raceEnabled

// Count is how many repetitions a race runs in this build.
func Count() int {
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
	for i := range Count() {
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
