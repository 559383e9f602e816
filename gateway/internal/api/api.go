// Package api serves the gateway's /v1 paths: the API document and its
// reference page itself (apidocs), without a token; every other operation
// is routed (route), its bearer token authenticated (auth), rate limited
// (ratelimit) and forwarded to the owning service (proxy).
package api

import (
	"errors"
	"net/http"
	"strings"

	"github.com/docspub/platform/gateway/internal/apidocs"
	"github.com/docspub/platform/gateway/internal/auth"
	"github.com/docspub/platform/gateway/internal/clientip"
	"github.com/docspub/platform/gateway/internal/proxy"
	"github.com/docspub/platform/gateway/internal/ratelimit"
	"github.com/docspub/platform/gateway/internal/route"
	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/httpx"
	"github.com/gin-gonic/gin"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// API serves /v1.
type API struct {
	// Docs are the API document and its reference page.
	Docs   apidocs.Files
	Routes *route.Table
	Tokens *auth.Tokens
	Limits *ratelimit.Limiter
	// MaxBodyBytes bounds a request body (MAX_BODY_BYTES).
	MaxBodyBytes int64
	Proxy        *proxy.Proxy
	// After sees the services' answers (the page cache purged after a
	// write), but insights' (route.Insights); nil: nothing does.
	After proxy.Answered
}

// Serve handles every /v1 request: route, authenticate, limit, forward.
// The API document and its reference page are the gateway's own, served
// without a token.
func (a *API) Serve(c *gin.Context) {
	r := c.Request
	ctx := r.Context()
	if a.Docs.Owns(r.URL.Path) {
		a.Docs.Serve(c)
		return
	}

	rt, allowed, ok := a.Routes.Match(r.Method, r.URL.EscapedPath())
	if !ok {
		if len(allowed) > 0 {
			httpx.MethodNotAllowed(c, allowed...)
			return
		}
		httpx.Error(c, apierr.NotFound("no route for %s %s", r.Method, r.URL.Path))
		return
	}
	httpx.SetRoute(c, rt.Pattern)
	trace.SpanFromContext(ctx).SetAttributes(attribute.String("docspub.service", rt.Service))

	raw, ok := bearerToken(r.Header.Get("Authorization"))
	if !ok {
		c.Header("WWW-Authenticate", `Bearer realm="docspub"`)
		httpx.Error(c, apierr.Unauthorized("missing or malformed bearer token in the Authorization header"))
		return
	}
	hash := auth.TokenHash(raw)
	// The client's address: the peer, or what trusted proxies say it is
	// (TRUSTED_PROXIES or TRUSTED_HOPS, see clientip).
	client := clientip.Of(c)
	p, err := a.Tokens.Authenticate(ctx, raw, hash, client)
	if errors.Is(err, auth.ErrUnknownToken) {
		// Too many unknown tokens from this address make a 429: guessing
		// stops there, while valid tokens from the same address still pass.
		err = a.Limits.AuthFailed(ctx, client)
	}
	if err != nil {
		if errors.Is(err, apierr.ErrUnauthorized) {
			c.Header("WWW-Authenticate", `Bearer realm="docspub", error="invalid_token"`)
		}
		httpx.Error(c, err)
		return
	}
	if !a.Limits.Allow(c, ratelimit.Token, hash, client) {
		return
	}

	if r.ContentLength > a.MaxBodyBytes {
		httpx.Error(c, apierr.New(http.StatusRequestEntityTooLarge, "request body larger than %d bytes", a.MaxBodyBytes))
		return
	}
	if r.Body != nil && r.Body != http.NoBody {
		r.Body = http.MaxBytesReader(c.Writer, r.Body, a.MaxBodyBytes)
	}

	f := &proxy.Forward{Service: rt.Service, Client: client, After: a.After}
	if rt.Service == route.Insights {
		// Readers' events and aggregate queries change no published page:
		// purging the organization's pages on each would leave its readers
		// nothing kept while its sites are read.
		f.After = nil
	}
	a.Proxy.Forward(c, f, p)
}

// maxTokenLen bounds the bearer token; longer ones are malformed.
const maxTokenLen = 1024

// bearerToken returns the token of an "Authorization: Bearer <token>" header.
func bearerToken(header string) (string, bool) {
	scheme, tok, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	tok = strings.TrimLeft(tok, " ")
	if tok == "" || len(tok) > maxTokenLen {
		return "", false
	}
	for i := 0; i < len(tok); i++ {
		if tok[i] <= ' ' || tok[i] >= 0x7f {
			return "", false
		}
	}
	return tok, true
}
