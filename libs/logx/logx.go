// Package logx builds the JSON slog logger every binary uses.
package logx

import (
	"io"
	"log/slog"
	"os"
	"strings"
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
