package racetest

import (
	"sync/atomic"
	"testing"
)

func TestRunStartsBothEveryRepetition(t *testing.T) {
	var a, b, checks atomic.Int32
	Run(t, nil, func(int) { a.Add(1) }, func(int) { b.Add(1) }, func(i int) {
		if int(a.Load()) != i+1 || int(b.Load()) != i+1 {
			t.Errorf("repetition %d: a ran %d, b %d times", i, a.Load(), b.Load())
		}
		checks.Add(1)
	})
	if int(checks.Load()) != Count() {
		t.Errorf("checked %d times, want %d", checks.Load(), Count())
	}
}
