package gateway

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/docspub/platform/gateway/internal/clientip"
	"github.com/docspub/platform/gateway/internal/customtls"
	"github.com/docspub/platform/gateway/internal/route"
	"github.com/docspub/platform/libs/config"
	"github.com/docspub/platform/libs/discovery"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/redis/go-redis/v9"
)

// Config is the gateway's configuration, read from the environment.
type Config struct {
	// Addr is the listen address.
	Addr string `env:"ADDR, default=127.0.0.1:8080"`
	// ReaderAddr, when set, is a second listen address for published
	// sites' readers alone (GET and HEAD outside /v1), served by a
	// faster server (internal/edge): route the published sites' hosts
	// and paths there, the API to Addr. Empty: readers on Addr only.
	ReaderAddr string `env:"READER_ADDR"`
	// PublicURL is the gateway's URL as clients reach it (scheme, host and
	// any path prefix, without /v1): the API document it serves names it as
	// the server.
	PublicURL string `env:"PUBLIC_URL, default=http://127.0.0.1:8080"`
	// Upstreams is the static service list: "identity=http://127.0.0.1:8081,content=...".
	Upstreams string `env:"UPSTREAMS, default=identity=http://127.0.0.1:8081,content=http://127.0.0.1:8082,sites=http://127.0.0.1:8083,insights=http://127.0.0.1:8084,integrations=http://127.0.0.1:8085"`
	// RedisURL locates the Redis that holds the token cache and the rate
	// limits. Masked in logs: it may carry a password.
	RedisURL string `env:"REDIS_URL, default=redis://127.0.0.1:6379/0" secret:"true"`
	// InternalTokenSecret signs the internal tokens (at least 32 bytes).
	InternalTokenSecret string `env:"INTERNAL_TOKEN_SECRET" secret:"true"`
	// InternalTokenKeys is the rotating key set (INTERNAL_TOKEN_KEYS, INTERNAL_TOKEN_KEY_ID).
	InternalTokenKeys internaltoken.Keys
	// AuthCacheTTL is how long a resolved token stays cached.
	AuthCacheTTL time.Duration `env:"AUTH_CACHE_TTL, default=30s"`
	// RateLimit is the number of requests per token per minute; 0 turns it off.
	RateLimit int `env:"RATE_LIMIT, default=600"`
	// FailedAuthLimit is the number of unknown tokens one client address may
	// present per minute; over it, unknown tokens get a 429 instead of a 401
	// (valid tokens are served as usual). 0 turns it off.
	FailedAuthLimit int `env:"FAILED_AUTH_LIMIT, default=30"`
	// TrustedProxies lists the addresses (CIDR or single IP) of the proxies
	// in front of the gateway whose X-Forwarded-For (or X-Real-IP) names the
	// client: the client address is the right-most one that is not a trusted
	// proxy. With ProxyProtocol, they are the peers whose PROXY header is
	// believed. Empty: the connection's peer is the client (clientip).
	TrustedProxies []string `env:"TRUSTED_PROXIES"`
	// TrustedHops is, instead of TrustedProxies, the number of proxies in
	// front of the gateway whose addresses are not known (a CDN): the
	// client is the TrustedHops-th X-Forwarded-For entry from the right.
	// 0: none.
	TrustedHops int `env:"TRUSTED_HOPS, default=0"`
	// ProxyProtocol makes the listener read a PROXY protocol header (v1 or
	// v2) from TrustedProxies, which it then requires: the load balancers
	// that send one. A PROXY header from anyone else closes the connection.
	ProxyProtocol bool `env:"PROXY_PROTOCOL, default=false"`
	// Kafka is the cluster of identity.events, whose token and member
	// events drop cached token resolutions (KAFKA_BROKERS, KAFKA_TLS*,
	// KAFKA_SASL_*, KAFKA_TOPIC*).
	Kafka kafkax.Config
	// UpstreamTimeout bounds the wait for a service's response headers.
	UpstreamTimeout time.Duration `env:"UPSTREAM_TIMEOUT, default=30s"`
	// MaxBodyBytes bounds a request body.
	MaxBodyBytes int64 `env:"MAX_BODY_BYTES, default=10485760"`
	// ReaderCacheBytes bounds the cache of published sites' public answers
	// the gateway answers readers from (pagecache); 0 turns it off.
	ReaderCacheBytes int64 `env:"READER_CACHE_BYTES, default=67108864"`
	// ReaderCacheTTL is how long a cached answer is served: the most a
	// change that does not pass through this gateway (a merge's event, a
	// Git sync, another replica's write) waits to show.
	ReaderCacheTTL time.Duration `env:"READER_CACHE_TTL, default=250ms"`
	// CustomTLS serves sites' custom hostnames over TLS with certificates
	// obtained on demand (TLS_ADDR, ACME_*; internal/customtls). Off by default.
	CustomTLS CustomTLSConfig
	// LogLevel is debug, info, warn or error.
	LogLevel string `env:"LOG_LEVEL, default=info"`
	// Discovery is DISCOVERY (static: UPSTREAMS; consul: healthy instances
	// by service name), CONSUL_HTTP_ADDR and CONSUL_HTTP_TOKEN.
	Discovery discovery.Config
}

// Validate reports every problem of the configuration at once.
func (c Config) Validate() error {
	var p config.Problems
	if c.Addr == "" {
		p.Addf("ADDR: must not be empty")
	}
	p.HTTPURL("PUBLIC_URL", c.PublicURL)
	if ups, err := discovery.ParseStatic(c.Upstreams); err != nil {
		p.Addf("UPSTREAMS: %v", err)
	} else if _, ok := ups[route.Identity]; !ok {
		p.Addf("UPSTREAMS: must name %s (tokens are resolved there)", route.Identity)
	}
	if _, err := redis.ParseURL(c.RedisURL); err != nil {
		p.Addf("REDIS_URL: %v", err)
	}
	c.InternalTokenKeys.Check(&p, c.InternalTokenSecret)
	if c.AuthCacheTTL <= 0 {
		p.Addf("AUTH_CACHE_TTL: must be positive")
	}
	if c.ReaderCacheBytes < 0 {
		p.Addf("READER_CACHE_BYTES: must be 0 (off) or positive")
	}
	if c.ReaderCacheTTL <= 0 || c.ReaderCacheTTL > time.Minute {
		p.Addf("READER_CACHE_TTL: must be positive and at most 1m")
	}
	if c.RateLimit < 0 {
		p.Addf("RATE_LIMIT: must be 0 (off) or positive")
	}
	if c.FailedAuthLimit < 0 {
		p.Addf("FAILED_AUTH_LIMIT: must be 0 (off) or positive")
	}
	c.checkClientAddress(&p)
	c.Kafka.Check(&p)
	if c.UpstreamTimeout <= 0 {
		p.Addf("UPSTREAM_TIMEOUT: must be positive")
	}
	if c.MaxBodyBytes <= 0 {
		p.Addf("MAX_BODY_BYTES: must be positive")
	}
	switch strings.ToLower(c.LogLevel) {
	case "debug", "info", "warn", "error":
	default:
		p.Addf("LOG_LEVEL: must be debug, info, warn or error")
	}
	c.Discovery.Check(&p)
	c.CustomTLS.Check(&p, c.Addr)
	if c.ReaderAddr != "" && c.ReaderAddr == c.Addr {
		p.Addf("READER_ADDR: must differ from ADDR")
	}
	return p.Err()
}

// checkClientAddress records the problems of the settings that decide
// client addresses: TRUSTED_PROXIES or TRUSTED_HOPS, and PROXY_PROTOCOL,
// which needs TRUSTED_PROXIES.
func (c Config) checkClientAddress(p *config.Problems) {
	for _, err := range clientip.Check(c.TrustedProxies, c.TrustedHops) {
		p.Addf("%v", err)
	}
	if c.ProxyProtocol && !slices.ContainsFunc(c.TrustedProxies, func(s string) bool { return strings.TrimSpace(s) != "" }) {
		p.Addf("PROXY_PROTOCOL: needs TRUSTED_PROXIES, the load balancers' addresses: only they may send a PROXY header")
	}
}

// CustomTLSConfig is how custom hostnames are served over TLS
// (internal/customtls).
type CustomTLSConfig = customtls.Config

// redisOptions parses the Redis URL and, where the URL leaves them unset,
// bounds the waits: a request must not hang on a slow or absent Redis, whose
// failures the gateway survives (rate limits fail open, tokens resolve through
// identity).
func redisOptions(rawURL string) (*redis.Options, error) {
	opts, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("redis url: %w", err)
	}
	if opts.DialTimeout == 0 {
		opts.DialTimeout = time.Second
	}
	if opts.DialerRetries == 0 {
		opts.DialerRetries = 2
	}
	if opts.ReadTimeout == 0 {
		opts.ReadTimeout = time.Second
	}
	if opts.WriteTimeout == 0 {
		opts.WriteTimeout = time.Second
	}
	return opts, nil
}
