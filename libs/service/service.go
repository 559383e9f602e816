// Package service gives what every service's command and in-process runner
// share: Main for cmd/<svc>/main.go, and Run, the lifecycle of a wired app
// (background work, serving, shutdown, close).
package service

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"sync"
	"syscall"
	"time"

	"github.com/docspub/platform/libs/config"
	"github.com/docspub/platform/libs/discovery"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/otelx"
	"github.com/sethvargo/go-envconfig"
)

// CloseTimeout bounds how long Run waits for an app to close.
const CloseTimeout = 10 * time.Second

// App is a wired service.
type App interface {
	// Handler is the HTTP handler Run serves.
	Handler() http.Handler
	// RunBackground starts the app's background work (relays, consumers,
	// jobs); it stops when ctx is done.
	RunBackground(ctx context.Context)
	// Close releases the app's connections.
	Close(ctx context.Context) error
}

// DeregisterTimeout bounds how long Run waits for discovery to withdraw the
// instance before it drains.
const DeregisterTimeout = 5 * time.Second

// Option changes what Run does.
type Option func(*runOptions)

type runOptions struct {
	registry  discovery.Registry
	advertise string
	wrap      func(net.Listener) net.Listener
	linger    time.Duration
}

// Linger makes Run, told to stop, keep serving for up to d (until no
// connection is open) with every answer closing its connection, before it
// drains (httpx.Lingering): for a component clients keep connections to
// and that no registry withdraws (the gateway).
func Linger(d time.Duration) Option {
	return func(o *runOptions) { o.linger = d }
}

// WrapListener makes Run serve on wrap(the listener) rather than the
// listener itself (the gateway's PROXY protocol).
func WrapListener(wrap func(net.Listener) net.Listener) Option {
	return func(o *runOptions) { o.wrap = wrap }
}

// Announce makes Run register the instance in reg (with a health check on
// its /readyz) once it listens, at advertise or, when that is empty, at the
// address discovery.AdvertiseAddr derives from the listener; on shutdown the
// instance is deregistered and keeps serving for httpx.Linger before the
// server drains, so that resolvers stop sending it new requests first.
func Announce(reg discovery.Registry, advertise string) Option {
	return func(o *runOptions) { o.registry, o.advertise = reg, advertise }
}

// Run starts app's background work and serves its handler on addr until ctx
// is done; then it stops the background work and closes app, logging a close
// error under name. With Announce, the instance is registered as name while
// it serves.
func Run(ctx context.Context, name, addr string, app App, log *slog.Logger, opts ...Option) error {
	var o runOptions
	for _, f := range opts {
		f(&o)
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), CloseTimeout)
		defer cancel()
		if err := app.Close(cctx); err != nil {
			log.Error("close "+name, "err", err)
		}
	}()
	bg, stop := context.WithCancel(ctx)
	defer stop()
	app.RunBackground(bg)

	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", addr, err)
	}
	if o.wrap != nil {
		ln = o.wrap(ln)
	}
	if o.registry == nil {
		return httpx.ServeLingering(ctx, ln, app.Handler(), log, httpx.Lingering{For: o.linger})
	}
	adv, err := discovery.AdvertiseAddr(o.advertise, ln.Addr())
	if err != nil {
		_ = ln.Close()
		return err
	}
	deregister, err := o.registry.Register(ctx, discovery.Instance{Service: name, Addr: adv})
	if err != nil {
		_ = ln.Close()
		return err
	}
	withdraw := sync.OnceFunc(func() {
		dctx, cancel := context.WithTimeout(context.Background(), DeregisterTimeout)
		defer cancel()
		if err := deregister(dctx); err != nil {
			log.Warn("deregister "+name, "err", err)
		}
	})
	defer withdraw()
	return httpx.ServeLingering(ctx, ln, app.Handler(), log, httpx.Lingering{Withdraw: withdraw, For: httpx.Linger})
}

// Config is a service's configuration: a struct with `env` tags (see
// config.Load) that reports its problems.
type Config interface {
	Validate() error
}

// Main is the main function of the command of service name: it loads C from
// the environment, validates it, builds the logger at level(cfg) and calls
// run with a context cancelled by SIGINT or SIGTERM. When that fails it
// prints the error and exits 1.
func Main[C Config](name string, run func(ctx context.Context, cfg C, log *slog.Logger) error, level func(C) string) {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	err := start(ctx, name, envconfig.OsLookuper(), func(cfg C) *slog.Logger { return logx.New(name, level(cfg)) }, run)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(1)
	}
}

// Telemetry is how every component exports its traces (OTEL_TRACES_*) and
// where it serves its metrics.
type Telemetry struct {
	otelx.Config
	// AdminAddr is where the component serves GET /metrics (Prometheus
	// text format), apart from its API; empty turns it off.
	AdminAddr string `env:"ADMIN_ADDR"`
	// MemoryLimit is the container's memory limit in bytes (Kubernetes'
	// downward API); unless GOMEMLIMIT is set, the Go runtime's soft memory
	// limit becomes 90% of it.
	MemoryLimit int64 `env:"MEMORY_LIMIT"`
}

// applyMemoryLimit sets the runtime's soft memory limit to 90% of limit
// unless GOMEMLIMIT set one; it returns the limit in force.
func applyMemoryLimit(limit int64) int64 {
	current := debug.SetMemoryLimit(-1)
	if limit <= 0 || current != math.MaxInt64 {
		return current
	}
	soft := limit / 10 * 9
	debug.SetMemoryLimit(soft)
	return soft
}

// Admin serves handler's metrics at /metrics on addr until ctx is done. It
// returns the address it listens on once it listens; the error says why it
// cannot.
func Admin(ctx context.Context, addr string, metrics http.Handler, log *slog.Logger) (string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("ADMIN_ADDR: listen %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metrics)
	go func() {
		if err := httpx.Serve(ctx, ln, mux, log); err != nil {
			log.Error("admin server stopped", "err", err)
		}
	}()
	log.Info("metrics served", "addr", ln.Addr().String()+"/metrics")
	return ln.Addr().String(), nil
}

// start is Main without the process: the configuration comes from env and
// the logger from newLog. Tracing (OTEL_TRACES_*) and metrics (on
// ADMIN_ADDR) are set up before run and flushed after it.
func start[C Config](ctx context.Context, name string, env envconfig.Lookuper, newLog func(C) *slog.Logger,
	run func(context.Context, C, *slog.Logger) error) error {
	var cfg C
	if err := config.LoadFrom(ctx, &cfg, env); err != nil {
		return err
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	var tel Telemetry
	if err := config.LoadFrom(ctx, &tel, env); err != nil {
		return err
	}
	shutdown, err := otelx.Setup(ctx, name, tel.Config)
	if err != nil {
		return err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), CloseTimeout)
		defer cancel()
		_ = shutdown(sctx)
	}()
	metrics, stopMetrics, err := otelx.Metrics(name)
	if err != nil {
		return err
	}
	defer func() { _ = stopMetrics(context.Background()) }()
	log := newLog(cfg)
	if tel.MemoryLimit > 0 {
		log.Info("memory limit", "container_bytes", tel.MemoryLimit, "go_soft_limit_bytes", applyMemoryLimit(tel.MemoryLimit))
	}
	if tel.AdminAddr != "" {
		actx, cancel := context.WithCancel(ctx)
		defer cancel()
		if _, err := Admin(actx, tel.AdminAddr, metrics, log); err != nil {
			return err
		}
	}
	if err := run(ctx, cfg, log); err != nil {
		log.Error(name+" stopped", "err", err)
		return err
	}
	return nil
}
