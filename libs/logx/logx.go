// Package logx builds the JSON slog logger every binary uses.
package logx

import (
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
)

// New returns a JSON logger to stdout at level ("debug", "info", "warn", "error"),
// tagged with the service name.
func New(service, level string) *slog.Logger {
	return NewTo(os.Stdout, service, level)
}

// NewTo is New writing to w.
func NewTo(w io.Writer, service, level string) *slog.Logger {
	var l slog.Level
	switch strings.ToLower(level) {
	case "debug":
		l = slog.LevelDebug
	case "warn":
		l = slog.LevelWarn
	case "error":
		l = slog.LevelError
	default:
		l = slog.LevelInfo
	}
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: l})).With("service", service)
}

// Discard returns a logger that writes nothing, for tests and benchmarks.
func Discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

// TB is the part of testing.TB that ForTest uses.
type TB interface {
	Logf(format string, args ...any)
	Cleanup(func())
}

// ForTest returns a logger that writes errors to the test's log, so a test
// that sees a 500 also shows why. It stops writing once the test's cleanups
// have run (a goroutine still logging then must not fail the test binary).
func ForTest(t TB) *slog.Logger {
	w := &testWriter{t: t}
	t.Cleanup(w.stop)
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelError}))
}

type testWriter struct {
	mu      sync.Mutex
	t       TB
	stopped bool
}

func (w *testWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.stopped {
		w.t.Logf("%s", strings.TrimSuffix(string(p), "\n"))
	}
	return len(p), nil
}

func (w *testWriter) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
}
