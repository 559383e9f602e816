// Package gateway is the platform's public entry: it authenticates the bearer
// token of every /v1 request through identity (cached in Redis under a hash of
// the token, and dropped from the cache as identity.events tell), applies a
// per-token rate limit and a per-client-address limit of unknown tokens
// (Redis), drops the headers only the platform may set, and forwards the
// request to the service that owns the path (internal/route) with a
// short-lived internal token for that service only and W3C trace context.
// It answers two /v1 paths itself, without a token: the API document
// (/v1/openapi.json, libs/apidoc) and its reference page (/v1/docs).
// Every other path is a published site's, read without a token: it goes to
// sites with the per-client-address rate limit (internal/reader). Readers
// may have a listener of their own (READER_ADDR, internal/edge), on a
// faster server that answers page-cache hits itself and hands everything
// else to the same handler.
//
// This package only wires: its configuration, New, Run and the handler's
// assembly. The behaviour is in internal packages by concern: api (the
// /v1 paths), reader (readers' requests), edge (the readers' listener),
// proxy (forwarding to the services), purge (the page cache kept true),
// auth (tokens and identity.events), customtls (custom hostnames over
// TLS), and the packages these use.
package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/docspub/platform/gateway/internal/api"
	"github.com/docspub/platform/gateway/internal/apidocs"
	"github.com/docspub/platform/gateway/internal/auth"
	"github.com/docspub/platform/gateway/internal/clientip"
	"github.com/docspub/platform/gateway/internal/customtls"
	"github.com/docspub/platform/gateway/internal/edge"
	"github.com/docspub/platform/gateway/internal/hostnames"
	"github.com/docspub/platform/gateway/internal/pagecache"
	"github.com/docspub/platform/gateway/internal/proxy"
	"github.com/docspub/platform/gateway/internal/purge"
	"github.com/docspub/platform/gateway/internal/ratelimit"
	"github.com/docspub/platform/gateway/internal/reader"
	"github.com/docspub/platform/gateway/internal/route"
	"github.com/docspub/platform/gateway/internal/throttle"
	"github.com/docspub/platform/gateway/internal/views"
	"github.com/docspub/platform/libs/config"
	"github.com/docspub/platform/libs/discovery"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internalclient"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/service"
	"github.com/gin-gonic/gin"
	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/errgroup"
)

// Service is the gateway's name: its internal tokens say they come from it.
const Service = "gateway"

// Deps are the clients the gateway works with.
type Deps struct {
	// Redis holds the token cache and the rate limits.
	Redis *redis.Client
	// Resolver finds the base URL of a service.
	Resolver discovery.Resolver
	// Log receives the access log and failures; nil discards.
	Log *slog.Logger
}

// Timings that are not configuration.
const (
	// internalTokenTTL is the lifetime of a minted internal token.
	internalTokenTTL = time.Minute
	// readerTokenReuse is how long the readers' internal token is reused:
	// a quarter of its lifetime, so it is never near its expiry.
	readerTokenReuse = internalTokenTTL / 4
)

// Gateway authenticates, limits and forwards public API requests.
type Gateway struct {
	cfg Config
	log *slog.Logger
	rdb *redis.Client
	// tokens resolves API tokens (internal/auth).
	tokens *auth.Tokens
	// kafka is the cluster of identity.events.
	kafka kafkax.Cluster
	// events consumes identity.events once RunBackground started it.
	events *kafkax.Consumer
	// pages are published sites' public answers, served to readers
	// without a hop to sites (nil: off).
	pages *pagecache.Cache
	// purger keeps pages true to writes and events (internal/purge).
	purger *purge.Purger
	// limits are the rate limits (Redis).
	limits *ratelimit.Limiter
	// views records readers' reads in insights.
	views *views.Recorder
	// clients derives client addresses (clientip) and wraps the listener
	// for the PROXY protocol (Listener).
	clients *clientip.Resolver
	// hosts decides which custom hostnames may have a TLS certificate
	// (internal/hostnames).
	hosts  *hostnames.Decider
	engine *gin.Engine
}

// The gateway's own paths (internal/apidocs): the API document and its
// reference page.
const (
	DocumentPath = apidocs.DocumentPath
	DocsPath     = apidocs.DocsPath
)

// ReaderPrefix is where sites serves readers: the gateway forwards a
// reader's path below it (internal/proxy).
const ReaderPrefix = proxy.ReaderPrefix

// New returns a gateway for a valid configuration.
func New(cfg Config, deps Deps) (*Gateway, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if deps.Redis == nil {
		return nil, errors.New("gateway: no Redis client")
	}
	if deps.Resolver == nil {
		return nil, errors.New("gateway: no resolver")
	}
	if deps.Log == nil {
		deps.Log = logx.Discard()
	}
	routes, err := route.FromDocument()
	if err != nil {
		return nil, fmt.Errorf("route table: %w", err)
	}
	signer, err := internaltoken.NewKeyedSigner(Service, cfg.InternalTokenSecret, cfg.InternalTokenKeys, internalTokenTTL)
	if err != nil {
		return nil, err
	}
	cluster, err := cfg.Kafka.Cluster()
	if err != nil {
		return nil, err
	}
	docs, err := apidocs.New(cfg.PublicURL)
	if err != nil {
		return nil, fmt.Errorf("API document: %w", err)
	}
	clients, err := clientip.New(cfg.TrustedProxies, cfg.TrustedHops)
	if err != nil {
		return nil, err
	}
	g := &Gateway{clients: clients, cfg: cfg, kafka: cluster, log: deps.Log, rdb: deps.Redis}
	redisFailed := throttle.NewRedisWarnings(deps.Log).Failed
	limits := ratelimit.New(deps.Redis, cfg.RateLimit, cfg.FailedAuthLimit, throttle.New(deps.Log), redisFailed)
	g.limits = limits
	g.tokens = auth.New(deps.Redis, internalclient.New(route.Identity, deps.Resolver, signer, min(cfg.UpstreamTimeout, auth.MaxResolveTime)),
		cfg.AuthCacheTTL, redisFailed)
	if cfg.ReaderCacheBytes > 0 {
		g.pages = pagecache.New(cfg.ReaderCacheBytes, cfg.ReaderCacheTTL)
	}
	g.purger = purge.New(g.pages)
	g.hosts = hostnames.New(internalclient.New(route.Sites, deps.Resolver, signer, hostnames.DecisionTimeout), g.log.With("component", "tls"))
	g.views = views.New(deps.Resolver, signer, g.log.With("component", "insights recorder"))
	p := proxy.New(proxy.Config{Service: Service, Resolver: deps.Resolver, Signer: signer,
		ReaderTokenReuse: readerTokenReuse, UpstreamTimeout: cfg.UpstreamTimeout, Log: g.log})
	v1 := &api.API{Docs: docs, Routes: routes, Tokens: g.tokens, Limits: limits, MaxBodyBytes: cfg.MaxBodyBytes, Proxy: p, After: g.purger}
	rd := &reader.Reader{Service: Service, RateLimit: cfg.RateLimit, Limits: limits, Pages: g.pages, Views: g.views, Proxy: p}
	if g.engine, err = g.newEngine(v1, rd); err != nil {
		return nil, err
	}
	return g, nil
}

// newEngine assembles the handler: the client address derived first
// (clientip), then /v1 (v1) and every other path (rd).
func (g *Gateway) newEngine(v1 *api.API, rd *reader.Reader) (*gin.Engine, error) {
	// Ready means able to serve: not Redis, without which the gateway
	// fails open (rate limits off, tokens resolved through identity), so
	// that a Redis outage does not take every gateway out of the Ingress.
	e := httpx.NewEngine(g.log, "gateway")
	// A JSON API answers a stray slash with 404, not an HTML redirect.
	e.RedirectTrailingSlash = false
	// The client address is clientip's alone (clientip.Of), not gin's.
	e.ForwardedByClientIP = false
	if err := e.SetTrustedProxies(nil); err != nil {
		return nil, err
	}
	e.Use(g.clients.Identify)
	e.Any("/v1/*path", v1.Serve)
	// Everything else is a published site's page, for sites to serve.
	e.NoRoute(rd.Read)
	return e, nil
}

// Handler returns the HTTP handler: /healthz, /readyz, the /v1 API and,
// at every other path, published sites (internal/reader).
func (g *Gateway) Handler() http.Handler { return g.engine }

// RunBackground starts consuming identity.events (KAFKA_BROKERS, consumer
// group ConsumerGroup), so that revoked tokens and changed members leave the
// cache at once (HandleIdentityEvent), and the recorder of readers' reads;
// they stop when ctx is done. Call it at most once, and Close after it.
func (g *Gateway) RunBackground(ctx context.Context) {
	go func() { _ = g.views.Run(ctx) }()
	if g.pages != nil {
		go g.purger.Run(ctx)
		for _, topic := range PurgeTopics {
			b := kafkax.NewBroadcast(g.kafka, topic, g.purger.OnEvent, g.log)
			go func() { _ = b.Run(ctx) }()
		}
	}
	g.events = kafkax.NewConsumer(g.kafka, ConsumerGroup, IdentityTopic, nil, g.tokens.OnEvent, g.log)
	go func() {
		if err := g.events.Run(ctx); err != nil && ctx.Err() == nil {
			g.log.ErrorContext(ctx, "identity.events consumer stopped", "err", err)
		}
	}()
}

// Close stops the identity.events consumer. The Redis client is the caller's.
func (g *Gateway) Close(context.Context) error {
	if g.events == nil {
		return nil
	}
	return g.events.Close()
}

// Run serves the gateway until ctx is done: it connects to Redis, finds the
// services through discovery (the static upstream list, or Consul), consumes
// identity.events and serves on cfg.Addr with graceful shutdown.
func Run(ctx context.Context, cfg Config, log *slog.Logger) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	log.InfoContext(ctx, "starting", "config", config.Describe(cfg))

	opts, err := redisOptions(cfg.RedisURL)
	if err != nil {
		return err
	}
	rdb := redis.NewClient(opts)
	defer rdb.Close()
	log.InfoContext(ctx, "redis", "addr", opts.Addr, "db", opts.DB)
	pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	if err := rdb.Ping(pctx).Err(); err != nil {
		// Not fatal: rate limits fail open and tokens resolve through identity.
		log.WarnContext(ctx, "redis not reachable at start", "err", err)
	}
	cancel()

	upstreams, err := discovery.ParseStatic(cfg.Upstreams)
	if err != nil {
		return fmt.Errorf("upstreams: %w", err)
	}
	resolver, err := discovery.Open(cfg.Discovery, upstreams, log)
	if err != nil {
		return err
	}
	defer resolver.Close()
	g, err := New(cfg, Deps{Redis: rdb, Resolver: resolver, Log: log})
	if err != nil {
		return err
	}
	if err := g.kafka.Provision(ctx, log, IdentityTopic); err != nil {
		return err
	}
	var readers net.Listener
	if cfg.ReaderAddr != "" {
		if readers, err = net.Listen("tcp", cfg.ReaderAddr); err != nil {
			return fmt.Errorf("listen %s: %w", cfg.ReaderAddr, err)
		}
	}
	eg, ctx := errgroup.WithContext(ctx)
	eg.Go(func() error {
		return service.Run(ctx, Service, cfg.Addr, g, log, service.WrapListener(g.Listener), service.Linger(httpx.Linger))
	})
	if cfg.CustomTLS.Addr != "" {
		eg.Go(func() error { return customtls.Listen(ctx, cfg.CustomTLS, g.customTLSDeps()) })
	}
	if readers != nil {
		eg.Go(func() error { return g.ServeReaders(ctx, readers) })
	}
	return eg.Wait()
}

// ServeReaders serves published sites' readers on ln (READER_ADDR) until
// ctx is done: the gateway's handler on the readers' own server
// (internal/edge), ln wrapped as the API's listener is (PROXY_PROTOCOL).
func (g *Gateway) ServeReaders(ctx context.Context, ln net.Listener) error {
	log := g.log.With("listener", "readers")
	e := &edge.Edge{Handler: g.Handler(), Log: log,
		Hits: &edge.Hits{Pages: g.pages, Views: g.views, Limits: g.limits, Clients: g.clients, Log: log}}
	return e.Serve(ctx, g.Listener(ln))
}

// ServeCustomHostnames serves custom hostnames until ctx is done: TLS on
// tlsLn (the gateway's handler, TLS-ALPN-01 challenges) and, when httpLn
// is not nil, plain HTTP on it (HTTP-01 challenges, else a redirect to
// https). Both are wrapped as the API's listener is (PROXY_PROTOCOL).
func (g *Gateway) ServeCustomHostnames(ctx context.Context, tlsLn, httpLn net.Listener) error {
	return customtls.Serve(ctx, g.cfg.CustomTLS, g.customTLSDeps(), tlsLn, httpLn)
}

// customTLSDeps are what internal/customtls serves custom hostnames with.
func (g *Gateway) customTLSDeps() customtls.Deps {
	return customtls.Deps{Redis: g.rdb, Allow: g.hosts.Allow, Handler: g.Handler(), Listener: g.Listener, Log: g.log}
}
