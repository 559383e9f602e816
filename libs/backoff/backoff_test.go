package backoff

import (
	"testing"
	"time"
)

func TestWait(t *testing.T) {
	for _, tc := range []struct {
		attempt int
		want    string
	}{{0, "50ms"}, {1, "50ms"}, {2, "100ms"}, {3, "200ms"}, {6, "1.6s"}, {7, "2s"}, {50, "2s"}, {1 << 30, "2s"}} {
		if got := Wait(tc.attempt, 50*time.Millisecond, 2*time.Second).String(); got != tc.want {
			t.Errorf("Wait(%d) = %s, want %s", tc.attempt, got, tc.want)
		}
	}
}
