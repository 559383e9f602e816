// Package throttle makes the gateway's rate limit refusals visible without
// a line per request: every refusal counts in the gateway.rate_limited
// metric (by limit), and the first refusal of a key in a window is logged
// as a warning with the client address, at most maxLines a window.
//
// Redis failures, which the gateway survives, are logged the same way:
// at most once per redisWarnEvery while Redis is down (RedisWarnings).
package throttle

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/docspub/platform/libs/sizedcache"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// The limits whose refusals are logged, by name (in the log lines and the
// metric's limit attribute).
const (
	// Token is the rate limit per token, keyed by the token's hash.
	Token = "token"
	// Reader is the rate limit per client address of readers.
	Reader = "reader"
	// FailedAuth is the limit of unknown tokens per client address.
	FailedAuth = "failed_auth"
)

// The bounds of the refusals' log.
const (
	// window is the rate limits' window: a key refused again within it is
	// not logged again.
	window = time.Minute
	// maxLines bounds the refusals logged in a window, whatever the
	// number of keys refused (a flood from many addresses); the others
	// are counted in one line after the window.
	maxLines = 100
	// maxKeys bounds the keys remembered as logged.
	maxKeys = 1024
)

// Log is the refusals' log.
type Log struct {
	log     *slog.Logger
	counter metric.Int64Counter

	mu sync.Mutex
	// logged is when each limit and key was last logged.
	logged *sizedcache.Cache[string, time.Time]
	// since is when the current window of lines began; lines were logged
	// in it, and unlogged refusals were not for want of lines.
	since    time.Time
	lines    int
	unlogged int
}

// New returns a log of refusals that writes to log.
func New(log *slog.Logger) *Log {
	counter, _ := otel.Meter("gateway").Int64Counter("gateway.rate_limited",
		metric.WithDescription("requests refused with 429 by a rate limit (limit: reader, token, failed_auth)"))
	logged := sizedcache.New[string, time.Time](maxKeys, 0)
	return &Log{log: log, counter: counter, logged: logged}
}

// limitAttrs are the metric's attribute sets, by limit (precomputed).
var limitAttrs = map[string]metric.AddOption{}

func init() {
	for _, name := range []string{Token, Reader, FailedAuth} {
		limitAttrs[name] = metric.WithAttributeSet(attribute.NewSet(attribute.String("limit", name)))
	}
}

// Refused notes that limit (of rate per minute) refused key, a request
// of client: counted always, logged once per key and window.
func (t *Log) Refused(ctx context.Context, limit, key, client string, rate int) {
	t.counter.Add(ctx, 1, limitAttrs[limit])
	log, unlogged := t.shouldLog(limit+"\x00"+key, time.Now())
	if unlogged > 0 {
		t.log.WarnContext(ctx, "rate limits refused more clients than were logged in the last window",
			"unlogged_refusals", unlogged, "window", window.String())
	}
	if !log {
		return
	}
	attrs := []any{"limit", limit, "client", client, "rate_per_minute", rate, "window", window.String()}
	if limit == Token {
		attrs = append(attrs, "token_hash", key[:min(len(key), 12)])
	}
	t.log.WarnContext(ctx, "rate limit exceeded; further refusals of this key in the window are not logged", attrs...)
}

// shouldLog reports whether the refusal of k at now is to be logged, and,
// when a window has just ended with refusals left unlogged, how many.
func (t *Log) shouldLog(k string, now time.Time) (log bool, unloggedBefore int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if now.Sub(t.since) >= window {
		unloggedBefore = t.unlogged
		t.since, t.lines, t.unlogged = now, 0, 0
	}
	if at, ok := t.logged.Get(k); ok && now.Sub(at) < window {
		return false, unloggedBefore
	}
	if t.lines >= maxLines {
		t.unlogged++
		return false, unloggedBefore
	}
	t.logged.Set(k, now, 0)
	t.lines++
	return true, unloggedBefore
}
