package gateway

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/docspub/platform/gateway/internal/pagecache"
	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internalapi/readerapi"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/gin-gonic/gin"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/propagation"
)

// forward is what serve decided about a request, for the proxy's callbacks.
type forward struct {
	c         *gin.Context
	service   string
	target    *url.URL
	token     string
	requestID string
	// reader marks a published site's reader: the path goes below
	// ReaderPrefix.
	reader bool
	// client is the client's address (clientOf), the X-Forwarded-For
	// services receive.
	client string
	// fill is set when the reader's answer may be kept (pagecache).
	fill *fill
}

type forwardKey struct{}

func forwardFrom(ctx context.Context) *forward {
	f, _ := ctx.Value(forwardKey{}).(*forward)
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

func (g *Gateway) newProxy(transport http.RoundTripper) *httputil.ReverseProxy {
	return &httputil.ReverseProxy{
		Rewrite:        rewrite,
		Transport:      transport,
		ModifyResponse: g.modifyResponse,
		ErrorHandler:   g.proxyError,
		ErrorLog:       slog.NewLogLogger(g.log.Handler(), slog.LevelWarn),
		BufferPool:     copyBuffers{},
	}
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
	pr.Out.Header.Set("X-Forwarded-For", f.client)
	if f.reader {
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
// leave the platform, then keeps a public answer to a reader and records
// its read (readerAnswer), or purges the page cache after a write
// (purgeAfter).
func (g *Gateway) modifyResponse(resp *http.Response) error {
	f := forwardFrom(resp.Request.Context())
	view, tags := resp.Header.Get(readerapi.ViewHeader), resp.Header.Get(readerapi.TagsHeader)
	impersonal := resp.Header.Get(readerapi.ImpersonalHeader)
	for name := range resp.Header {
		if strings.HasPrefix(name, "X-Internal-") || strings.HasPrefix(name, "X-Ratelimit-") || name == httpx.RequestIDHeader {
			resp.Header.Del(name)
		}
	}
	switch {
	case f != nil && f.reader:
		return g.readerAnswer(f, resp, view, tags, impersonal)
	case f != nil:
		g.purgeAfter(f, resp)
	}
	return nil
}

// proxyError answers a failed forward with the JSON error body: 413 when the
// body went over the limit, 503 when the service cannot be reached, 504 when
// it did not answer in time, 502 for any other failure.
func (g *Gateway) proxyError(w http.ResponseWriter, r *http.Request, err error) {
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
		httpx.Error(f.c, unavailable(f.service, err))
	case isTimeout(err):
		httpx.Error(f.c, fmt.Errorf("forward to %s: %v: %w", f.service, err,
			apierr.New(http.StatusGatewayTimeout, "service %s timed out", f.service)))
	default:
		httpx.Error(f.c, fmt.Errorf("forward to %s: %v: %w", f.service, err,
			apierr.New(http.StatusBadGateway, "service %s failed to answer", f.service)))
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

// readerAnswer keeps sites' answer to a reader in the page cache when it
// is the same for every reader (tags: its readerapi.TagsHeader;
// impersonal: its readerapi.ImpersonalHeader), then records the read it
// is (its readerapi.ViewHeader), setting the reader's insights cookies,
// which the kept copy has not.
func (g *Gateway) readerAnswer(f *forward, resp *http.Response, viewHeader, tagsHeader, impersonal string) error {
	view, isView := readerapi.ParseView(viewHeader)
	if tags, ok := pagecache.Keepable(resp, tagsHeader, impersonal); ok && f.fill != nil && g.pages.Fits(resp.ContentLength) {
		body, err := io.ReadAll(io.LimitReader(resp.Body, resp.ContentLength))
		_ = resp.Body.Close()
		if err != nil {
			return err
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
		if int64(len(body)) == resp.ContentLength {
			var v *readerapi.View
			if isView {
				v = &view
			}
			g.pages.Keep(f.fill.key, f.fill.mark, resp.StatusCode, resp.Header.Clone(), body, v, tags)
		}
	}
	if isView && resp.StatusCode == http.StatusOK && f.c.Request.Method == http.MethodGet {
		g.recordView(resp.Header, f.c.Request, f.client, view)
	}
	return nil
}

// purgeAfter drops the cached answers a successful write changed (its
// organization's or space's) before the writer has its answer.
func (g *Gateway) purgeAfter(f *forward, resp *http.Response) {
	switch m := resp.Request.Method; {
	case m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions, resp.StatusCode >= 400:
		return
	}
	g.pages.Purge(pagecache.WriteTags(f.c.Request.URL.Path)...)
}
