package httpx

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"
)

// ShutdownTimeout bounds how long in-flight requests may drain on shutdown.
const ShutdownTimeout = 15 * time.Second

// Linger is how long a deployed component told to stop still serves
// before it drains (Lingering).
const Linger = 2 * time.Second

// ReadTimeout bounds the reading of a whole request, its body included
// (the longest upload); WriteTimeout the writing of a whole response (the
// longest download or export). A proxy in front of a server waits at least
// as long (the Ingress's proxy timeouts: deployments/manifests checks them).
const (
	ReadTimeout  = 60 * time.Second
	WriteTimeout = 120 * time.Second
)

// NewServer returns an http.Server with read, write and idle timeouts.
func NewServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       ReadTimeout,
		WriteTimeout:      WriteTimeout,
		IdleTimeout:       120 * time.Second,
	}
}

// Serve serves h on ln until ctx is done, then drains in-flight requests.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, log *slog.Logger) error {
	return ServeLingering(ctx, ln, h, log, Lingering{})
}

// Lingering is how a server told to stop keeps serving before it drains.
// Every answer in that time asks its client to close the connection
// (Connection: close): a client's keep-alive connection leaves after the
// request it carries, rather than being closed by the drain while the
// client sends its next request on it (a POST lost so cannot be sent
// again).
type Lingering struct {
	// Withdraw, when set, runs first (discovery's deregistration); the
	// server then lingers for all of For (resolvers may have named it
	// just before).
	Withdraw func()
	// For is how long it lingers at most; without Withdraw, lingering
	// ends once no connection is open. 0: it drains at once.
	For time.Duration
}

// ServeLingering is Serve that lingers as l says once ctx is done.
func ServeLingering(ctx context.Context, ln net.Listener, h http.Handler, log *slog.Logger, l Lingering) error {
	var st lingering
	srv := NewServer(h)
	if l.For > 0 { // only a server that lingers pays for it on each request
		srv.Handler, srv.ConnState = st.handler(h), st.track
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	log.InfoContext(ctx, "listening", "addr", ln.Addr().String())
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	st.closing.Store(true)
	if l.Withdraw != nil {
		l.Withdraw()
	}
	st.linger(l.For, l.Withdraw != nil, errc)
	sctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	log.Info("stopped serving", "addr", ln.Addr().String())
	return nil
}

// lingering is a server's state once told to stop: closing makes every
// response close its connection; open counts the connections.
type lingering struct {
	closing atomic.Bool
	open    atomic.Int64
}

func (l *lingering) handler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if l.closing.Load() && r.ProtoMajor == 1 {
			w.Header().Set("Connection", "close")
		}
		h.ServeHTTP(w, r)
	})
}

func (l *lingering) track(_ net.Conn, s http.ConnState) {
	switch s {
	case http.StateNew:
		l.open.Add(1)
	case http.StateClosed, http.StateHijacked:
		l.open.Add(-1)
	}
}

// linger waits d, or, unless full, until no connection is open; it ends
// at once when the server already stopped (errc holds its error, put back
// for the caller).
func (l *lingering) linger(d time.Duration, full bool, errc chan error) {
	if d <= 0 {
		return
	}
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	var tick <-chan time.Time // looks at the open connections, unless full
	if !full {
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		tick = t.C
	}
	for full || l.open.Load() > 0 {
		select {
		case <-deadline.C:
			return
		case err := <-errc:
			errc <- err
			return
		case <-tick:
		}
	}
}

// ListenAndServe listens on addr and calls Serve.
func ListenAndServe(ctx context.Context, addr string, h http.Handler, log *slog.Logger) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", addr, err)
	}
	return Serve(ctx, ln, h, log)
}
