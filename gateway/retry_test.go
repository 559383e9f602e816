package gateway_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/consultest"
	"github.com/docspub/platform/libs/discovery"
	"github.com/docspub/platform/libs/waittest"
)

// Content has two instances in Consul; one dies (its port refuses
// connections) and Consul has not noticed yet (its check runs every 10 s
// here): every request the gateway sends it goes to the other instance
// instead, reads and writes alike, the write's body whole.
func TestRetriesAnotherInstanceOfAFailedOne(t *testing.T) {
	agent := consultest.Start(t)
	reg, err := discovery.NewConsul(discovery.Config{Mode: discovery.ModeConsul, ConsulAddr: agent.Addr}, nil,
		discovery.WithCheckInterval(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(reg.Close)
	h := newHarness(t, options{resolve: "content", resolver: reg})
	dying := newUpstream(t, "dying")
	for _, addr := range []string{h.content.srv.Listener.Addr().String(), dying.srv.Listener.Addr().String()} {
		if _, err := reg.Register(context.Background(), discovery.Instance{Service: "content", Addr: addr}); err != nil {
			t.Fatal(err)
		}
	}
	token, _ := h.identity.add("u1", map[string]string{"o1": "admin"})
	// Both instances answered through the gateway: Consul's own checks of
	// /readyz reach them before the gateway's watch lists them passing.
	answered := map[string]bool{}
	waittest.Until(t, "both instances taking requests", 20*time.Second, func() bool {
		res := h.do(t, "GET", "/v1/spaces/s1", token, nil, nil)
		var from struct{ Service string }
		_ = json.NewDecoder(res.Body).Decode(&from)
		_ = res.Body.Close()
		answered[from.Service] = true
		return answered["content"] && answered["dying"]
	})

	dying.srv.Listener.Close() // dead: connections refused, still listed passing
	dying.srv.CloseClientConnections()
	before := h.content.count()
	failed := 0
	for i := range 20 {
		req := h.do(t, "GET", "/v1/spaces/s1", token, nil, nil)
		body := `{"title":"Space ` + strings.Repeat("x", i) + `"}`
		write := h.do(t, "POST", "/v1/orgs/o1/spaces", token, strings.NewReader(body), http.Header{"Content-Type": {"application/json"}})
		for _, res := range []*http.Response{req, write} {
			_, _ = io.Copy(io.Discard, res.Body)
			_ = res.Body.Close()
			if res.StatusCode != http.StatusOK {
				failed++
			}
		}
		if got := string(h.content.last(t).body); got != body {
			t.Fatalf("the live instance received %q, want %q", got, body)
		}
	}
	if failed > 0 {
		t.Errorf("%d of 40 requests failed while an instance was dead", failed)
	}
	if n := h.content.count() - before; n != 40 {
		t.Errorf("the live instance answered %d requests, want 40", n)
	}
}
