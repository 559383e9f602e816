package throttle

import (
	"strconv"
	"testing"
	"time"

	"github.com/docspub/platform/libs/logx"
)

// TestThrottleLogBounded: a key is logged once per window; in a window at
// most maxLines keys are, and the refusals left unlogged are
// counted once the window is over.
func TestThrottleLogBounded(t *testing.T) {
	tl := New(logx.Discard())
	t0 := time.Unix(1_000_000, 0)
	if log, _ := tl.shouldLog("reader\x00a", t0); !log {
		t.Fatal("first refusal of a key not logged")
	}
	if log, _ := tl.shouldLog("reader\x00a", t0.Add(window/2)); log {
		t.Error("second refusal of a key in its window logged")
	}
	if log, _ := tl.shouldLog("token\x00a", t0.Add(window/2)); !log {
		t.Error("the same key of another limit not logged")
	}
	for i := range maxLines + 5 {
		tl.shouldLog("reader\x00"+strconv.Itoa(i), t0.Add(window/2))
	}
	log, unlogged := tl.shouldLog("reader\x00a", t0.Add(window))
	if !log || unlogged != 7 {
		t.Errorf("after the window: logged %v, %d unlogged; want true and 7 (2 lines were taken before)", log, unlogged)
	}
	if _, unlogged := tl.shouldLog("reader\x00b", t0.Add(window+time.Second)); unlogged != 0 {
		t.Errorf("unlogged refusals reported twice: %d", unlogged)
	}
}
