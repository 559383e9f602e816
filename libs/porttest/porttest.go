// Package porttest picks loopback ports for the servers a test starts by
// address (a component given its listen address, a Consul agent, nginx).
package porttest

import (
	"fmt"
	"math/rand/v2"
	"net"
	"testing"
)

// The ports Free picks from: below Linux's ephemeral range (32768–60999,
// net.ipv4.ip_local_port_range), from which the kernel hands out the
// local ports of every process's outgoing connections and of listeners
// on port 0. A free port of that range may be taken by any connection
// between Free's check and the server's bind (CI's parallel packages
// open thousands); one below it only by a listener that names it.
const (
	low  = 20000
	high = 32768
)

// Free returns n distinct loopback ports no one listens on. Each listener
// of the check stays open until all are taken, so no port is given twice.
func Free(t testing.TB, n int) []int {
	t.Helper()
	ports := make([]int, 0, n)
	for tries := 0; len(ports) < n; tries++ {
		if tries == 10_000 {
			t.Fatalf("no %d free loopback ports between %d and %d", n, low, high)
		}
		p := low + rand.IntN(high-low)
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			continue // taken
		}
		defer ln.Close()
		ports = append(ports, p)
	}
	return ports
}
