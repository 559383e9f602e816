package content_test

import (
	"testing"
	"time"
)

// TestSpaceCountersCurrent: a space's counters are cached between reads,
// yet a comment or change request written through the service shows in
// the very next GET of the space (no wait for the cache's expiry).
func TestSpaceCountersCurrent(t *testing.T) {
	s := startService(t, time.Hour)
	a := s.as("u1", "orgA", "admin")
	sp := a.space("Handbook")
	counters := func() (comments, crs float64) {
		v := a.must(200, "GET", sp, nil).json(t)
		return v["comments"].(float64), v["changeRequests"].(float64)
	}
	if c, cr := counters(); c != 0 || cr != 0 {
		t.Fatalf("new space: comments %v, change requests %v; want 0, 0", c, cr)
	}
	for i := range 2 {
		a.must(200, "POST", sp+"/comments", map[string]any{"body": map[string]any{"markdown": "note"}})
		if c, _ := counters(); c != float64(i+1) {
			t.Errorf("after comment %d: comments %v", i+1, c)
		}
	}
	a.changeRequest(sp)
	if c, cr := counters(); c != 2 || cr != 1 {
		t.Errorf("after a change request: comments %v, change requests %v; want 2, 1", c, cr)
	}
}
