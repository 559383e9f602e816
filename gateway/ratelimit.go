package gateway

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
)

// Rate limit headers, set on every limited response.
const (
	headerLimit     = "X-RateLimit-Limit"
	headerRemaining = "X-RateLimit-Remaining"
	// headerReset is the number of seconds until the limit is whole again.
	headerReset = "X-RateLimit-Reset"
)

// A rate limit: its name (in the refusals' log lines and metric) and the
// prefix of its keys in Redis (redis_rate prefixes them with "rate:").
type rateLimit struct{ name, prefix string }

var (
	// tokenLimit is RATE_LIMIT per token (keyed by its hash).
	tokenLimit = rateLimit{throttle.Token, "gateway:"}
	// readerLimit is RATE_LIMIT per client address of readers.
	readerLimit = rateLimit{throttle.Reader, "gateway:reader:"}
)

// allow applies the rate limit l to key (RATE_LIMIT per minute). Over the
// limit it answers 429 with Retry-After, notes the refusal (internal/throttle)
// and returns false. When Redis fails the request goes through.
func (g *Gateway) allow(c *gin.Context, l rateLimit, key string) bool {
	if g.cfg.RateLimit == 0 {
		return true
	}
	ctx := c.Request.Context()
	limit := redis_rate.PerMinute(g.cfg.RateLimit)
	res, err := g.limiter.Allow(ctx, l.prefix+key, limit)
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
	g.throttled.Refused(ctx, l.name, key, clientOf(c), limit.Rate)
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
// (FAILED_AUTH_LIMIT per minute) and returns the answer: auth.ErrUnknownToken
// (401) within the limit, a 429 with Retry-After over it. Only unknown tokens
// count and only they are refused: a valid token from the same address is
// resolved and served as usual. When Redis fails the answer is the 401.
func (g *Gateway) authFailed(ctx context.Context, client string) error {
	if g.cfg.FailedAuthLimit == 0 {
		return auth.ErrUnknownToken
	}
	res, err := g.limiter.Allow(ctx, failedAuthKey(client), redis_rate.PerMinute(g.cfg.FailedAuthLimit))
	if err != nil {
		g.redisFailed(ctx, "failed-auth limit", err)
		return auth.ErrUnknownToken
	}
	if res.Allowed > 0 {
		return auth.ErrUnknownToken
	}
	g.throttled.Refused(ctx, throttle.FailedAuth, client, client, g.cfg.FailedAuthLimit)
	retry := max(res.RetryAfter, time.Second)
	return apierr.TooMany(retry, "too many unknown tokens from your address; retry in %s s", ceilSeconds(retry))
}
