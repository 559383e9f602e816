package service

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docspub/platform/libs/logx"
	"github.com/google/go-cmp/cmp"
	"github.com/sethvargo/go-envconfig"
)

// fakeApp records what Run does with it.
type fakeApp struct {
	closeErr error
	started  chan struct{} // closed by RunBackground, when not nil

	mu       sync.Mutex
	bg       context.Context
	closed   bool
	deadline bool
}

func (a *fakeApp) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
}

func (a *fakeApp) RunBackground(ctx context.Context) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.bg = ctx
	if a.started != nil {
		close(a.started)
	}
}

func (a *fakeApp) Close(ctx context.Context) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	_, a.deadline = ctx.Deadline()
	a.closed = true
	return a.closeErr
}

func TestRunServesUntilCancelledThenCloses(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var buf bytes.Buffer
	app := &fakeApp{started: make(chan struct{})}
	done := make(chan error, 1)
	go func() { done <- Run(ctx, "svc", "127.0.0.1:0", app, logx.NewTo(&buf, "svc", "info")) }()

	select {
	case <-app.started:
	case err := <-done:
		t.Fatalf("Run returned %v before starting the background work", err)
	}
	app.mu.Lock()
	bg := app.bg
	app.mu.Unlock()
	if bg.Err() != nil {
		t.Fatal("background context is done while Run serves")
	}

	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run after cancel = %v, want nil", err)
	}
	if bg.Err() == nil {
		t.Error("background context is still live after Run returned")
	}
	if !app.closed || !app.deadline {
		t.Errorf("Close called = %v with a deadline = %v, want both", app.closed, app.deadline)
	}
	if !strings.Contains(buf.String(), `"msg":"listening"`) {
		t.Errorf("log = %s, want the app served", buf.String())
	}
}

// wrappedListener's connections claim a peer address of their own, as a
// wrapper of the listener can (the gateway's PROXY protocol).
type wrappedConn struct{ net.Conn }

func (c wrappedConn) RemoteAddr() net.Addr { return &net.TCPAddr{IP: net.IPv4(192, 0, 2, 7), Port: 1} }

type wrappedListener struct{ net.Listener }

func (l wrappedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return wrappedConn{c}, nil
}

// TestRunWrapsTheListener: with WrapListener, Run serves the wrapped
// listener's connections.
func TestRunWrapsTheListener(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addrs := make(chan string, 1)
	wrap := func(ln net.Listener) net.Listener {
		addrs <- ln.Addr().String()
		return wrappedListener{ln}
	}
	app := &peerApp{}
	done := make(chan error, 1)
	go func() { done <- Run(ctx, "svc", "127.0.0.1:0", app, logx.Discard(), WrapListener(wrap)) }()
	var addr string
	select {
	case addr = <-addrs:
	case err := <-done:
		t.Fatalf("Run returned %v before listening", err)
	}
	resp, err := http.Get("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "192.0.2.7:1" {
		t.Errorf("the handler saw the peer %q, want the wrapped connection's 192.0.2.7:1", b)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run after cancel = %v, want nil", err)
	}
}

// peerApp answers every request with its peer address.
type peerApp struct{ fakeApp }

func (*peerApp) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, r.RemoteAddr) })
}

func TestRunClosesWhenListenFails(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	app := &fakeApp{closeErr: errors.New("disconnect failed")}
	err := Run(context.Background(), "svc", "no-port", app, logx.NewTo(&buf, "svc", "info"))
	if err == nil || !strings.Contains(err.Error(), "listen no-port") {
		t.Fatalf("Run on a bad address = %v, want the listen error", err)
	}
	if !app.closed {
		t.Error("Close was not called")
	}
	if app.bg == nil || app.bg.Err() == nil {
		t.Error("background context is not cancelled after Run returned")
	}
	if !strings.Contains(buf.String(), `"msg":"close svc"`) || !strings.Contains(buf.String(), "disconnect failed") {
		t.Errorf("log = %s, want the close error under close svc", buf.String())
	}
}

type testConfig struct {
	Addr  string        `env:"ADDR, default=:8080"`
	Wait  time.Duration `env:"WAIT, default=1s"`
	Level string        `env:"LEVEL, default=info"`
}

func (c testConfig) Validate() error {
	if c.Addr == "" {
		return errors.New("ADDR is required")
	}
	return nil
}

func TestStart(t *testing.T) {
	t.Parallel()
	errRun := errors.New("boom")
	for _, tc := range []struct {
		name    string
		env     map[string]string
		runErr  error
		wantCfg *testConfig // what run is given; nil when it must not be called
		wantErr string
		wantLog string
	}{
		{name: "defaults", env: map[string]string{},
			wantCfg: &testConfig{Addr: ":8080", Wait: time.Second, Level: "info"}},
		{name: "from the environment", env: map[string]string{"ADDR": ":9", "LEVEL": "debug"},
			wantCfg: &testConfig{Addr: ":9", Wait: time.Second, Level: "debug"}},
		{name: "bad value", env: map[string]string{"WAIT": "soon"}, wantErr: "load config"},
		{name: "invalid", env: map[string]string{"ADDR": ""}, wantErr: "ADDR is required"},
		{name: "stdout trace exporter", env: map[string]string{"OTEL_TRACES_EXPORTER": "stdout"},
			wantCfg: &testConfig{Addr: ":8080", Wait: time.Second, Level: "info"}},
		{name: "unknown trace exporter", env: map[string]string{"OTEL_TRACES_EXPORTER": "carrier-pigeon"}, wantErr: "OTEL_TRACES_EXPORTER"},
		{name: "unknown sampler", env: map[string]string{"OTEL_TRACES_SAMPLER": "sometimes"}, wantErr: "OTEL_TRACES_SAMPLER"},
		{name: "bad sampler ratio", env: map[string]string{"OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "2"}, wantErr: "OTEL_TRACES_SAMPLER_ARG"},
		{name: "run fails", env: map[string]string{}, runErr: errRun,
			wantCfg: &testConfig{Addr: ":8080", Wait: time.Second, Level: "info"},
			wantErr: "boom", wantLog: `"msg":"svc stopped"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var (
				buf   bytes.Buffer
				got   *testConfig
				level string
			)
			newLog := func(c testConfig) *slog.Logger {
				level = c.Level
				return logx.NewTo(&buf, "svc", c.Level)
			}
			run := func(_ context.Context, c testConfig, _ *slog.Logger) error {
				got = &c
				return tc.runErr
			}
			err := start(context.Background(), "svc", envconfig.MapLookuper(tc.env), newLog, run)
			if tc.wantErr == "" && err != nil {
				t.Fatalf("start = %v, want nil", err)
			}
			if tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("start = %v, want an error containing %q", err, tc.wantErr)
			}
			if diff := cmp.Diff(got, tc.wantCfg); diff != "" {
				t.Errorf("config given to run (-got +want):\n%s", diff)
			}
			if tc.wantCfg != nil && level != tc.wantCfg.Level {
				t.Errorf("logger built at level %q, want %q", level, tc.wantCfg.Level)
			}
			if !strings.Contains(buf.String(), tc.wantLog) {
				t.Errorf("log = %s, want %s", buf.String(), tc.wantLog)
			}
		})
	}
}

// TestStartServesMetricsOnAdminAddr: with ADMIN_ADDR the command serves
// the Prometheus /metrics while it runs.
func TestStartServesMetricsOnAdminAddr(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	var (
		status int
		body   string
	)
	run := func(ctx context.Context, _ testConfig, _ *slog.Logger) error {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		status, body = resp.StatusCode, string(b)
		return nil
	}
	env := envconfig.MapLookuper(map[string]string{"ADMIN_ADDR": addr})
	if err := start(context.Background(), "svc", env, func(testConfig) *slog.Logger { return logx.Discard() }, run); err != nil {
		t.Fatal(err)
	}
	if status != http.StatusOK || !strings.Contains(body, "go_goroutines") {
		t.Errorf("GET /metrics on ADMIN_ADDR = %d %.200s; want 200 with the runtime's metrics", status, body)
	}
}

func TestApplyMemoryLimit(t *testing.T) {
	prev := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(prev) })
	debug.SetMemoryLimit(math.MaxInt64) // as without GOMEMLIMIT
	if got := applyMemoryLimit(0); got != math.MaxInt64 {
		t.Errorf("without a container limit = %d; want no limit", got)
	}
	if got, want := applyMemoryLimit(1000<<20), int64(900<<20); got != want || debug.SetMemoryLimit(-1) != want {
		t.Errorf("with a 1000 MiB container = %d; want %d (90%%)", got, want)
	}
	// GOMEMLIMIT (here: a limit already set) wins.
	debug.SetMemoryLimit(100 << 20)
	if got := applyMemoryLimit(1000 << 20); got != 100<<20 {
		t.Errorf("with GOMEMLIMIT set = %d; want it kept", got)
	}
}
