package gateway

import (
	"context"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/httpx"
	"github.com/gin-gonic/gin"
	"github.com/go-redis/redis_rate/v10"
)

// Rate limit headers, set on every limited response.
const (
	headerLimit     = "X-RateLimit-Limit"
	headerRemaining = "X-RateLimit-Remaining"
	// headerReset is the number of seconds until the limit is whole again.
	headerReset = "X-RateLimit-Reset"
)

// allow applies the per-token rate limit. Over the limit it answers 429 with
// Retry-After and returns false. When Redis fails the request goes through.
func (g *Gateway) allow(c *gin.Context, hash string) bool {
	if g.cfg.RateLimit == 0 {
		return true
	}
	ctx := c.Request.Context()
	limit := redis_rate.PerMinute(g.cfg.RateLimit)
	// redis_rate prefixes its keys with "rate:".
	res, err := g.limiter.Allow(ctx, "gateway:"+hash, limit)
	if err != nil {
		g.redisFailed(ctx, "rate limit", err)
		return true
	}
	h := c.Writer.Header()
	h.Set(headerLimit, strconv.Itoa(limit.Rate))
	h.Set(headerRemaining, strconv.Itoa(res.Remaining))
	h.Set(headerReset, ceilSeconds(res.ResetAfter))
	if res.Allowed > 0 {
		return true
	}
	retry := ceilSeconds(res.RetryAfter)
	if retry == "0" {
		retry = "1"
	}
	h.Set("Retry-After", retry)
	httpx.Error(c, apierr.New(http.StatusTooManyRequests,
		"rate limit of %d requests per minute exceeded; retry in %s s", limit.Rate, retry))
	return false
}

// ceilSeconds formats d as whole seconds, rounded up; negative is 0.
func ceilSeconds(d time.Duration) string {
	if d <= 0 {
		return "0"
	}
	return strconv.FormatInt(int64(math.Ceil(d.Seconds())), 10)
}

// failedAuthKey is the limiter key of a client address's unknown tokens.
func failedAuthKey(client string) string { return "gateway:authfail:" + client }

// authFailed counts an unknown token against the client address
// (FAILED_AUTH_LIMIT per minute) and returns the answer: errUnknownToken
// (401) within the limit, a 429 with Retry-After over it. Only unknown tokens
// count and only they are refused: a valid token from the same address is
// resolved and served as usual. When Redis fails the answer is the 401.
func (g *Gateway) authFailed(ctx context.Context, client string) error {
	if g.cfg.FailedAuthLimit == 0 {
		return errUnknownToken
	}
	res, err := g.limiter.Allow(ctx, failedAuthKey(client), redis_rate.PerMinute(g.cfg.FailedAuthLimit))
	if err != nil {
		g.redisFailed(ctx, "failed-auth limit", err)
		return errUnknownToken
	}
	if res.Allowed > 0 {
		return errUnknownToken
	}
	retry := max(res.RetryAfter, time.Second)
	return apierr.TooMany(retry, "too many unknown tokens from your address; retry in %s s", ceilSeconds(retry))
}
