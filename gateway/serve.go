package gateway

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/docspub/platform/gateway/internal/auth"
	"github.com/docspub/platform/gateway/internal/ratelimit"
	"github.com/docspub/platform/gateway/internal/route"
	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/gin-gonic/gin"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// serve handles every /v1 request: route, authenticate, limit, forward.
// The API document and its reference page are the gateway's own, served
// without a token.
func (g *Gateway) serve(c *gin.Context) {
	r := c.Request
	ctx := r.Context()
	if g.docs.Owns(r.URL.Path) {
		g.docs.Serve(c)
		return
	}

	rt, allowed, ok := g.routes.Match(r.Method, r.URL.EscapedPath())
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
	hash := TokenHash(raw)
	// The client's address: the peer, or what trusted proxies say it is
	// (TRUSTED_PROXIES or TRUSTED_HOPS, see clientOf).
	client := clientOf(c)
	p, err := g.tokens.Authenticate(ctx, raw, hash, client)
	if errors.Is(err, auth.ErrUnknownToken) {
		// Too many unknown tokens from this address make a 429: guessing
		// stops there, while valid tokens from the same address still pass.
		err = g.limits.AuthFailed(ctx, client)
	}
	if err != nil {
		if errors.Is(err, apierr.ErrUnauthorized) {
			c.Header("WWW-Authenticate", `Bearer realm="docspub", error="invalid_token"`)
		}
		httpx.Error(c, err)
		return
	}
	if !g.limits.Allow(c, ratelimit.Token, hash, client) {
		return
	}

	if r.ContentLength > g.cfg.MaxBodyBytes {
		httpx.Error(c, apierr.New(http.StatusRequestEntityTooLarge, "request body larger than %d bytes", g.cfg.MaxBodyBytes))
		return
	}
	if r.Body != nil && r.Body != http.NoBody {
		r.Body = http.MaxBytesReader(c.Writer, r.Body, g.cfg.MaxBodyBytes)
	}

	g.forward(c, &forward{service: rt.Service, client: client}, p)
}

// forward sends the request to f.service with an internal token for p
// minted for that service only (no other service accepts it).
func (g *Gateway) forward(c *gin.Context, f *forward, p internaltoken.Principal) {
	r := c.Request
	base, err := g.resolver.Resolve(r.Context(), f.service)
	if err != nil {
		httpx.Error(c, unavailable(f.service, err))
		return
	}
	if f.target, err = g.targetURL(base); err != nil {
		httpx.Error(c, unavailable(f.service, err))
		return
	}
	if f.reader && f.service == route.Sites {
		f.token, err = g.readerTokenFor(f.service)
	} else {
		f.token, err = g.signer.Mint(f.service, p)
	}
	if err != nil {
		httpx.Error(c, err)
		return
	}
	f.c, f.requestID = c, c.GetString("request_id")
	g.proxy.ServeHTTP(c.Writer, r.WithContext(context.WithValue(r.Context(), forwardKey{}, f)))
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

// maxTargets bounds the parsed service URLs kept: far more than the
// instances discovery names at once.
const maxTargets = 256

// resolveAgain names an instance of the service the forwarded request of
// ctx is for, for a second attempt (internal/retry); ok is false for a
// request the gateway does not forward.
func (g *Gateway) resolveAgain(ctx context.Context) (*url.URL, bool, error) {
	f := forwardFrom(ctx)
	if f == nil {
		return nil, false, nil
	}
	base, err := g.resolver.Resolve(ctx, f.service)
	if err != nil {
		return nil, false, err
	}
	u, err := g.targetURL(base)
	return u, err == nil, err
}

// targetURL is a service's base URL parsed, once per base rather than on
// every request (the proxy only reads it).
func (g *Gateway) targetURL(base string) (*url.URL, error) {
	if u, ok := g.targets.Get(base); ok {
		return u, nil
	}
	u, err := url.Parse(base)
	if err != nil {
		return nil, err
	}
	g.targets.Set(base, u, 0)
	return u, nil
}
