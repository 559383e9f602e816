package discovery_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/consultest"
	"github.com/docspub/platform/libs/discovery"
	"github.com/docspub/platform/libs/waittest"
)

// instance is an HTTP server whose /readyz can be turned off; every other
// path answers its name.
type instance struct {
	name  string
	srv   *httptest.Server
	ready atomic.Bool
}

func startInstance(t *testing.T, name string) *instance {
	t.Helper()
	in := &instance{name: name}
	in.ready.Store(true)
	in.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/readyz" && !in.ready.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		_, _ = io.WriteString(w, in.name)
	}))
	t.Cleanup(in.srv.Close)
	return in
}

func (in *instance) addr() string { return strings.TrimPrefix(in.srv.URL, "http://") }

// call resolves service and sends it one request, returning who answered.
func call(t *testing.T, r discovery.Resolver, service string) string {
	t.Helper()
	base, err := r.Resolve(context.Background(), service)
	if err != nil {
		return "error: " + err.Error()
	}
	res, err := http.Get(base + "/v1/ping")
	if err != nil {
		t.Fatalf("GET %s: %v", base, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return string(b)
}

// answeredBy sends n requests and returns the set of who answered, sorted.
func answeredBy(t *testing.T, r discovery.Resolver, service string, n int) []string {
	t.Helper()
	var who []string
	for range n {
		if w := call(t, r, service); !slices.Contains(who, w) {
			who = append(who, w)
		}
	}
	slices.Sort(who)
	return who
}

func TestConsulBalancesAndDropsCriticalInstances(t *testing.T) {
	agent := consultest.Start(t)
	reg := agent.Registry(t)
	ctx := context.Background()

	a, b := startInstance(t, "a"), startInstance(t, "b")
	var deregister []func(context.Context) error
	for _, in := range []*instance{a, b} {
		d, err := reg.Register(ctx, discovery.Instance{Service: "content", Addr: in.addr()})
		if err != nil {
			t.Fatal(err)
		}
		deregister = append(deregister, d)
	}

	waittest.Until(t, "traffic to reach both healthy instances", 20*time.Second, func() bool {
		return slices.Equal(answeredBy(t, reg, "content", 10), []string{"a", "b"})
	})

	// b's readiness fails: Consul marks it critical and the resolver's
	// blocking query drops it, so every request goes to a.
	b.ready.Store(false)
	waittest.Until(t, "traffic to leave the critical instance", 20*time.Second, func() bool {
		return slices.Equal(answeredBy(t, reg, "content", 10), []string{"a"})
	})

	// b recovers and takes traffic again.
	b.ready.Store(true)
	waittest.Until(t, "traffic to come back to the recovered instance", 20*time.Second, func() bool {
		return slices.Equal(answeredBy(t, reg, "content", 10), []string{"a", "b"})
	})

	// a deregisters (a clean shutdown): it leaves the agent and the traffic.
	if err := deregister[0](ctx); err != nil {
		t.Fatal(err)
	}
	if got := agent.Registered(t, "content"); !slices.Equal(got, []string{discovery.Instance{Service: "content", Addr: b.addr()}.ID()}) {
		t.Errorf("registered after a's deregistration = %v, want only b", got)
	}
	waittest.Until(t, "traffic to leave the deregistered instance", 20*time.Second, func() bool {
		return slices.Equal(answeredBy(t, reg, "content", 10), []string{"b"})
	})

	// No healthy instance left: a 503, not a hang.
	b.ready.Store(false)
	waittest.Until(t, "a 503 once no instance is healthy", 20*time.Second, func() bool {
		_, err := reg.Resolve(ctx, "content")
		var e *apierr.Error
		return errors.As(err, &e) && e.Status == http.StatusServiceUnavailable
	})
	if err := deregister[1](ctx); err != nil {
		t.Fatal(err)
	}
}

func TestConsulUnknownServiceIs503(t *testing.T) {
	agent := consultest.Start(t)
	reg := agent.Registry(t)
	_, err := reg.Resolve(context.Background(), "nothing")
	var e *apierr.Error
	if !errors.As(err, &e) || e.Status != http.StatusServiceUnavailable {
		t.Errorf("Resolve(nothing) = %v, want a 503", err)
	}
}

// The resolver answers from its cache while the agent is away.
func TestConsulKeepsTheLastListWhenTheAgentIsAway(t *testing.T) {
	agent := consultest.Start(t)
	reg := agent.Registry(t)
	a := startInstance(t, "a")
	if _, err := reg.Register(context.Background(), discovery.Instance{Service: "sites", Addr: a.addr()}); err != nil {
		t.Fatal(err)
	}
	waittest.Until(t, "the instance to pass its check", 20*time.Second, func() bool {
		return call(t, reg, "sites") == "a"
	})
	agent.Stop(t)
	for range 5 {
		if got := call(t, reg, "sites"); got != "a" {
			t.Fatalf("with the agent away, the call went to %q, want a (cached)", got)
		}
	}
}

// The gateway resolves on every request: from the cache, a Consul lookup
// costs about what a static one does.
func BenchmarkResolve(b *testing.B) {
	agent := consultest.Start(b)
	reg := agent.Registry(b)
	in := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	b.Cleanup(in.Close)
	if _, err := reg.Register(context.Background(), discovery.Instance{Service: "content", Addr: strings.TrimPrefix(in.URL, "http://")}); err != nil {
		b.Fatal(err)
	}
	waittest.Until(b, "a passing instance", 20*time.Second, func() bool {
		_, err := reg.Resolve(context.Background(), "content")
		return err == nil
	})
	static := discovery.Static{"content": in.URL}
	for _, r := range []struct {
		name string
		r    discovery.Resolver
	}{{"static", static}, {"consul", reg}} {
		b.Run(r.name, func(b *testing.B) {
			ctx := context.Background()
			for b.Loop() {
				if _, err := r.r.Resolve(ctx, "content"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
