// Package reader serves published sites' readers at the gateway: every
// GET or HEAD outside /v1 goes to sites (internal/proxy, below
// ReaderPrefix) without authentication, under the per-client-address rate
// limit, or is answered from the page cache (pagecache); each read is
// recorded in insights (views).
package reader

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/docspub/platform/gateway/internal/clientip"
	"github.com/docspub/platform/gateway/internal/pagecache"
	"github.com/docspub/platform/gateway/internal/proxy"
	"github.com/docspub/platform/gateway/internal/ratelimit"
	"github.com/docspub/platform/gateway/internal/route"
	"github.com/docspub/platform/gateway/internal/views"
	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internalapi/readerapi"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/gin-gonic/gin"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// Reader serves readers.
type Reader struct {
	// Service names the gateway, the principal of readers' requests.
	Service string
	// RateLimit is RATE_LIMIT: 0, no limit of readers.
	RateLimit int
	Limits    *ratelimit.Limiter
	// Pages is the page cache; nil: off.
	Pages *pagecache.Cache
	Views *views.Recorder
	Proxy *proxy.Proxy
}

// Read forwards a reader's request for a published site: every GET or
// HEAD outside /v1 (and /v1 itself, the API's) (a site's URL under
// PUBLISHED_URL, or any path of a custom hostname) goes to sites at
// proxy.ReaderPrefix+path, without authentication. The client's
// Authorization and every header only the platform may set are dropped as
// for the API; the per-client-address rate limit (RATE_LIMIT per minute)
// applies; sites gets an internal token naming the gateway, the reader's
// host (X-Forwarded-Host) and address (X-Forwarded-For: clientip.Of, as
// TRUSTED_PROXIES or TRUSTED_HOPS decide it).
func (rd *Reader) Read(c *gin.Context) {
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
	client := clientip.Of(c)
	if rd.RateLimit > 0 && !rd.Limits.Allow(c, ratelimit.Reader, client, client) {
		return
	}
	k, mark, e, ok := rd.Pages.Lookup(r)
	if e != nil {
		rd.serveKept(c, e, client)
		return
	}
	if ok {
		release, wait := rd.Pages.Refill(k)
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
			if k, mark, e, ok = rd.Pages.Lookup(r); e != nil {
				rd.serveKept(c, e, client)
				return
			}
		}
		if release != nil {
			defer release()
		}
	}
	a := &answer{rd: rd, fill: ok, key: k, mark: mark}
	a.f = proxy.Forward{Service: route.Sites, Reader: true, Client: client, After: a}
	rd.Proxy.Forward(c, &a.f, internaltoken.Principal{Service: rd.Service})
}

// refillWait bounds how long a reader waits for another's refill of an
// answer kept (pagecache.Cache.Refill) before asking sites itself.
const refillWait = 2 * time.Second

// answer is a reader's request forwarded, and what its answer may fill.
type answer struct {
	rd *Reader
	f  proxy.Forward
	// fill is set when the reader's answer may be kept (pagecache) under
	// key, as of mark.
	fill bool
	key  pagecache.Key
	mark uint64
}

// Answered keeps sites' answer to a reader in the page cache when it is
// the same for every reader (internal.Tags: its readerapi.TagsHeader;
// internal.Impersonal: its readerapi.ImpersonalHeader), then records the
// read it is (internal.View: its readerapi.ViewHeader), setting the
// reader's insights cookies, which the kept copy has not.
func (a *answer) Answered(in *http.Request, resp *http.Response, internal proxy.Internal) error {
	view, isView := readerapi.ParseView(internal.View)
	pages := a.rd.Pages
	if tags, ok := pagecache.Keepable(resp, internal.Tags, internal.Impersonal); ok && a.fill && pages.Fits(resp.ContentLength) {
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
			e := pages.Keep(a.key, a.mark, resp.StatusCode, resp.Header.Clone(), body, v, tags)
			if e != nil && in.Method == http.MethodGet && resp.StatusCode == e.Status {
				answerWith(resp, e.Choose(in.Header.Get("Accept-Encoding")))
			}
		}
	}
	if isView && resp.StatusCode == http.StatusOK && in.Method == http.MethodGet {
		a.rd.recordView(resp.Header, in, a.f.Client, view)
	}
	return nil
}

// answerWith makes resp the variant v of the entry just kept from it: the
// reader who refilled the cache is answered in the coding the cache's
// answers that follow take (brotli to a reader who prefers it, though
// sites sent gzip), under that coding's ETag.
func answerWith(resp *http.Response, v *pagecache.Variant) {
	h := resp.Header
	h.Del("Content-Encoding")
	h.Del("Etag")
	if v.Encoding != "" {
		h.Set("Content-Encoding", v.Encoding)
	}
	if v.ETag != "" {
		h.Set("Etag", v.ETag)
	}
	h.Set("Content-Length", strconv.Itoa(len(v.Body)))
	resp.ContentLength = int64(len(v.Body))
	resp.Body = io.NopCloser(bytes.NewReader(v.Body))
}

// serveKept answers a reader from the page cache, in the encoding they
// take best of those kept: 304 when they hold the answer (no body), else
// the answer, its read recorded. Every header value is the entry's own,
// assigned, not copied.
func (rd *Reader) serveKept(c *gin.Context, e *pagecache.Entry, client string) {
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
		rd.recordView(h, r, client, *e.View)
	}
	w.WriteHeader(e.Status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(v.Body)
	}
}

// recordView records a reader's read; an answer that sets the reader's
// own cookies is kept by no shared cache.
func (rd *Reader) recordView(h http.Header, r *http.Request, client string, v readerapi.View) {
	if rd.Views.View(h, views.RequestOf(r), client, v) && views.Shared(h.Get("Cache-Control")) {
		h.Set("Cache-Control", views.PrivateCacheControl)
	}
}

// readerServiceAttr names the service of readers' spans (precomputed).
var readerServiceAttr = attribute.String("docspub.service", route.Sites)
