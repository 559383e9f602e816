// Package ratelimit applies the gateway's rate limits, kept in Redis and
// shared by its replicas: RATE_LIMIT per token and per reader's address,
// and FAILED_AUTH_LIMIT unknown tokens per address.
package ratelimit

import (
	"context"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/docspub/platform/gateway/internal/auth"
	"github.com/docspub/platform/gateway/internal/throttle"
	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/httpx"
	"github.com/gin-gonic/gin"
	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
)

// Rate limit headers, set on every limited response.
const (
	headerLimit     = "X-RateLimit-Limit"
	headerRemaining = "X-RateLimit-Remaining"
	// headerReset is the number of seconds until the limit is whole again.
	headerReset = "X-RateLimit-Reset"
)

// A Limit is a rate limit: its name (in the refusals' log lines and
// metric) and the prefix of its keys in Redis (redis_rate prefixes them
// with "rate:").
type Limit struct{ name, prefix string }

var (
	// Token is RATE_LIMIT per token (keyed by its hash).
	Token = Limit{throttle.Token, "gateway:"}
	// Reader is RATE_LIMIT per client address of readers.
	Reader = Limit{throttle.Reader, "gateway:reader:"}
)

// Limiter applies the limits.
type Limiter struct {
	limiter *redis_rate.Limiter
	// rate is RATE_LIMIT and failedAuth FAILED_AUTH_LIMIT, per minute
	// (0: off).
	rate, failedAuth int
	throttled        *throttle.Log
	// redisFailed notes a Redis failure; the request then goes through.
	redisFailed func(ctx context.Context, what string, err error)
}

// New returns a limiter of rate requests and failedAuth unknown tokens per
// minute (0: no limit) on rdb, which logs its refusals in throttled.
func New(rdb *redis.Client, rate, failedAuth int, throttled *throttle.Log, redisFailed func(ctx context.Context, what string, err error)) *Limiter {
	return &Limiter{limiter: redis_rate.NewLimiter(rdb), rate: rate, failedAuth: failedAuth, throttled: throttled, redisFailed: redisFailed}
}

// Allow applies the rate limit l to key, a request of client (RATE_LIMIT
// per minute). Over the limit it answers 429 with Retry-After, notes the
// refusal (internal/throttle) and returns false. When Redis fails the
// request goes through.
func (g *Limiter) Allow(c *gin.Context, l Limit, key, client string) bool {
	if g.rate == 0 {
		return true
	}
	if err := g.Check(c.Request.Context(), l, key, client, c.Writer.Header().Set); err != nil {
		httpx.Error(c, err)
		return false
	}
	return true
}

// Check is Allow for any server: it sets the limit's headers with set
// and, over the limit, notes the refusal and returns the 429 to answer.
func (g *Limiter) Check(ctx context.Context, l Limit, key, client string, set func(name, value string)) error {
	if g.rate == 0 {
		return nil
	}
	limit := redis_rate.PerMinute(g.rate)
	res, err := g.limiter.Allow(ctx, l.prefix+key, limit)
	if err != nil {
		g.redisFailed(ctx, "rate limit", err)
		return nil
	}
	set(headerLimit, strconv.Itoa(limit.Rate))
	set(headerRemaining, strconv.Itoa(res.Remaining))
	set(headerReset, ceilSeconds(res.ResetAfter))
	if res.Allowed > 0 {
		return nil
	}
	retry := ceilSeconds(res.RetryAfter)
	if retry == "0" {
		retry = "1"
	}
	set("Retry-After", retry)
	g.throttled.Refused(ctx, l.name, key, client, limit.Rate)
	return apierr.New(http.StatusTooManyRequests,
		"rate limit of %d requests per minute exceeded; retry in %s s", limit.Rate, retry)
}

// On tells whether requests are limited (RATE_LIMIT is not 0).
func (g *Limiter) On() bool { return g.rate > 0 }

// ceilSeconds formats d as whole seconds, rounded up; negative is 0.
func ceilSeconds(d time.Duration) string {
	if d <= 0 {
		return "0"
	}
	return strconv.FormatInt(int64(math.Ceil(d.Seconds())), 10)
}

// failedAuthKey is the limiter key of a client address's unknown tokens.
func failedAuthKey(client string) string { return "gateway:authfail:" + client }

// AuthFailed counts an unknown token against the client address
// (FAILED_AUTH_LIMIT per minute) and returns the answer: auth.ErrUnknownToken
// (401) within the limit, a 429 with Retry-After over it. Only unknown tokens
// count and only they are refused: a valid token from the same address is
// resolved and served as usual. When Redis fails the answer is the 401.
func (g *Limiter) AuthFailed(ctx context.Context, client string) error {
	if g.failedAuth == 0 {
		return auth.ErrUnknownToken
	}
	res, err := g.limiter.Allow(ctx, failedAuthKey(client), redis_rate.PerMinute(g.failedAuth))
	if err != nil {
		g.redisFailed(ctx, "failed-auth limit", err)
		return auth.ErrUnknownToken
	}
	if res.Allowed > 0 {
		return auth.ErrUnknownToken
	}
	g.throttled.Refused(ctx, throttle.FailedAuth, client, client, g.failedAuth)
	retry := max(res.RetryAfter, time.Second)
	return apierr.TooMany(retry, "too many unknown tokens from your address; retry in %s s", ceilSeconds(retry))
}
