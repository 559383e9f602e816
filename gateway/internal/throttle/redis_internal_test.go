package throttle

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// A Redis failure is logged at most once per redisWarnEvery.
func TestRedisWarningsBounded(t *testing.T) {
	var buf bytes.Buffer
	w := NewRedisWarnings(slog.New(slog.NewTextHandler(&buf, nil)))
	w.Failed(context.Background(), "rate limit", errors.New("connection refused"))
	w.Failed(context.Background(), "token cache", errors.New("connection refused"))
	if lines := strings.Count(buf.String(), "\n"); lines != 1 || !strings.Contains(buf.String(), "op=\"rate limit\"") {
		t.Fatalf("two failures at once logged %d lines: %s", lines, buf.String())
	}
	t0 := time.Unix(0, w.last.Load())
	if w.shouldLog(t0.Add(redisWarnEvery - time.Millisecond)) {
		t.Error("a failure within redisWarnEvery logged")
	}
	if !w.shouldLog(t0.Add(redisWarnEvery)) {
		t.Error("a failure redisWarnEvery later not logged")
	}
}
