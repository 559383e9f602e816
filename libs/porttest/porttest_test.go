package porttest

import (
	"fmt"
	"net"
	"testing"
)

func TestFreePortsAreDistinctBindableAndBelowTheEphemeralRange(t *testing.T) {
	ports := Free(t, 20)
	seen := map[int]bool{}
	for _, p := range ports {
		if p < low || p >= high {
			t.Errorf("port %d outside [%d, %d)", p, low, high)
		}
		if seen[p] {
			t.Errorf("port %d given twice", p)
		}
		seen[p] = true
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			t.Fatalf("port %d not free: %v", p, err)
		}
		_ = ln.Close()
	}
}
