package ratelimit_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/docspub/platform/gateway/internal/auth"
	"github.com/docspub/platform/gateway/internal/ratelimit"
	"github.com/docspub/platform/gateway/internal/throttle"
	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/embedded"
	"github.com/docspub/platform/libs/logx"
	"github.com/gin-gonic/gin"
	"github.com/redis/go-redis/v9"
)

func newRedis(t *testing.T) (*embedded.Redis, *redis.Client) {
	t.Helper()
	mr, err := embedded.StartRedis("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mr.Close)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr(), MaxRetries: -1})
	t.Cleanup(func() { _ = rdb.Close() })
	return mr, rdb
}

// allow runs one request through Allow and returns its recorder.
func allow(l *ratelimit.Limiter, limit ratelimit.Limit, key string) (*httptest.ResponseRecorder, bool) {
	w := httptest.NewRecorder()
	c, _ := gin.CreateTestContext(w)
	c.Request = httptest.NewRequest(http.MethodGet, "/v1/orgs", nil)
	ok := l.Allow(c, limit, key, "192.0.2.1")
	return w, ok
}

func TestAllow(t *testing.T) {
	_, rdb := newRedis(t)
	var failures atomic.Int64
	l := ratelimit.New(rdb, 2, 0, throttle.New(logx.Discard()), func(context.Context, string, error) { failures.Add(1) })
	for i := range 2 {
		if w, ok := allow(l, ratelimit.Token, "hash1"); !ok || w.Header().Get("X-RateLimit-Limit") != "2" {
			t.Fatalf("request %d refused (headers %v)", i+1, w.Header())
		}
	}
	w, ok := allow(l, ratelimit.Token, "hash1")
	if ok || w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") == "" {
		t.Errorf("third request: allowed %v, %d, Retry-After %q; want a 429 with Retry-After", ok, w.Code, w.Header().Get("Retry-After"))
	}
	if _, ok := allow(l, ratelimit.Reader, "hash1"); !ok {
		t.Error("the same key of another limit refused")
	}
	if _, ok := allow(l, ratelimit.Token, "hash2"); !ok {
		t.Error("another key refused")
	}
	if n := failures.Load(); n != 0 {
		t.Errorf("%d Redis failures", n)
	}
}

func TestAuthFailed(t *testing.T) {
	_, rdb := newRedis(t)
	l := ratelimit.New(rdb, 0, 1, throttle.New(logx.Discard()), func(context.Context, string, error) {})
	ctx := context.Background()
	if err := l.AuthFailed(ctx, "192.0.2.1"); !errors.Is(err, auth.ErrUnknownToken) {
		t.Errorf("first unknown token: %v, want ErrUnknownToken", err)
	}
	var e *apierr.Error
	if err := l.AuthFailed(ctx, "192.0.2.1"); !errors.As(err, &e) || e.Status != http.StatusTooManyRequests || e.RetryAfter <= 0 {
		t.Errorf("second unknown token: %v, want a 429", err)
	}
	if err := l.AuthFailed(ctx, "192.0.2.2"); !errors.Is(err, auth.ErrUnknownToken) {
		t.Errorf("another address: %v, want ErrUnknownToken", err)
	}
}

// TestRedisDown: without Redis the requests go through, and the failure is
// noted.
func TestRedisDown(t *testing.T) {
	mr, rdb := newRedis(t)
	mr.Close()
	var failures atomic.Int64
	l := ratelimit.New(rdb, 1, 1, throttle.New(logx.Discard()), func(context.Context, string, error) { failures.Add(1) })
	for range 3 {
		if _, ok := allow(l, ratelimit.Token, "hash1"); !ok {
			t.Fatal("refused while Redis is down")
		}
	}
	if err := l.AuthFailed(context.Background(), "192.0.2.1"); !errors.Is(err, auth.ErrUnknownToken) {
		t.Errorf("unknown token while Redis is down: %v, want ErrUnknownToken", err)
	}
	if n := failures.Load(); n != 4 {
		t.Errorf("%d Redis failures noted, want 4", n)
	}
}
