// Package proxy forwards the gateway's requests to the services: to an
// instance discovery names (another one for a second attempt, internal/retry),
// with an internal token minted for that service only, the request id,
// the client's address as the one X-Forwarded-For entry and W3C trace
// context, and without the headers only the platform may set; a reader's
// path goes below ReaderPrefix. The services' answers reach the client
// without the headers that must not leave the platform, after the
// request's Answered hook saw them.
package proxy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/docspub/platform/gateway/internal/retry"
	"github.com/docspub/platform/gateway/internal/route"
	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/discovery"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internalapi/readerapi"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/sizedcache"
	"github.com/gin-gonic/gin"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/propagation"
)

// ReaderPrefix is where sites serves readers: the gateway forwards a
// reader's path below it.
const ReaderPrefix = "/reader"

// dialTimeout is short so that a service that is down answers 503 fast.
const dialTimeout = 2 * time.Second

// Config is how the proxy forwards.
type Config struct {
	// Service names the gateway: readers' requests carry an internal
	// token of its own principal.
	Service string
	// Resolver finds the base URL of a service.
	Resolver discovery.Resolver
	// Signer mints the internal tokens.
	Signer *internaltoken.Signer
	// ReaderTokenReuse is how long the readers' internal token is reused
	// rather than minted again.
	ReaderTokenReuse time.Duration
	// UpstreamTimeout bounds the wait for a service's response headers.
	UpstreamTimeout time.Duration
	// Log receives the proxy's failures.
	Log *slog.Logger
}

// Proxy forwards requests to the services.
type Proxy struct {
	cfg     Config
	reverse *httputil.ReverseProxy
	// readerToken is the internal token readers' requests carry to sites:
	// always the same principal (the gateway), minted again once it is
	// older than cfg.ReaderTokenReuse rather than on every request.
	readerToken atomic.Pointer[mintedToken]
	// targets are the services' base URLs parsed (targetURL).
	targets *sizedcache.Cache[string, *url.URL]
}

// New returns a proxy.
func New(cfg Config) *Proxy {
	p := &Proxy{cfg: cfg, targets: sizedcache.New[string, *url.URL](maxTargets, 0)}
	p.reverse = &httputil.ReverseProxy{
		Rewrite:        rewrite,
		Transport:      retry.Transport{Next: newTransport(cfg.UpstreamTimeout), Resolve: p.resolveAgain},
		ModifyResponse: modifyResponse,
		ErrorHandler:   proxyError,
		ErrorLog:       slog.NewLogLogger(cfg.Log.Handler(), slog.LevelWarn),
		BufferPool:     copyBuffers{},
	}
	return p
}

// Forward is a request to forward: what the gateway decided about it,
// for the proxy's callbacks.
type Forward struct {
	// Service is the service the request goes to.
	Service string
	// Reader marks a published site's reader: the path goes below
	// ReaderPrefix.
	Reader bool
	// Client is the client's address, the X-Forwarded-For services
	// receive.
	Client string
	// After, when not nil, sees the service's answer before the client
	// does.
	After Answered

	c         *gin.Context
	target    *url.URL
	token     string
	requestID string
}

// Answered sees a service's answer resp to the client's request in, the
// headers that must not leave the platform dropped from it; the values
// of readerapi's headers it had are in internal. An error fails the
// forward (502).
type Answered interface {
	Answered(in *http.Request, resp *http.Response, internal Internal) error
}

// Internal are the values of readerapi's headers of an answer, which
// never leave the platform.
type Internal struct {
	// View is its readerapi.ViewHeader, Tags its readerapi.TagsHeader,
	// Impersonal its readerapi.ImpersonalHeader.
	View, Tags, Impersonal string
}

type forwardKey struct{}

func forwardFrom(ctx context.Context) *Forward {
	f, _ := ctx.Value(forwardKey{}).(*Forward)
	return f
}

// newTransport returns the transport to services: a short dial timeout so a
// service that is down answers fast, the response header wait bounded by
// upstreamTimeout, and client spans with W3C trace context injected. It
// never asks for gzip on its own: the client's Accept-Encoding goes through
// as it came, and a gzipped answer (sites keeps pages gzipped) reaches the
// client as it is, rather than being inflated by the gateway for a client
// that did not ask for it (then streamed without a length, flushed at each
// write).
func newTransport(upstreamTimeout time.Duration) http.RoundTripper {
	base := &http.Transport{
		Proxy:                 nil,
		DialContext:           (&net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:   dialTimeout,
		ResponseHeaderTimeout: upstreamTimeout,
		ExpectContinueTimeout: time.Second,
		MaxIdleConns:          512,
		MaxIdleConnsPerHost:   128,
		IdleConnTimeout:       90 * time.Second,
		DisableCompression:    true,
	}
	return otelhttp.NewTransport(base, otelhttp.WithPropagators(
		propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})))
}

// copyBuffers lends the proxy its 32 KiB copy buffers again and again
// rather than allocating one for every response.
type copyBuffers struct{}

var copyBufferPool = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

func (copyBuffers) Get() []byte  { return *copyBufferPool.Get().(*[]byte) }
func (copyBuffers) Put(b []byte) { copyBufferPool.Put(&b) }

// rewrite sends the request to the owning service with the path and query
// unchanged, without the headers only the platform may set, and with the
// internal token, the request id and the client's address as the one
// X-Forwarded-For entry (whatever the client or its proxies sent).
func rewrite(pr *httputil.ProxyRequest) {
	f := forwardFrom(pr.In.Context())
	for name := range pr.Out.Header {
		if platformOnly(name) {
			pr.Out.Header.Del(name)
		}
	}
	pr.SetURL(f.target)
	pr.SetXForwarded()
	pr.Out.Header.Set(internaltoken.Header, f.token)
	pr.Out.Header.Set(httpx.RequestIDHeader, f.requestID)
	pr.Out.Header.Set("X-Forwarded-For", f.Client)
	if f.Reader {
		pr.Out.URL.Path = singleJoin(f.target.Path, ReaderPrefix+pr.In.URL.Path)
		pr.Out.URL.RawPath = ""
		if pr.In.URL.RawPath != "" {
			pr.Out.URL.RawPath = singleJoin(f.target.EscapedPath(), ReaderPrefix+pr.In.URL.RawPath)
		}
	}
}

// singleJoin joins a base path and a path with one slash between them.
func singleJoin(base, path string) string {
	return strings.TrimRight(base, "/") + path
}

// platformOnly reports whether a request header (canonical name) may only be
// set inside the platform; such headers are dropped from client requests. The
// client's Authorization is dropped too: services trust the internal token only.
// So are the headers proxies and CDNs name a client address in: services
// learn it from the gateway's X-Forwarded-For alone.
func platformOnly(name string) bool {
	switch name {
	case "Authorization", "Forwarded", "X-Real-Ip", "X-Client-Ip", "X-User", "X-User-Id", "X-Principal", "X-Roles",
		"True-Client-Ip", "Cf-Connecting-Ip", "Fastly-Client-Ip", "X-Cluster-Client-Ip", "X-Original-Forwarded-For":
		return true
	}
	for _, prefix := range []string{"X-Internal-", "X-Forwarded-", "X-Gateway-", "X-Auth-", "X-User-"} {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return false
}

// modifyResponse drops headers the gateway sets itself or that must not
// leave the platform, then hands the answer to the request's After hook
// (a reader's answer kept and its read recorded, the page cache purged
// after a write).
func modifyResponse(resp *http.Response) error {
	f := forwardFrom(resp.Request.Context())
	in := Internal{
		View:       resp.Header.Get(readerapi.ViewHeader),
		Tags:       resp.Header.Get(readerapi.TagsHeader),
		Impersonal: resp.Header.Get(readerapi.ImpersonalHeader),
	}
	for name := range resp.Header {
		if strings.HasPrefix(name, "X-Internal-") || strings.HasPrefix(name, "X-Ratelimit-") || name == httpx.RequestIDHeader {
			resp.Header.Del(name)
		}
	}
	if f == nil || f.After == nil {
		return nil
	}
	return f.After.Answered(f.c.Request, resp, in)
}

// proxyError answers a failed forward with the JSON error body: 413 when the
// body went over the limit, 503 when the service cannot be reached, 504 when
// it did not answer in time, 502 for any other failure.
func proxyError(w http.ResponseWriter, r *http.Request, err error) {
	f := forwardFrom(r.Context())
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		httpx.Error(f.c, apierr.New(http.StatusRequestEntityTooLarge, "request body larger than %d bytes", tooBig.Limit))
	case r.Context().Err() != nil && errors.Is(err, context.Canceled):
		// The client went away; nobody reads the answer.
		f.c.Abort()
		f.c.Status(499)
	case isDial(err):
		httpx.Error(f.c, unavailable(f.Service, err))
	case isTimeout(err):
		httpx.Error(f.c, fmt.Errorf("forward to %s: %v: %w", f.Service, err,
			apierr.New(http.StatusGatewayTimeout, "service %s timed out", f.Service)))
	default:
		httpx.Error(f.c, fmt.Errorf("forward to %s: %v: %w", f.Service, err,
			apierr.New(http.StatusBadGateway, "service %s failed to answer", f.Service)))
	}
}

// unavailable is the 503 for a service that cannot be found or reached. The
// cause is logged, never sent.
func unavailable(service string, cause error) error {
	return fmt.Errorf("forward to %s: %v: %w", service, cause,
		apierr.New(http.StatusServiceUnavailable, "service %s unavailable", service))
}

func isDial(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

// Forward sends the request of c to f.Service with an internal token for
// pr minted for that service only (no other service accepts it); a
// reader's request to sites carries the gateway's own, reused.
func (p *Proxy) Forward(c *gin.Context, f *Forward, pr internaltoken.Principal) {
	r := c.Request
	base, err := p.cfg.Resolver.Resolve(r.Context(), f.Service)
	if err != nil {
		httpx.Error(c, unavailable(f.Service, err))
		return
	}
	if f.target, err = p.targetURL(base); err != nil {
		httpx.Error(c, unavailable(f.Service, err))
		return
	}
	if f.Reader && f.Service == route.Sites {
		f.token, err = p.readerTokenFor(f.Service)
	} else {
		f.token, err = p.cfg.Signer.Mint(f.Service, pr)
	}
	if err != nil {
		httpx.Error(c, err)
		return
	}
	f.c, f.requestID = c, c.GetString("request_id")
	p.reverse.ServeHTTP(c.Writer, r.WithContext(context.WithValue(r.Context(), forwardKey{}, f)))
}

// maxTargets bounds the parsed service URLs kept: far more than the
// instances discovery names at once.
const maxTargets = 256

// resolveAgain names an instance of the service the forwarded request of
// ctx is for, for a second attempt (internal/retry); ok is false for a
// request the gateway does not forward.
func (p *Proxy) resolveAgain(ctx context.Context) (*url.URL, bool, error) {
	f := forwardFrom(ctx)
	if f == nil {
		return nil, false, nil
	}
	base, err := p.cfg.Resolver.Resolve(ctx, f.Service)
	if err != nil {
		return nil, false, err
	}
	u, err := p.targetURL(base)
	return u, err == nil, err
}

// targetURL is a service's base URL parsed, once per base rather than on
// every request (the proxy only reads it).
func (p *Proxy) targetURL(base string) (*url.URL, error) {
	if u, ok := p.targets.Get(base); ok {
		return u, nil
	}
	u, err := url.Parse(base)
	if err != nil {
		return nil, err
	}
	p.targets.Set(base, u, 0)
	return u, nil
}

// mintedToken is an internal token and when it was minted.
type mintedToken struct {
	token string
	at    time.Time
}

// readerTokenFor returns the internal token of readers' requests to
// sites: the gateway's own principal, minted once per ReaderTokenReuse.
func (p *Proxy) readerTokenFor(service string) (string, error) {
	now := time.Now()
	if t := p.readerToken.Load(); t != nil && now.Sub(t.at) < p.cfg.ReaderTokenReuse {
		return t.token, nil
	}
	tok, err := p.cfg.Signer.Mint(service, internaltoken.Principal{Service: p.cfg.Service})
	if err != nil {
		return "", err
	}
	p.readerToken.Store(&mintedToken{token: tok, at: now})
	return tok, nil
}
