// Package readerhttp serves published sites to readers over HTTP: the
// gateway forwards every reader's request (any path outside /v1, without
// a bearer token) to /reader/<path> with an internal token of its own,
// the reader's host in X-Forwarded-Host and address in X-Forwarded-For.
// It turns the request into a reader.Request, writes the reader's answer
// with the headers a published page needs (X-Robots-Tag, a
// Content-Security-Policy that runs no script of content's, caching, cookies scoped to
// the site's path), and records each read in insights without waiting.
package readerhttp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/ids"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/services/sites/internal/insightsclient"
	"github.com/docspub/platform/services/sites/internal/reader"
	"github.com/gin-gonic/gin"
)

// Prefix is where the gateway sends readers' requests.
const Prefix = "/reader"

// Recorder records reads (insightsclient.Recorder).
type Recorder interface {
	Record(ev insightsclient.Event)
}

type handlers struct {
	reader   *reader.Reader
	recorder Recorder
	log      *slog.Logger
}

// Register adds the reader's routes to e: GET and HEAD of any path under
// Prefix, for the gateway only (an internal token naming it).
func Register(e gin.IRouter, rd *reader.Reader, signer *internaltoken.Signer, rec Recorder, log *slog.Logger) {
	h := &handlers{reader: rd, recorder: rec, log: log}
	g := e.Group(Prefix, internaltoken.Require(signer), internaltoken.RequireService("gateway"))
	g.GET("/*path", h.serve)
	g.HEAD("/*path", h.serve)
}

// Bounds of insights events (the insights service's).
const (
	maxClaimsBytes = 4096
	maxURL         = 2048
)

// Insights cookies: who reads, across visits and within one.
const (
	cookieVisitorID = "docspub_vid"
	cookieSessionID = "docspub_sid"
)

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
	hd := c.Writer.Header()
	if resp.View != nil && resp.Status == http.StatusOK && r.Method == http.MethodGet {
		if h.record(c, resp) && !resp.Immutable && strings.HasPrefix(hd.Get("Cache-Control"), "public") {
			// A cookie of this reader's own: no shared cache keeps it.
			hd.Set("Cache-Control", "private, no-cache")
		}
	}
	writeAnswer(c, resp)
}

// readerRequest is the reader's view of a request the gateway forwarded.
func readerRequest(r *http.Request) reader.Request {
	host := r.Header.Get("X-Forwarded-Host")
	if host == "" {
		host = r.Host
	}
	req := reader.Request{Host: host, Path: strings.TrimPrefix(r.URL.Path, Prefix), Query: r.URL.Query(),
		Cookies: map[string]string{}, Range: r.Header.Get("Range"), IfNoneMatch: r.Header.Get("If-None-Match")}
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
		// server answers them (the ETag is set above).
		hd.Set("Content-Type", resp.Type)
		httpx.ServeFile(c.Writer, r, "", bytes.NewReader(resp.Body))
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
	gz := resp.Gzip != nil && acceptsGzip(r.Header.Get("Accept-Encoding"))
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

// pageCaching is the Cache-Control of an answer that is not a file: a
// public site's, the same for every reader, may be kept by any cache for a
// minute and served stale while revalidated; a site for some readers only
// is stored by none; anything else (unlisted, adaptive content, errors)
// only by the reader's own cache, revalidated on each use.
func pageCaching(resp *reader.Response) string {
	switch {
	case resp.Restricted:
		return "private, no-store"
	case resp.Public && !resp.Varies && resp.Status == http.StatusOK && len(resp.Cookies) == 0:
		return "public, max-age=60, stale-while-revalidate=300"
	default:
		return "private, no-cache"
	}
}

// noneMatch tells whether an If-None-Match header names the page's
// validator (in either encoding) or is "*".
func noneMatch(header, etag string) bool {
	for _, tag := range strings.Split(header, ",") {
		tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
		if tag == "*" || tag == `"`+etag+`"` || tag == `"`+etag+`-gzip"` {
			return true
		}
	}
	return false
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

// acceptsGzip tells whether an Accept-Encoding header takes gzip.
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		name, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(name), "gzip") {
			return strings.TrimSpace(strings.ReplaceAll(q, " ", "")) != "q=0"
		}
	}
	return false
}

// safeName keeps a file name to characters a header quotes safely.
func safeName(r rune) rune {
	if r < 0x20 || r == '"' || r == '\\' || r >= 0x7f {
		return '_'
	}
	return r
}

// record queues the read's insights event (displayContext server). The
// reader's visitor and session ids are cookies a page view sets; without
// them (robots, agents) they derive from the address and user agent.
func (h *handlers) record(c *gin.Context, resp *reader.Response) (setCookies bool) {
	v := resp.View
	r := c.Request
	ip := strings.TrimSpace(strings.Split(r.Header.Get("X-Forwarded-For"), ",")[0])
	ua := r.UserAgent()
	if len(ua) > 1024 {
		ua = ua[:1024]
	}
	visitorID, sessionID := cookie(r, cookieVisitorID), cookie(r, cookieSessionID)
	if visitorID == "" || sessionID == "" {
		sum := sha256.Sum256([]byte(ip + "\x00" + ua))
		derived := hex.EncodeToString(sum[:12])
		if v.Type == "page_view" {
			derived = ids.New()
			path := resp.CookiePath
			if visitorID == "" {
				visitorID, setCookies = derived, true
				http.SetCookie(c.Writer, &http.Cookie{Name: cookieVisitorID, Value: visitorID, Path: path,
					MaxAge: 365 * 24 * 3600, HttpOnly: true, Secure: resp.Secure, SameSite: http.SameSiteLaxMode})
			}
			if sessionID == "" {
				sessionID, setCookies = derived, true
				http.SetCookie(c.Writer, &http.Cookie{Name: cookieSessionID, Value: sessionID, Path: path,
					HttpOnly: true, Secure: resp.Secure, SameSite: http.SameSiteLaxMode})
			}
		}
		if visitorID == "" {
			visitorID = derived
		}
		if sessionID == "" {
			sessionID = derived
		}
	}
	session := map[string]any{"visitorId": visitorID, "sessionId": sessionID, "ip": ip, "userAgent": ua}
	if lang := language(r.Header.Get("Accept-Language")); lang != "" {
		session["language"] = lang
	}
	if ref := r.Referer(); ref != "" && len(ref) <= 2048 {
		if u, err := url.Parse(ref); err == nil && u.IsAbs() && u.Host != "" {
			session["referrer"] = ref
		}
	}
	// Insights refuses a whole batch for one event it cannot take: claims
	// or a URL over its bounds are left out here.
	if raw, err := json.Marshal(v.Claims); err == nil && len(v.Claims) > 0 && len(raw) <= maxClaimsBytes {
		session["visitorAuthClaims"] = v.Claims
	}
	if len(v.URL) > maxURL {
		return setCookies
	}
	location := map[string]any{"url": v.URL, "displayContext": "server"}
	for k, val := range map[string]string{"siteSection": v.SiteSection, "siteSpace": v.SiteSpace, "space": v.Space,
		"revision": v.Revision, "page": v.Page} {
		if val != "" {
			location[k] = val
		}
	}
	ev := map[string]any{"type": v.Type, "session": session, "location": location,
		"timestamp": time.Now().UTC().Format(time.RFC3339Nano)}
	if v.LLMS != "" {
		ev["llmsVariant"] = v.LLMS
	}
	h.recorder.Record(insightsclient.Event{Organization: v.Organization, Site: v.Site, Body: ev})
	return setCookies
}

func cookie(r *http.Request, name string) string {
	if ck, err := r.Cookie(name); err == nil && len(ck.Value) <= 64 {
		return ck.Value
	}
	return ""
}

// language is the first language of an Accept-Language header, when it
// looks like a language tag.
func language(header string) string {
	tag := strings.TrimSpace(strings.Split(strings.Split(header, ",")[0], ";")[0])
	if tag == "" || tag == "*" || len(tag) > 35 {
		return ""
	}
	for _, r := range tag {
		if !(r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return ""
		}
	}
	return tag
}
