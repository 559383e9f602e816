package edge

import (
	"log/slog"
	"net/http"
	"time"
	"unsafe"

	"github.com/docspub/platform/gateway/internal/clientip"
	"github.com/docspub/platform/gateway/internal/pagecache"
	"github.com/docspub/platform/gateway/internal/ratelimit"
	"github.com/docspub/platform/gateway/internal/views"
	"github.com/docspub/platform/libs/httpx"
	"github.com/valyala/fasthttp"
)

// Hits answers the readers' edge's page-cache hits itself, as the
// gateway's handler answers them (internal/reader's serveKept), without
// net/http's request and response or gin's chain: the request id, the
// per-client-address rate limit, the kept answer in the coding the
// reader takes best (304 when they hold it), the read recorded in
// insights with the reader's cookies, and the access log line. A request
// it does not answer (not Eligible, nothing fresh kept: a miss fills the
// cache) goes to the gateway's handler.
type Hits struct {
	Pages   *pagecache.Cache
	Views   *views.Recorder
	Limits  *ratelimit.Limiter
	Clients *clientip.Resolver
	Log     *slog.Logger
}

// serve answers ctx from the page cache and reports whether it did.
func (h *Hits) serve(ctx *fasthttp.RequestCtx) bool {
	start := time.Now()
	req := &ctx.Request.Header
	uri := req.RequestURI()
	if !plainPath(uri) || len(req.PeekAll("Range")) > 0 {
		return false
	}
	cookies := lines(req.PeekAll("Cookie"))
	if !pagecache.OnlyInsightsCookies(cookies) {
		return false
	}
	e := h.Pages.Hit(transient(req.Host()), transient(uri))
	if e == nil {
		return false
	}
	peer, ok := clientip.Peer(ctx.RemoteAddr())
	if !ok {
		return false
	}
	client := h.Clients.ClientFrom(peer, lines(req.PeekAll("X-Forwarded-For")), lines(req.PeekAll("X-Real-Ip")))
	resp := &ctx.Response
	id := httpx.RequestID(string(req.Peek(httpx.RequestIDHeader)))
	resp.Header.Set(httpx.RequestIDHeader, id)
	if h.Limits.On() {
		if err := h.Limits.Check(ctx, ratelimit.Reader, client, client, resp.Header.Set); err != nil {
			writeError(ctx, err)
			h.logged(ctx, id, client, start)
			return true
		}
	}
	h.answer(ctx, e, client, cookies)
	h.logged(ctx, id, client, start)
	return true
}

// answer writes the kept answer e (internal/reader's serveKept).
func (h *Hits) answer(ctx *fasthttp.RequestCtx, e *pagecache.Entry, client string, cookies []string) {
	req, resp := &ctx.Request.Header, &ctx.Response
	v := e.Choose(transient(req.Peek("Accept-Encoding")))
	if v.ETag != "" && httpx.ETagMatches(transient(req.Peek("If-None-Match")), v.ETag) {
		e.EachHeader(v, true, resp.Header.Add)
		ctx.SetStatusCode(http.StatusNotModified)
		return
	}
	e.EachHeader(v, false, resp.Header.Add)
	if e.View != nil && ctx.IsGet() {
		r := views.Request{UserAgent: string(req.UserAgent()), AcceptLanguage: string(req.Peek("Accept-Language")),
			Referer: string(req.Peek("Referer")), Cookies: cookies}
		if h.Views.View(&resp.Header, r, client, *e.View) && views.Shared(transient(resp.Header.Peek("Cache-Control"))) {
			resp.Header.Set("Cache-Control", views.PrivateCacheControl)
		}
	}
	ctx.SetStatusCode(e.Status)
	// The body is the entry's, not copied (fasthttp skips it for a HEAD).
	resp.SetBodyRaw(v.Body)
}

// logged writes the access log line of an answer given here (its path
// the plain one served, as the main listener's line names it).
func (h *Hits) logged(ctx *fasthttp.RequestCtx, id, client string, start time.Time) {
	if !h.Log.Enabled(ctx, slog.LevelInfo) {
		return // no strings copied for a line not kept
	}
	httpx.LogRequest(ctx, h.Log, httpx.AccessLine{Method: string(ctx.Method()), Path: string(ctx.Request.Header.RequestURI()),
		Status: ctx.Response.StatusCode(), Start: start, ID: id, Client: client})
}

// plainPath tells whether a request target is a path of letters, digits
// and "-._~/" alone: net/http's URL.EscapedPath of it is itself (the key
// the page cache keeps it under), and it has no query. Any other target
// is the gateway handler's to parse.
func plainPath(uri []byte) bool {
	if len(uri) == 0 || uri[0] != '/' {
		return false
	}
	for _, c := range uri {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '-', c == '.', c == '_', c == '~', c == '/':
		default:
			return false
		}
	}
	return true
}

// lines copies header lines (nil for none: no allocation without them).
func lines(values [][]byte) []string {
	if len(values) == 0 {
		return nil
	}
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = string(v)
	}
	return out
}

// transient is b as a string, without a copy, for a lookup or a
// comparison while the request is served: never kept.
func transient(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
