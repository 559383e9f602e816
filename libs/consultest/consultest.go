// Package consultest runs a real Consul agent in -dev mode for tests. The
// binary comes from $CONSUL_BIN (the Makefile builds it from
// deployments/tools/consul and sets it) or from PATH; without one the test
// is skipped, except in CI, where it fails.
package consultest

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/docspub/platform/libs/discovery"
	"github.com/docspub/platform/libs/porttest"
	"github.com/docspub/platform/libs/waittest"
	"github.com/hashicorp/consul/api"
)

// Agent is a running Consul dev agent.
type Agent struct {
	// Addr is its HTTP address (host:port), as CONSUL_HTTP_ADDR takes it.
	Addr string
	// Client talks to it.
	Client *api.Client
	stop   func()
}

// Binary returns the Consul binary to run: $CONSUL_BIN when that file
// exists (the Makefile names ~/.cache/docspub/consul-<version>/consul,
// built by `make consul`), else consul on the PATH. Without one it skips
// t, or fails it when CONSUL_REQUIRED is set (`make test-long`, which CI
// runs after building the agent).
func Binary(t testing.TB) string {
	t.Helper()
	if bin := os.Getenv("CONSUL_BIN"); bin != "" {
		if _, err := os.Stat(bin); err == nil {
			return bin
		}
	}
	if bin, err := exec.LookPath("consul"); err == nil {
		return bin
	}
	if os.Getenv("CONSUL_REQUIRED") != "" {
		t.Fatal("no Consul binary: set CONSUL_BIN (`make consul` builds one)")
	}
	t.Skip("no Consul binary: `make consul` builds one (`make test-long` runs these tests with it)")
	return ""
}

// Start runs a dev agent on free loopback ports until the test ends and
// waits until it has elected itself leader.
func Start(t testing.TB) *Agent {
	t.Helper()
	bin := Binary(t)
	ports := porttest.Free(t, 3)
	http, serfLAN, server := ports[0], ports[1], ports[2]
	var out syncBuffer
	cmd := exec.Command(bin, "agent", "-dev", "-node", "test-"+strconv.Itoa(http),
		"-bind", "127.0.0.1", "-client", "127.0.0.1",
		"-http-port", strconv.Itoa(http), "-serf-lan-port", strconv.Itoa(serfLAN), "-server-port", strconv.Itoa(server),
		"-serf-wan-port", "-1", "-dns-port", "-1", "-grpc-port", "-1", "-grpc-tls-port", "-1",
		"-log-level", "warn")
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start consul: %v", err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	stop := sync.OnceFunc(func() {
		_ = cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	t.Cleanup(stop)

	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(http))
	client, err := api.NewClient(&api.Config{Address: addr})
	if err != nil {
		t.Fatal(err)
	}
	waittest.Until(t, "consul to elect a leader", 30*time.Second, func() bool {
		select {
		case <-exited:
			t.Fatalf("consul exited:\n%s", out.String())
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		leader, err := client.Status().LeaderWithQueryOptions((&api.QueryOptions{}).WithContext(ctx))
		return err == nil && leader != ""
	})
	return &Agent{Addr: addr, Client: client, stop: stop}
}

// Stop stops the agent before the test ends.
func (a *Agent) Stop(t testing.TB) {
	t.Helper()
	a.stop()
}

// CheckInterval is how often the agent probes instances that Registry's
// registry registers: short, so that tests see health changes quickly.
const CheckInterval = 200 * time.Millisecond

// Registry returns a Consul registry talking to the agent, closed when the
// test ends.
func (a *Agent) Registry(t testing.TB) *discovery.Consul {
	t.Helper()
	reg, err := discovery.NewConsul(discovery.Config{Mode: discovery.ModeConsul, ConsulAddr: a.Addr}, nil,
		discovery.WithCheckInterval(CheckInterval))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(reg.Close)
	return reg
}

// Passing returns the addresses ("host:port") of the passing instances of
// service, as Consul's catalog has them now.
func (a *Agent) Passing(t testing.TB, service string) []string {
	t.Helper()
	entries, _, err := a.Client.Health().Service(service, "", true, nil)
	if err != nil {
		t.Fatalf("consul health of %s: %v", service, err)
	}
	var addrs []string
	for _, e := range entries {
		addrs = append(addrs, net.JoinHostPort(e.Service.Address, strconv.Itoa(e.Service.Port)))
	}
	return addrs
}

// Registered returns the ids of the instances of service in the agent.
func (a *Agent) Registered(t testing.TB, service string) []string {
	t.Helper()
	services, err := a.Client.Agent().ServicesWithFilter("Service == " + strconv.Quote(service))
	if err != nil {
		t.Fatalf("consul agent services: %v", err)
	}
	var ids []string
	for id := range services {
		ids = append(ids, id)
	}
	return ids
}

// syncBuffer is the agent's output, written by the process and read on failure.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
