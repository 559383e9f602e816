// Package auth resolves the gateway's API tokens to principals: from a
// Redis cache shared by the gateway's replicas, or from identity, whose
// answers it caches, and drops cached tokens when identity says they
// changed (Forget, ForgetUser, and the identity.events handler HandleEvent).
package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/internalapi/identityapi"
	"github.com/docspub/platform/libs/internalclient"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/quota"
	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/singleflight"
)

// Redis keys. A token is only ever stored as its hash.
const (
	tokenKeyPrefix  = "gateway:token:"       // + TokenHash(raw): the resolved principal, or unknownMark
	userKeyPrefix   = "gateway:user:"        // + user id: set of the user's cached token hashes
	forgotKeyPrefix = "gateway:forgot:"      // + TokenHash(raw): when Forget dropped it (Redis time, µs)
	userForgotKey   = "gateway:forgot:user:" // + user id: when ForgetUser dropped the user's tokens
	unknownMark     = "!"
)

// Bounds of the resolutions.
const (
	// negativeTTL is how long an unknown token stays cached as unknown, to
	// blunt floods of guessed tokens.
	negativeTTL = 5 * time.Second
	// MaxResolveTime bounds a token resolution by identity (the identity
	// client's timeout).
	MaxResolveTime = 10 * time.Second
	// maxResolveWait bounds the wait for a turn to resolve (resolveLimits).
	maxResolveWait = 5 * time.Second
)

// resolveLimits bound the token resolutions by identity in progress at once:
// per client address (so that a client flooding unknown tokens queues only
// itself) and in all. Beyond the queue, or after maxResolveWait, a request
// whose token is not cached gets a 429.
var resolveLimits = quota.Limits{PerKey: 8, Queue: 64, Total: 32, MaxWait: maxResolveWait}

// forgetMemory is how long a drop is remembered: longer than any resolution
// that started before it may take (MaxResolveTime plus the wait for a turn),
// so that such a resolution's answer, which may predate the revocation, is
// not cached.
const forgetMemory = MaxResolveTime + maxResolveWait + 5*time.Second

// Tokens resolves and caches tokens.
type Tokens struct {
	rdb      *redis.Client
	identity *internalclient.Client
	// cacheTTL is how long a resolved token stays cached.
	cacheTTL time.Duration
	// redisFailed notes a Redis failure (the gateway logs it, rarely).
	redisFailed func(ctx context.Context, what string, err error)
	resolves    singleflight.Group
	// resolving bounds the resolutions in progress (resolveLimits), by
	// client address.
	resolving *quota.Limiter
}

// New returns the tokens resolved by identity (a client of the identity
// service, MaxResolveTime its timeout at most) and cached in rdb for
// cacheTTL; redisFailed is told of each Redis failure, after which the
// tokens go on without the cache.
func New(rdb *redis.Client, identity *internalclient.Client, cacheTTL time.Duration, redisFailed func(ctx context.Context, what string, err error)) *Tokens {
	return &Tokens{rdb: rdb, identity: identity, cacheTTL: cacheTTL, redisFailed: redisFailed,
		resolving: quota.New("token resolutions", resolveLimits)}
}

// TokenHash is the hex SHA-256 of a raw API token: the only form in which the
// gateway stores a token, and the hash Forget expects.
func TokenHash(raw string) string {
	sum := sha256.Sum256([]byte(raw))
	return hex.EncodeToString(sum[:])
}

// resolution is identity's answer for a known token, and the cached value.
type resolution = identityapi.Resolution

func principalOf(r resolution) internaltoken.Principal {
	return internaltoken.Principal{UserID: r.UserID, Roles: r.Roles, TokenID: r.TokenID}
}

// ErrUnknownToken is the answer for a token identity does not know.
var ErrUnknownToken = apierr.Unauthorized("unknown or revoked token")

// Authenticate returns the principal of a raw token: from the Redis cache, or
// from identity (concurrent misses of one token share one call, and a client
// address has at most a few calls in progress: see resolveLimits). An unknown
// token is ErrUnknownToken.
func (g *Tokens) Authenticate(ctx context.Context, raw, hash, client string) (internaltoken.Principal, error) {
	res, known, hit := g.cached(ctx, hash)
	if !hit {
		v, err, _ := g.resolves.Do(hash, func() (any, error) {
			// Shared by every waiter: not cancelled by the first one's client;
			// bounded by the wait for a turn and the client's timeout.
			ctx := context.WithoutCancel(ctx)
			release, err := g.resolving.Acquire(ctx, client)
			if err != nil {
				return nil, apierr.TooMany(time.Second, "too many token checks in progress from your address; retry shortly")
			}
			defer release()
			return g.resolve(ctx, raw, hash)
		})
		if err != nil {
			return internaltoken.Principal{}, err
		}
		res = v.(resolution)
		known = res.UserID != ""
	}
	if !known {
		return internaltoken.Principal{}, ErrUnknownToken
	}
	return principalOf(res), nil
}

// cached reads the cache. hit is false on a miss or when Redis fails.
func (g *Tokens) cached(ctx context.Context, hash string) (res resolution, known, hit bool) {
	val, err := g.rdb.Get(ctx, tokenKeyPrefix+hash).Result()
	switch {
	case errors.Is(err, redis.Nil):
		return resolution{}, false, false
	case err != nil:
		g.redisFailed(ctx, "read token cache", err)
		return resolution{}, false, false
	case val == unknownMark:
		return resolution{}, false, true
	}
	if err := json.Unmarshal([]byte(val), &res); err != nil || res.UserID == "" {
		return resolution{}, false, false
	}
	return res, true, true
}

// cacheUnlessForgotten caches a resolution unless Forget or ForgetUser
// dropped the token or its user at or after start (Redis time, µs): the
// answer may then predate the change and must not outlive it.
var cacheUnlessForgotten = redis.NewScript(`
local start = tonumber(ARGV[4])
for i = 3, 4 do
  local at = redis.call("GET", KEYS[i])
  if at and tonumber(at) >= start then return 0 end
end
redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[2])
redis.call("SADD", KEYS[2], ARGV[3])
-- refreshed with each added token, so the set outlives all its members
redis.call("PEXPIRE", KEYS[2], ARGV[2])
return 1
`)

// resolve asks identity about a token and caches the answer. An unknown token
// yields a zero resolution and no error.
func (g *Tokens) resolve(ctx context.Context, raw, hash string) (resolution, error) {
	start, err := g.redisTime(ctx)
	if err != nil {
		g.redisFailed(ctx, "read redis time", err)
	}
	res, err := g.askIdentity(ctx, raw)
	if err != nil {
		return resolution{}, err
	}
	if res.UserID == "" {
		if err := g.rdb.Set(ctx, tokenKeyPrefix+hash, unknownMark, negativeTTL).Err(); err != nil {
			g.redisFailed(ctx, "cache unknown token", err)
		}
		return resolution{}, nil
	}
	if start == 0 {
		return res, nil // Redis is failing: nothing to cache in
	}
	val, err := json.Marshal(res)
	if err != nil {
		return resolution{}, fmt.Errorf("encode resolution: %w", err)
	}
	keys := []string{tokenKeyPrefix + hash, userKeyPrefix + res.UserID, forgotKeyPrefix + hash, userForgotKey + res.UserID}
	err = cacheUnlessForgotten.Run(ctx, g.rdb, keys, val, g.cacheTTL.Milliseconds(), hash, start).Err()
	if err != nil {
		g.redisFailed(ctx, "cache token", err)
	}
	return res, nil
}

// redisTime is Redis's clock in microseconds: the one clock that every
// gateway replica sharing the cache reads alike.
func (g *Tokens) redisTime(ctx context.Context) (int64, error) {
	t, err := g.rdb.Time(ctx).Result()
	if err != nil {
		return 0, fmt.Errorf("redis time: %w", err)
	}
	return t.UnixMicro(), nil
}

// askIdentity calls identity's resolve endpoint with a gateway service token.
// An unknown token yields a zero resolution; a failure is a 503.
func (g *Tokens) askIdentity(ctx context.Context, raw string) (resolution, error) {
	var res resolution
	err := g.identity.Do(ctx, internalclient.Request{Method: http.MethodPost, Path: identityapi.ResolvePath,
		JSON: identityapi.ResolveRequest{Token: raw}, What: "token"}, &res, 1<<20)
	switch internalclient.StatusOf(err) {
	case http.StatusUnauthorized, http.StatusNotFound:
		return resolution{}, nil
	}
	if err != nil {
		return resolution{}, err
	}
	if res.UserID == "" {
		return resolution{}, fmt.Errorf("forward to identity: token resolution without userId: %w",
			apierr.New(http.StatusServiceUnavailable, "service identity unavailable"))
	}
	return res, nil
}

// Forget drops one cached token, by TokenHash of the raw token. A
// resolution of the token already in progress is not cached.
func (g *Tokens) Forget(ctx context.Context, tokenHash string) error {
	now, err := g.redisTime(ctx)
	if err != nil {
		return fmt.Errorf("forget token: %w", err)
	}
	_, err = g.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, forgotKeyPrefix+tokenHash, now, forgetMemory)
		p.Del(ctx, tokenKeyPrefix+tokenHash)
		return nil
	})
	if err != nil {
		return fmt.Errorf("forget token: %w", err)
	}
	return nil
}

// ForgetUser drops every cached token of a user, so that the next request
// resolves the user's current roles through identity. Resolutions of the
// user's tokens already in progress are not cached.
func (g *Tokens) ForgetUser(ctx context.Context, userID string) error {
	now, err := g.redisTime(ctx)
	if err != nil {
		return fmt.Errorf("forget user %s: %w", userID, err)
	}
	key := userKeyPrefix + userID
	var members *redis.StringSliceCmd
	_, err = g.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, userForgotKey+userID, now, forgetMemory)
		members = p.SMembers(ctx, key)
		p.Del(ctx, key)
		return nil
	})
	if err != nil {
		return fmt.Errorf("forget user %s: %w", userID, err)
	}
	hashes := members.Val()
	if len(hashes) == 0 {
		return nil
	}
	_, err = g.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, h := range hashes {
			p.Del(ctx, tokenKeyPrefix+h)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("forget user %s: %w", userID, err)
	}
	return nil
}
