package gateway

import (
	"net/http"
	"strings"
	"time"

	"github.com/docspub/platform/gateway/internal/pagecache"
	"github.com/docspub/platform/gateway/internal/ratelimit"
	"github.com/docspub/platform/gateway/internal/route"
	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internalapi/readerapi"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/gin-gonic/gin"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// ReaderPrefix is where sites serves readers: the gateway forwards a
// reader's path below it.
const ReaderPrefix = "/reader"

// read forwards a reader's request for a published site: every GET or
// HEAD outside /v1 (and /v1 itself, the API's) (a site's URL under PUBLISHED_URL, or any path of a
// custom hostname) goes to sites at ReaderPrefix+path, without
// authentication. The client's Authorization and every header only the
// platform may set are dropped as for the API; the per-client-address
// rate limit (RATE_LIMIT per minute) applies; sites gets an internal token
// naming the gateway, the reader's host (X-Forwarded-Host) and address
// (X-Forwarded-For: clientOf, as TRUSTED_PROXIES or TRUSTED_HOPS decide it).
func (g *Gateway) read(c *gin.Context) {
	r := c.Request
	if r.URL.Path == "/v1" {
		httpx.Error(c, apierr.NotFound("no route for %s %s", r.Method, r.URL.Path))
		return
	}
	if !httpx.OnlyReads(c) {
		return
	}
	span := trace.SpanFromContext(r.Context())
	if span.IsRecording() {
		name := "GET reader"
		if r.Method == http.MethodHead {
			name = "HEAD reader"
		}
		span.SetName(name)
		span.SetAttributes(readerServiceAttr)
	}
	client := clientOf(c)
	if g.cfg.RateLimit > 0 && !g.limits.Allow(c, ratelimit.Reader, client, client) {
		return
	}
	k, mark, e, ok := g.pages.Lookup(r)
	if e != nil {
		g.serveKept(c, e, client)
		return
	}
	if ok {
		release, wait := g.pages.Refill(k)
		if wait != nil {
			// Another reader refills the answer kept: wait for it (a
			// while), and take it from the cache when it was kept.
			t := time.NewTimer(refillWait)
			select {
			case <-wait:
			case <-t.C:
			case <-r.Context().Done():
			}
			t.Stop()
			if k, mark, e, ok = g.pages.Lookup(r); e != nil {
				g.serveKept(c, e, client)
				return
			}
		}
		if release != nil {
			defer release()
		}
	}
	f := &forward{service: route.Sites, reader: true, client: client}
	if ok {
		f.fill = &fill{key: k, mark: mark}
	}
	g.forward(c, f, internaltoken.Principal{Service: Service})
}

// refillWait bounds how long a reader waits for another's refill of an
// answer kept (pagecache.Cache.Refill) before asking sites itself.
const refillWait = 2 * time.Second

// fill is a reader's answer that may be kept in the page cache.
type fill struct {
	key  pagecache.Key
	mark uint64
}

// serveKept answers a reader from the page cache, in the encoding they
// take best of those kept: 304 when they hold the answer (no body), else
// the answer, its read recorded. Every header value is the entry's own,
// assigned, not copied.
func (g *Gateway) serveKept(c *gin.Context, e *pagecache.Entry, client string) {
	r, w := c.Request, c.Writer
	h := w.Header()
	v := e.Choose(r.Header.Get("Accept-Encoding"))
	if v.ETag != "" && httpx.ETagMatches(r.Header.Get("If-None-Match"), v.ETag) {
		e.SetHeader(h, v, true)
		w.WriteHeader(http.StatusNotModified)
		return
	}
	e.SetHeader(h, v, false)
	if e.View != nil && r.Method == http.MethodGet {
		g.recordView(h, r, client, *e.View)
	}
	w.WriteHeader(e.Status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(v.Body)
	}
}

// recordView records a reader's read; an answer that sets the reader's
// own cookies is kept by no shared cache.
func (g *Gateway) recordView(h http.Header, r *http.Request, client string, v readerapi.View) {
	if g.views.View(h, r, client, v) && strings.HasPrefix(h.Get("Cache-Control"), "public") {
		h.Set("Cache-Control", "private, no-cache")
	}
}

// readerServiceAttr names the service of readers' spans (precomputed).
var readerServiceAttr = attribute.String("docspub.service", route.Sites)

// mintedToken is an internal token and when it was minted.
type mintedToken struct {
	token string
	at    time.Time
}

// readerTokenFor returns the internal token of readers' requests to
// sites: the gateway's own principal, minted once per readerTokenReuse.
func (g *Gateway) readerTokenFor(service string) (string, error) {
	now := time.Now()
	if t := g.readerToken.Load(); t != nil && now.Sub(t.at) < readerTokenReuse {
		return t.token, nil
	}
	tok, err := g.signer.Mint(service, internaltoken.Principal{Service: Service})
	if err != nil {
		return "", err
	}
	g.readerToken.Store(&mintedToken{token: tok, at: now})
	return tok, nil
}
