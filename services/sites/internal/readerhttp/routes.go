// Package readerhttp serves published sites to readers over HTTP: the
// gateway forwards every reader's request (any path outside /v1, without
// a bearer token) to /reader/<path> with an internal token of its own,
// the reader's host in X-Forwarded-Host and address in X-Forwarded-For.
// It turns the request into a reader.Request, writes the reader's answer
// with the headers a published page needs (X-Robots-Tag, a
// Content-Security-Policy that runs no script of content's, caching, cookies scoped to
// the site's path). A read to record in insights and the tags of a public
// answer go back to the gateway in internal headers (readerapi): the
// gateway records reads, sets readers' insights cookies and caches public
// pages.
package readerhttp

import (
	"bytes"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internalapi/readerapi"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/services/sites/internal/reader"
	"github.com/gin-gonic/gin"
)

// Prefix is where the gateway sends readers' requests.
const Prefix = "/reader"

type handlers struct {
	reader *reader.Reader
	log    *slog.Logger
}

// Register adds the reader's routes to e: GET and HEAD of any path under
// Prefix, for the gateway only (an internal token naming it).
func Register(e gin.IRouter, rd *reader.Reader, signer *internaltoken.Signer, log *slog.Logger) {
	h := &handlers{reader: rd, log: log}
	g := e.Group(Prefix, internaltoken.Require(signer), internaltoken.RequireService("gateway"))
	g.GET("/*path", h.serve)
	g.HEAD("/*path", h.serve)
}

// Headers of every answer. Pages load nothing but their own styles,
// images, the reader's one script (by its hash) and frames of the embed
// providers it allows: no script written in content runs.
var pagePolicy = reader.PagePolicy

const filePolicy = "sandbox; default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'"

// serve answers a reader's request: the reader's answer with the headers
// a published page or file needs, its read recorded in insights.
func (h *handlers) serve(c *gin.Context) {
	r := c.Request
	req := readerRequest(r)
	resp := h.reader.Serve(r.Context(), req)
	if resp.Err != nil && resp.Status >= 500 {
		h.log.ErrorContext(r.Context(), "reader request failed", "err", resp.Err, "path", req.Path,
			"request_id", c.GetString("request_id"))
	}
	if d := apierr.RetryAfterOf(resp.Err); d > 0 {
		c.Header("Retry-After", strconv.Itoa(int(max(time.Second, d).Seconds())))
	}
	setHeaders(c, resp)
	setInternal(c.Writer.Header(), resp)
	writeAnswer(c, resp)
}

// setInternal tells the gateway, in headers it drops before answering,
// the read to record in insights (a 200 that is a view), the tags of an
// answer any cache may keep and whether it was built from nothing of the
// reader's (impersonal: the gateway's page cache keeps only those).
func setInternal(hd http.Header, resp *reader.Response) {
	if v := resp.View; v != nil && resp.Status == http.StatusOK {
		hd.Set(readerapi.ViewHeader, readerapi.View{Type: v.Type, LLMS: v.LLMS, Organization: v.Organization,
			Site: v.Site, SiteSection: v.SiteSection, SiteSpace: v.SiteSpace, Space: v.Space, Revision: v.Revision,
			Page: v.Page, URL: v.URL, Claims: v.Claims, CookiePath: resp.CookiePath, Secure: resp.Secure}.Encode())
	}
	if len(resp.Tags) > 0 && resp.Status == http.StatusOK && strings.HasPrefix(hd.Get("Cache-Control"), "public") {
		hd.Set(readerapi.TagsHeader, readerapi.JoinTags(resp.Tags))
		if resp.Impersonal && len(hd.Values("Set-Cookie")) == 0 {
			hd.Set(readerapi.ImpersonalHeader, readerapi.Impersonal)
		}
	}
}

// readerRequest is the reader's view of a request the gateway forwarded.
func readerRequest(r *http.Request) reader.Request {
	host := r.Header.Get("X-Forwarded-Host")
	if host == "" {
		host = r.Host
	}
	req := reader.Request{Host: host, Path: strings.TrimPrefix(r.URL.Path, Prefix), Query: r.URL.Query(),
		Cookies: map[string]string{}, Range: r.Header.Get("Range"), IfNoneMatch: r.Header.Get("If-None-Match"),
		AcceptsGzip: httpx.AcceptsGzip(r.Header.Get("Accept-Encoding"))}
	for _, name := range []string{reader.CookieShareKey, reader.CookieVisitor, reader.CookieUnsigned} {
		if ck, err := r.Cookie(name); err == nil {
			req.Cookies[name] = ck.Value
		}
	}
	return req
}

// setHeaders sets the headers of every answer: content sniffing,
// referrer, robots, the policy and caching of a file or a page, the
// reader's cookies.
func setHeaders(c *gin.Context, resp *reader.Response) {
	hd := c.Writer.Header()
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "same-origin")
	if resp.NoIndex {
		hd.Set("X-Robots-Tag", "noindex")
	}
	switch {
	case resp.Immutable:
		hd.Set("Content-Security-Policy", filePolicy)
		hd.Set("Cache-Control", httpx.Immutable(resp.Public))
		if resp.ETag != "" {
			hd.Set("ETag", `"`+resp.ETag+`"`)
		}
		disposition := "attachment"
		if resp.Inline {
			disposition = "inline"
		}
		hd.Set("Content-Disposition", disposition+`; filename="`+strings.Map(safeName, resp.Name)+`"`)
	default:
		hd.Set("Content-Security-Policy", pagePolicy)
		hd.Set("Cache-Control", pageCaching(resp))
	}
	for _, ck := range resp.Cookies {
		http.SetCookie(c.Writer, &http.Cookie{Name: ck.Name, Value: ck.Value, Path: ck.Path, MaxAge: ck.MaxAge,
			HttpOnly: true, Secure: resp.Secure, SameSite: http.SameSiteLaxMode})
	}
}

// writeAnswer writes the answer's status and body: a redirect, a file
// not modified, a file streamed or at hand, or a page.
func writeAnswer(c *gin.Context, resp *reader.Response) {
	r := c.Request
	hd := c.Writer.Header()
	if resp.Location != "" {
		c.Redirect(resp.Status, resp.Location)
		return
	}
	if resp.Immutable && resp.Status == http.StatusNotModified {
		c.Status(http.StatusNotModified)
		c.Writer.WriteHeaderNow()
		return
	}
	if resp.File != nil {
		defer resp.File.Close()
		if resp.ContentRange != "" {
			hd.Set("Content-Range", resp.ContentRange)
		}
		hd.Set("Accept-Ranges", "bytes")
		if r.Method == http.MethodHead {
			writeHead(c, resp.Status, resp.Type, resp.Size)
			return
		}
		c.DataFromReader(resp.Status, resp.Size, resp.Type, resp.File, nil)
		return
	}
	if resp.Immutable && resp.Status == http.StatusOK {
		// A file at hand: If-None-Match, Range and HEAD as a static file
		// server answers them (the ETag is set above; a gzipped answer's
		// is its own, as a page's).
		hd.Set("Content-Type", resp.Type)
		body := resp.Body
		if resp.Encodings {
			hd.Add("Vary", "Accept-Encoding")
		}
		if resp.Gzip != nil {
			hd.Set("Content-Encoding", "gzip")
			hd.Set("ETag", `"`+resp.ETag+`-gzip"`)
			body = resp.Gzip
		}
		httpx.ServeFile(c.Writer, r, "", bytes.NewReader(body))
		return
	}
	writePage(c, resp)
}

// writePage writes a page, gzipped when the reader takes it, with its
// validator; not modified when the reader has it.
func writePage(c *gin.Context, resp *reader.Response) {
	r := c.Request
	hd := c.Writer.Header()
	hd.Add("Vary", "Accept-Encoding")
	body := resp.Body
	gz := resp.Gzip != nil && httpx.AcceptsGzip(r.Header.Get("Accept-Encoding"))
	if gz {
		hd.Set("Content-Encoding", "gzip")
		body = resp.Gzip
	}
	if resp.ETag != "" && resp.Status == http.StatusOK {
		// A page's validator: each encoding is a representation of its own.
		etag := `"` + resp.ETag + `"`
		if gz {
			etag = `"` + resp.ETag + `-gzip"`
		}
		hd.Set("ETag", etag)
		if !resp.LastModified.IsZero() {
			hd.Set("Last-Modified", resp.LastModified.UTC().Format(http.TimeFormat))
		}
		if noneMatch(r.Header.Get("If-None-Match"), resp.ETag) {
			hd.Del("Content-Type")
			c.Status(http.StatusNotModified)
			c.Writer.WriteHeaderNow()
			return
		}
	}
	if r.Method == http.MethodHead {
		writeHead(c, resp.Status, resp.Type, int64(len(body)))
		return
	}
	c.Data(resp.Status, resp.Type, body)
}

// PublicPageCaching is the Cache-Control of a public site's page, the
// same for every reader: any cache may keep it a minute and serve it
// stale 30 s more while it revalidates (no stale-if-error is granted).
// A site made restricted is so served by a CDN for at most 90 s.
const PublicPageCaching = "public, max-age=60, stale-while-revalidate=30"

// pageCaching is the Cache-Control of an answer that is not a file: a
// public site's is PublicPageCaching; a site for some readers only is
// stored by no cache; anything else (unlisted, adaptive content, errors)
// only by the reader's own cache, revalidated on each use.
func pageCaching(resp *reader.Response) string {
	switch {
	case resp.Restricted:
		return "private, no-store"
	case resp.Public && !resp.Varies && resp.Status == http.StatusOK && len(resp.Cookies) == 0:
		return PublicPageCaching
	default:
		return "private, no-cache"
	}
}

// noneMatch tells whether an If-None-Match header names the page's
// validator (in either encoding) or is "*".
func noneMatch(header, etag string) bool {
	return httpx.ETagMatches(header, `"`+etag+`"`) || httpx.ETagMatches(header, `"`+etag+`-gzip"`)
}

// writeHead answers a HEAD: the headers a GET would have, no body.
func writeHead(c *gin.Context, status int, contentType string, size int64) {
	c.Header("Content-Type", contentType)
	if size >= 0 {
		c.Header("Content-Length", strconv.FormatInt(size, 10))
	}
	c.Status(status)
	c.Writer.WriteHeaderNow()
}

// safeName keeps a file name to characters a header quotes safely.
func safeName(r rune) rune {
	if r < 0x20 || r == '"' || r == '\\' || r >= 0x7f {
		return '_'
	}
	return r
}
