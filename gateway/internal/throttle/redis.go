package throttle

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"
)

// redisWarnEvery bounds how often a Redis failure is logged while Redis is down.
const redisWarnEvery = 10 * time.Second

// RedisWarnings logs the gateway's Redis failures (rate limits failing
// open, tokens resolved through identity) at most once per redisWarnEvery.
type RedisWarnings struct {
	log *slog.Logger
	// last is when a failure was last logged (Unix nanoseconds).
	last atomic.Int64
}

// NewRedisWarnings returns warnings logged to log.
func NewRedisWarnings(log *slog.Logger) *RedisWarnings {
	return &RedisWarnings{log: log}
}

// Failed logs a Redis failure of the operation what, unless one was
// logged less than redisWarnEvery ago.
func (w *RedisWarnings) Failed(ctx context.Context, what string, err error) {
	if w.shouldLog(time.Now()) {
		w.log.WarnContext(ctx, "redis failed; going on without it", "op", what, "err", err)
	}
}

// shouldLog reports whether a failure at now is logged, and if so
// remembers it.
func (w *RedisWarnings) shouldLog(now time.Time) bool {
	n := now.UnixNano()
	last := w.last.Load()
	return n-last >= int64(redisWarnEvery) && w.last.CompareAndSwap(last, n)
}
