package gateway

import (
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
func failedAuthKey(c *gin.Context) string { return "gateway:authfail:" + c.RemoteIP() }

// authBlocked reports whether the client address has used up its unknown
// tokens for now (FAILED_AUTH_LIMIT), without counting this request. The
// address is the connection's peer: forwarded-for headers are not trusted.
func (g *Gateway) authBlocked(c *gin.Context) bool {
	if g.cfg.FailedAuthLimit == 0 {
		return false
	}
	res, err := g.limiter.AllowN(c.Request.Context(), failedAuthKey(c), redis_rate.PerMinute(g.cfg.FailedAuthLimit), 0)
	if err != nil {
		g.redisFailed(c.Request.Context(), "failed-auth limit", err)
		return false
	}
	return res.Remaining < 1
}

// authFailed counts an unknown token against the client address.
func (g *Gateway) authFailed(c *gin.Context) {
	if g.cfg.FailedAuthLimit == 0 {
		return
	}
	if _, err := g.limiter.Allow(c.Request.Context(), failedAuthKey(c), redis_rate.PerMinute(g.cfg.FailedAuthLimit)); err != nil {
		g.redisFailed(c.Request.Context(), "failed-auth limit", err)
	}
}
