package service

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/docspub/platform/libs/consultest"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/waittest"
)

// slowApp answers /readyz at once and holds /slow until release is closed.
type slowApp struct {
	fakeApp
	inFlight chan struct{}
	release  chan struct{}
}

func (a *slowApp) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			close(a.inFlight)
			<-a.release
		}
		w.WriteHeader(http.StatusNoContent)
	})
}

// With Consul, Run registers the instance with a passing /readyz check
// while it serves, and on shutdown deregisters it before draining: a request
// in flight is still answered, but the instance has already left Consul.
func TestRunAnnouncesThenWithdrawsBeforeDraining(t *testing.T) {
	agent := consultest.Start(t)
	reg := agent.Registry(t)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	app := &slowApp{inFlight: make(chan struct{}), release: make(chan struct{})}
	done := make(chan error, 1)
	go func() { done <- Run(ctx, "svc", "127.0.0.1:0", app, logx.Discard(), Announce(reg, "")) }()

	var addr string
	waittest.Until(t, "the instance to pass its readiness check in consul", 20*time.Second, func() bool {
		passing := agent.Passing(t, "svc")
		if len(passing) == 1 {
			addr = passing[0]
		}
		return len(passing) == 1
	})
	base, err := reg.Resolve(ctx, "svc")
	if err != nil || base != "http://"+addr {
		t.Fatalf("Resolve(svc) = %q, %v; want http://%s", base, err, addr)
	}

	answered := make(chan int, 1)
	go func() {
		res, err := http.Get(base + "/slow")
		if err != nil {
			answered <- 0
			return
		}
		res.Body.Close()
		answered <- res.StatusCode
	}()
	<-app.inFlight
	cancel()
	waittest.Until(t, "the instance to leave consul while its request drains", 10*time.Second, func() bool {
		return len(agent.Registered(t, "svc")) == 0
	})
	select {
	case err := <-done:
		t.Fatalf("Run returned %v before its in-flight request finished", err)
	default:
	}
	close(app.release)
	if got := <-answered; got != http.StatusNoContent {
		t.Errorf("in-flight request answered %d, want 204", got)
	}
	if err := <-done; err != nil {
		t.Errorf("Run = %v, want nil", err)
	}
	if !app.closed {
		t.Error("app not closed")
	}
}
