package gateway_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/docspub/platform/libs/internalapi/readerapi"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/kafkatest"
	"github.com/docspub/platform/libs/waittest"
)

// readerSite stands in for sites' reader: one public page (cached by
// anyone, tagged, a view) whose text and visibility a test changes, and a
// page of a restricted site. As sites does, it reads the reader's cookies
// on every Cookie line: a visitor's token puts its claims in the view, and
// only an answer built from no cookie of access is marked impersonal.
type readerSite struct {
	srv    *httptest.Server
	hits   atomic.Int64
	mu     sync.Mutex
	text   string
	public bool
}

func newReaderSite(t *testing.T) *readerSite {
	rs := &readerSite{text: "First words.", public: true}
	rs.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/v1/") { // the sites API: any write succeeds
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, "{}")
			return
		}
		rs.hits.Add(1)
		w.Header().Set("X-Request-Id", r.Header.Get("X-Request-Id")) // as every service does
		rs.mu.Lock()
		text, public := rs.text, rs.public
		rs.mu.Unlock()
		h := w.Header()
		if !public || r.URL.Path != "/reader/sites/o1/s1/page" {
			h.Set("Cache-Control", "private, no-cache")
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, "no page here")
			return
		}
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Cache-Control", "public, max-age=60, stale-while-revalidate=30")
		h.Set("ETag", `"`+text[:5]+`"`)
		h.Set("Vary", "Accept-Encoding")
		h.Set(readerapi.TagsHeader, readerapi.JoinTags([]string{readerapi.OrgTag("o1"), readerapi.SiteTag("s1"), readerapi.SpaceTag("sp1")}))
		view := readerapi.View{Type: "page_view", Organization: "o1", Site: "s1", Space: "sp1",
			URL: "http://gw/sites/o1/s1/page", CookiePath: "/sites/o1/s1"}
		personal := false
		for _, name := range []string{"docspub_share", "docspub_visitor", "docspub_unsigned"} {
			if ck, err := r.Cookie(name); err == nil {
				personal = true
				if name == "docspub_visitor" {
					view.Claims = map[string]any{"sub": ck.Value}
				}
			}
		}
		if !personal {
			h.Set(readerapi.ImpersonalHeader, readerapi.Impersonal)
		}
		h.Set(readerapi.ViewHeader, view.Encode())
		_, _ = io.WriteString(w, "<p>"+text+"</p>")
	}))
	t.Cleanup(rs.srv.Close)
	return rs
}

func (rs *readerSite) set(text string, public bool) {
	rs.mu.Lock()
	rs.text, rs.public = text, public
	rs.mu.Unlock()
}

// insightsEvents stands in for insights' event intake: it keeps the events
// posted with a token minted for insights that names the gateway.
type insightsEvents struct {
	srv    *httptest.Server
	mu     sync.Mutex
	events []map[string]any
}

func newInsightsEvents(t *testing.T) *insightsEvents {
	verify, err := internaltoken.NewSigner("insights", secret, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	in := &insightsEvents{}
	in.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := verify.Verify(r.Header.Get(internaltoken.Header))
		if err != nil || p.Service != "gateway" || r.URL.Path != "/v1/orgs/o1/sites/s1/insights/events" {
			w.WriteHeader(http.StatusForbidden)
			return
		}
		var body struct{ Events []map[string]any }
		_ = json.NewDecoder(r.Body).Decode(&body)
		in.mu.Lock()
		in.events = append(in.events, body.Events...)
		in.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(in.srv.Close)
	return in
}

func (in *insightsEvents) recorded() []map[string]any {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]map[string]any(nil), in.events...)
}

// read GETs (or HEADs) a reader's path through the gateway.
func (h *harness) read(t *testing.T, method, path string, header map[string]string) (*http.Response, string) {
	t.Helper()
	hd := http.Header{}
	for k, v := range header {
		hd.Set(k, v)
	}
	resp := h.do(t, method, path, "", nil, hd)
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestReaderPagesFromCache: a public page is answered from the gateway's
// cache after its first read (no hop to sites), each GET still recorded in
// insights with the reader's session; a first visit gets its insights
// cookies and a private Cache-Control, a returning reader the public one;
// If-None-Match answers 304 with no body, HEAD no body; a request with a
// query or a cookie of access, and an answer that is not public, always
// reach sites.
//
// The readers' listener (READER_ADDR) answers all of it the same way.
func TestReaderPagesFromCache(t *testing.T) {
	t.Parallel()
	for _, readers := range []bool{false, true} {
		t.Run(map[bool]string{false: "gateway", true: "readers' listener"}[readers], func(t *testing.T) {
			t.Parallel()
			readerPagesFromCache(t, readers)
		})
	}
}

func readerPagesFromCache(t *testing.T, readers bool) {
	rs, in := newReaderSite(t), newInsightsEvents(t)
	k := kafkatest.Start(t)
	h := newHarness(t, options{env: map[string]string{"KAFKA_BROKERS": strings.Join(k.Brokers, ","), "READER_CACHE_TTL": "1m"},
		upstreams: map[string]string{"sites": rs.srv.URL, "insights": in.srv.URL}, readers: readers})
	h.target = h.readers
	bg, stop := context.WithCancel(context.Background())
	h.gw.RunBackground(bg)
	t.Cleanup(func() { stop(); _ = h.gw.Close(context.Background()) })

	first, body := h.read(t, http.MethodGet, "/sites/o1/s1/page", map[string]string{"User-Agent": "ua-test"})
	if first.StatusCode != 200 || body != "<p>First words.</p>" || len(first.Cookies()) != 2 ||
		first.Header.Get("Cache-Control") != "private, no-cache" {
		t.Fatalf("first visit: %d %q cookies %v, Cache-Control %q", first.StatusCode, body, first.Cookies(), first.Header.Get("Cache-Control"))
	}
	for _, name := range []string{readerapi.ViewHeader, readerapi.TagsHeader} {
		if first.Header.Get(name) != "" {
			t.Errorf("%s reached the reader", name)
		}
	}
	cookies := "docspub_vid=" + first.Cookies()[0].Value + "; docspub_sid=" + first.Cookies()[1].Value
	hits := rs.hits.Load()
	ids := map[string]bool{first.Header.Get("X-Request-Id"): true}
	for range 5 {
		resp, body := h.read(t, http.MethodGet, "/sites/o1/s1/page", map[string]string{"Cookie": cookies})
		ids[resp.Header.Get("X-Request-Id")] = true
		if resp.StatusCode != 200 || body != "<p>First words.</p>" || len(resp.Cookies()) != 0 ||
			resp.Header.Get("Cache-Control") != "public, max-age=60, stale-while-revalidate=30" || resp.Header.Get("ETag") != `"First"` {
			t.Fatalf("returning reader: %d %q cookies %v, headers %v", resp.StatusCode, body, resp.Cookies(), resp.Header)
		}
	}
	if n := rs.hits.Load() - hits; n != 0 {
		t.Errorf("5 cached reads reached sites %d times", n)
	}
	if len(ids) != 6 || ids[""] {
		t.Errorf("request ids of 6 reads: %v", ids)
	}
	// A first visit from the cache gets cookies of its own too.
	if resp, _ := h.read(t, http.MethodGet, "/sites/o1/s1/page", nil); len(resp.Cookies()) != 2 ||
		resp.Header.Get("Cache-Control") != "private, no-cache" || resp.Cookies()[0].Path != "/sites/o1/s1" {
		t.Errorf("first visit from the cache: cookies %v, Cache-Control %q", resp.Cookies(), resp.Header.Get("Cache-Control"))
	}
	nm, body := h.read(t, http.MethodGet, "/sites/o1/s1/page", map[string]string{"If-None-Match": `"First"`})
	if nm.StatusCode != http.StatusNotModified || body != "" || nm.Header.Get("ETag") != `"First"` {
		t.Errorf("If-None-Match: %d, %d bytes, ETag %q", nm.StatusCode, len(body), nm.Header.Get("ETag"))
	}
	// (Go's client asks for gzip on a GET, not on a HEAD: one key each.)
	head, body := h.read(t, http.MethodHead, "/sites/o1/s1/page", map[string]string{"Accept-Encoding": "gzip"})
	if head.StatusCode != 200 || body != "" || head.Header.Get("Content-Length") != "19" {
		t.Errorf("HEAD: %d, %d bytes, Content-Length %q", head.StatusCode, len(body), head.Header.Get("Content-Length"))
	}
	if n := rs.hits.Load() - hits; n != 0 {
		t.Errorf("cached reads reached sites %d times", n)
	}
	for _, header := range []map[string]string{{"Cookie": "docspub_share=k1"}, {"Range": "bytes=0-3"}} {
		before := rs.hits.Load()
		h.read(t, http.MethodGet, "/sites/o1/s1/page", header)
		if rs.hits.Load() == before {
			t.Errorf("a read with %v was answered from the cache", header)
		}
	}
	before := rs.hits.Load()
	h.read(t, http.MethodGet, "/sites/o1/s1/page?shareKey=k1", nil)
	h.read(t, http.MethodGet, "/sites/o1/s1/other", nil)
	h.read(t, http.MethodGet, "/sites/o1/s1/other", nil)
	if n := rs.hits.Load() - before; n != 3 {
		t.Errorf("a query and a page that is not public reached sites %d times of 3", n)
	}

	// Every GET of the page is a view: 1 + 5 + 1 from the cache, + 2 that
	// reached sites (share cookie, range) + the query's.
	waittest.Until(t, "the views recorded", 10*time.Second, func() bool { return len(in.recorded()) >= 10 })
	ev := in.recorded()[1]
	s, _ := ev["session"].(map[string]any)
	if ev["type"] != "page_view" || s["visitorId"] != first.Cookies()[0].Value || s["ip"] != "127.0.0.1" {
		t.Errorf("a returning reader's view: %v", ev)
	}
}

// TestSplitCookieNeverKept: a request whose first Cookie line is empty
// and whose second carries a visitor's token is not answered from the
// cache nor kept in it (sites reads every line, and builds the answer
// with the visitor's claims); other readers' answers, kept or not, never
// carry those claims, and their reads are recorded under none. A forged
// impersonal mark from a client changes nothing.
func TestSplitCookieNeverKept(t *testing.T) {
	t.Parallel()
	rs, in := newReaderSite(t), newInsightsEvents(t)
	k := kafkatest.Start(t)
	h := newHarness(t, options{env: map[string]string{"KAFKA_BROKERS": strings.Join(k.Brokers, ","), "READER_CACHE_TTL": "1m"},
		upstreams: map[string]string{"sites": rs.srv.URL, "insights": in.srv.URL}})
	bg, stop := context.WithCancel(context.Background())
	h.gw.RunBackground(bg)
	t.Cleanup(func() { stop(); _ = h.gw.Close(context.Background()) })

	split := http.Header{"Cookie": {"", "docspub_visitor=attacker-jwt"}, readerapi.ImpersonalHeader: {readerapi.Impersonal}}
	for range 2 {
		before := rs.hits.Load()
		resp := h.do(t, http.MethodGet, "/sites/o1/s1/page", "", nil, split)
		if resp.StatusCode != 200 || rs.hits.Load() == before || resp.Header.Get(readerapi.ImpersonalHeader) != "" {
			t.Fatalf("a split-Cookie read: %d, reached sites %v, headers %v", resp.StatusCode, rs.hits.Load() != before, resp.Header)
		}
	}
	// The next reader without cookies still reaches sites: nothing was kept.
	before := rs.hits.Load()
	h.read(t, http.MethodGet, "/sites/o1/s1/page", nil)
	if rs.hits.Load() == before {
		t.Fatal("a split-Cookie read filled the page cache")
	}
	// Kept now (impersonal): the following readers are answered from it.
	for range 3 {
		h.read(t, http.MethodGet, "/sites/o1/s1/page", nil)
	}
	if n := rs.hits.Load() - before; n != 1 {
		t.Errorf("4 cookieless reads reached sites %d times, want 1", n)
	}
	// A split-Cookie read is not answered from the cache either.
	before = rs.hits.Load()
	h.do(t, http.MethodGet, "/sites/o1/s1/page", "", nil, split)
	if rs.hits.Load() == before {
		t.Error("a split-Cookie read was answered from the cache")
	}

	waittest.Until(t, "the views recorded", 10*time.Second, func() bool { return len(in.recorded()) >= 7 })
	stamped := 0
	for _, ev := range in.recorded() {
		s, _ := ev["session"].(map[string]any)
		if claims, ok := s["visitorAuthClaims"].(map[string]any); ok {
			if claims["sub"] != "attacker-jwt" {
				t.Errorf("claims %v", claims)
			}
			stamped++
		}
	}
	if stamped != 3 {
		t.Errorf("%d views carry the visitor's claims, want the 3 split-Cookie reads' own", stamped)
	}
}

// TestWritePurgesReaderCache: a successful write through the gateway drops
// the cached answers of its organization or space before the writer has
// its answer, so a site made restricted is never served from the cache
// after that; a failed write, one of another organization, or insights
// events of the site (its readers'), drop nothing. The same holds of the
// readers' listener's answers.
func TestWritePurgesReaderCache(t *testing.T) {
	t.Parallel()
	for _, readers := range []bool{false, true} {
		t.Run(map[bool]string{false: "gateway", true: "readers' listener"}[readers], func(t *testing.T) {
			t.Parallel()
			writePurgesReaderCache(t, readers)
		})
	}
}

// writePurgesReaderCache reads on the readers' listener when readers is
// set, and writes through the gateway's.
func writePurgesReaderCache(t *testing.T, readers bool) {
	rs := newReaderSite(t)
	h := newHarness(t, options{env: map[string]string{"READER_CACHE_TTL": "1m"},
		upstreams: map[string]string{"sites": rs.srv.URL, "insights": newUpstream(t, "insights").srv.URL}, readers: readers})
	read := func(t *testing.T, method, path string, header map[string]string) (*http.Response, string) {
		t.Helper()
		h.target = h.readers
		defer func() { h.target = "" }()
		return h.read(t, method, path, header)
	}
	token, _ := h.identity.add(randomID("user"), map[string]string{"o1": "admin", "o2": "admin"})
	cached := func() bool {
		before := rs.hits.Load()
		read(t, http.MethodGet, "/sites/o1/s1/page", nil)
		return rs.hits.Load() == before
	}
	read(t, http.MethodGet, "/sites/o1/s1/page", nil)
	if !cached() {
		t.Fatal("the page is not cached")
	}
	wantStatus(t, h.do(t, http.MethodPatch, "/v1/orgs/o2/sites/s9", token, strings.NewReader(`{}`), nil), 200)
	if !cached() {
		t.Error("a write of another organization dropped the page")
	}
	wantStatus(t, h.do(t, http.MethodGet, "/v1/orgs/o1/sites/s1", token, nil, nil), 200)
	if !cached() {
		t.Error("a read dropped the page")
	}
	for _, path := range []string{"/v1/orgs/o1/sites/s1/insights/events", "/v1/orgs/o1/sites/s1/insights/events/aggregate"} {
		wantStatus(t, h.do(t, http.MethodPost, path, token, strings.NewReader(`{}`), nil), 200)
		if !cached() {
			t.Errorf("POST %s dropped the page", path)
		}
	}

	rs.set("First words.", false) // the site is made restricted...
	wantStatus(t, h.do(t, http.MethodPatch, "/v1/orgs/o1/sites/s1", token, strings.NewReader(`{"visibility":"share-link"}`), nil), 200)
	if resp, body := read(t, http.MethodGet, "/sites/o1/s1/page", nil); resp.StatusCode != 404 || strings.Contains(body, "First") {
		t.Errorf("right after the write: %d %q", resp.StatusCode, body)
	}

	rs.set("Second words.", true)
	read(t, http.MethodGet, "/sites/o1/s1/page", nil)
	if !cached() {
		t.Fatal("the page is not cached again")
	}
	rs.set("Third words.", true)
	wantStatus(t, h.do(t, http.MethodPost, "/v1/spaces/sp1/change-requests/cr1/merge", token, nil, nil), 200)
	if _, body := read(t, http.MethodGet, "/sites/o1/s1/page", nil); body != "<p>Third words.</p>" {
		t.Errorf("after a write to the site's space: %q", body)
	}
}

// TestReaderCacheTTL: a change that does not pass through the gateway
// shows once the cached answer's TTL is over.
func TestReaderCacheTTL(t *testing.T) {
	t.Parallel()
	rs := newReaderSite(t)
	h := newHarness(t, options{env: map[string]string{"READER_CACHE_TTL": "200ms"},
		upstreams: map[string]string{"sites": rs.srv.URL}})
	h.read(t, http.MethodGet, "/sites/o1/s1/page", nil)
	rs.set("Later words.", true)
	start := time.Now()
	waittest.Until(t, "the change shown", 5*time.Second, func() bool {
		_, body := h.read(t, http.MethodGet, "/sites/o1/s1/page", nil)
		return body == "<p>Later words.</p>"
	})
	if took := time.Since(start); took > time.Second {
		t.Errorf("the change showed after %s", took)
	}
}

// TestReaderCacheEncodings: a page kept in the gateway's cache is answered
// in brotli to a client that takes it, gzipped to one that takes gzip
// only, and as is to one that sends no Accept-Encoding (or refuses both
// with q=0), each with Vary: Accept-Encoding, its own length and
// validator, whichever encoding filled the cache, and without reaching
// sites; the brotli validator answers 304; a Range still reaches sites.
func TestReaderCacheEncodings(t *testing.T) {
	t.Parallel()
	page := []byte("<!doctype html><title>Guide</title>" + strings.Repeat("<p>Zebras graze in herds.</p>\n", 400))
	gz, err := readerapi.Gzip(page)
	if err != nil {
		t.Fatal(err)
	}
	var hits atomic.Int64
	sites := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		h := w.Header()
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Cache-Control", "public, max-age=60, stale-while-revalidate=30")
		h.Set("Vary", "Accept-Encoding")
		h.Set(readerapi.TagsHeader, readerapi.OrgTag("o1"))
		h.Set(readerapi.ImpersonalHeader, readerapi.Impersonal)
		body, etag := page, `"d1"`
		if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			h.Set("Content-Encoding", "gzip")
			body, etag = gz, `"d1-gzip"`
		}
		h.Set("ETag", etag)
		_, _ = w.Write(body)
	}))
	t.Cleanup(sites.Close)
	h := newHarness(t, options{env: map[string]string{"READER_CACHE_TTL": "1m"}, upstreams: map[string]string{"sites": sites.URL}})
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	t.Cleanup(client.CloseIdleConnections)
	get := func(header map[string]string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, h.srv.URL+"/sites/o1/s1/page", nil)
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, b
	}

	// The reader who fills the cache from sites' gzip is answered as the
	// cache's readers that follow: in brotli, which they prefer.
	if fill, body := get(map[string]string{"Accept-Encoding": "gzip, br"}); fill.Header.Get("Content-Encoding") != "br" ||
		fill.Header.Get("ETag") != `"d1-br"` || fill.ContentLength != int64(len(body)) {
		t.Errorf("the refill of a brotli reader: Content-Encoding %q, ETag %q, %d bytes, Content-Length %d",
			fill.Header.Get("Content-Encoding"), fill.Header.Get("ETag"), len(body), fill.ContentLength)
	} else if plain, _ := io.ReadAll(brotli.NewReader(bytes.NewReader(body))); !bytes.Equal(plain, page) {
		t.Errorf("the refill of a brotli reader: %d bytes as is, want the page's %d", len(plain), len(page))
	}
	before := hits.Load()
	for _, tc := range []struct{ accept, coding, etag string }{
		{"br", "br", `"d1-br"`},
		{"gzip, deflate, br, zstd", "br", `"d1-br"`},
		{"gzip", "gzip", `"d1-gzip"`},
		{"br;q=0, gzip", "gzip", `"d1-gzip"`},
		{"", "", `"d1"`},
		{"gzip;q=0, br;q=0", "", `"d1"`},
	} {
		resp, body := get(map[string]string{"Accept-Encoding": tc.accept})
		var plain []byte
		switch tc.coding {
		case "br":
			plain, _ = io.ReadAll(brotli.NewReader(bytes.NewReader(body)))
		case "gzip":
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Fatalf("%q: %v", tc.accept, err)
			}
			plain, _ = io.ReadAll(zr)
		default:
			plain = body
		}
		if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != tc.coding || !bytes.Equal(plain, page) ||
			resp.Header.Get("Vary") != "Accept-Encoding" || resp.ContentLength != int64(len(body)) || resp.Header.Get("ETag") != tc.etag {
			t.Errorf("Accept-Encoding %q: %d, Content-Encoding %q, %d bytes (%d as is), headers %v",
				tc.accept, resp.StatusCode, resp.Header.Get("Content-Encoding"), len(body), len(plain), resp.Header)
		}
	}
	if nm, body := get(map[string]string{"Accept-Encoding": "br", "If-None-Match": `"d1-br"`}); nm.StatusCode != http.StatusNotModified ||
		len(body) != 0 || nm.Header.Get("ETag") != `"d1-br"` {
		t.Errorf("If-None-Match of the brotli body: %d, %d bytes, ETag %q", nm.StatusCode, len(body), nm.Header.Get("ETag"))
	}
	if n := hits.Load() - before; n != 0 {
		t.Errorf("cached reads reached sites %d times", n)
	}
	if resp, _ := get(map[string]string{"Accept-Encoding": "br", "Range": "bytes=0-9"}); hits.Load() == before || resp.Header.Get("Content-Encoding") == "br" {
		t.Errorf("a Range was answered from the cache: %v", resp.Header)
	}
}

// TestReaderRefillOnce: when a kept answer goes stale (here purged by a
// write), the readers asking for it at once reach sites once: one refills
// it, the others wait for that refill and are answered what it kept. An
// answer never kept (a restricted site's) is not waited for: every reader
// of it reaches sites.
func TestReaderRefillOnce(t *testing.T) {
	t.Parallel()
	var hits, gatedHits atomic.Int64
	var gated atomic.Bool
	gate := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/v1/") { // the sites API: any write succeeds
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, "{}")
			return
		}
		n := hits.Add(1)
		h := w.Header()
		if r.URL.Path != "/reader/sites/o1/s1/~search" {
			h.Set("Cache-Control", "private, no-cache")
			w.WriteHeader(http.StatusNotFound)
			return
		}
		if gated.Load() {
			gatedHits.Add(1)
			<-gate
		}
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Cache-Control", "public, max-age=60")
		h.Set("Vary", "Accept-Encoding")
		h.Set(readerapi.TagsHeader, readerapi.JoinTags([]string{readerapi.OrgTag("o1")}))
		h.Set(readerapi.ImpersonalHeader, readerapi.Impersonal)
		_, _ = io.WriteString(w, "<p>answer "+strconv.FormatInt(n, 10)+"</p>")
	}))
	t.Cleanup(srv.Close)
	h := newHarness(t, options{env: map[string]string{"READER_CACHE_TTL": "1m"}, upstreams: map[string]string{"sites": srv.URL}})
	token, _ := h.identity.add(randomID("user"), map[string]string{"o1": "admin"})
	const search = "/sites/o1/s1/~search?q=zebra"
	if _, body := h.read(t, http.MethodGet, search, nil); body != "<p>answer 1</p>" {
		t.Fatalf("first read: %q", body)
	}
	wantStatus(t, h.do(t, http.MethodPatch, "/v1/orgs/o1/sites/s1", token, strings.NewReader(`{}`), nil), 200) // purges it

	gated.Store(true)
	const readers = 8
	bodies := make(chan string, readers)
	for range readers {
		go func() {
			_, body := h.read(t, http.MethodGet, search, nil)
			bodies <- body
		}()
	}
	waittest.Until(t, "the refill reaching sites", 10*time.Second, func() bool { return gatedHits.Load() >= 1 })
	close(gate)
	refilled := ""
	for range readers {
		body := <-bodies
		if refilled == "" {
			refilled = body
		}
		if body != refilled || body == "<p>answer 1</p>" {
			t.Errorf("a reader during the refill: %q, want the refill's answer (%q)", body, refilled)
		}
	}
	if n := gatedHits.Load(); n != 1 {
		t.Errorf("%d readers of a stale answer reached sites, want 1", n)
	}

	before := hits.Load()
	done := make(chan struct{}, 3)
	for range 3 {
		go func() {
			h.read(t, http.MethodGet, "/sites/o1/s1/restricted", nil)
			done <- struct{}{}
		}()
	}
	for range 3 {
		<-done
	}
	if n := hits.Load() - before; n != 3 {
		t.Errorf("3 reads of an answer never kept reached sites %d times", n)
	}
}

// TestReadersListenerAnswersAsTheGateway: the same requests, under the
// same Host, get the same answers from the readers' listener as from the
// gateway's (status, body, every header but Date, X-Request-Id and the
// cookies' new ids), whether kept in the page cache or not: a miss, the
// hits in each coding, a 304, a HEAD, a returning reader, a cookie of
// access, a Range, a query, a page that is not public; the listener
// refuses what readers do not send.
func TestReadersListenerAnswersAsTheGateway(t *testing.T) {
	t.Parallel()
	rs, in := newReaderSite(t), newInsightsEvents(t)
	k := kafkatest.Start(t)
	h := newHarness(t, options{env: map[string]string{"KAFKA_BROKERS": strings.Join(k.Brokers, ","), "READER_CACHE_TTL": "1m"},
		upstreams: map[string]string{"sites": rs.srv.URL, "insights": in.srv.URL}, readers: true})
	bg, stop := context.WithCancel(context.Background())
	h.gw.RunBackground(bg)
	t.Cleanup(func() { stop(); _ = h.gw.Close(context.Background()) })
	host := strings.TrimPrefix(h.srv.URL, "http://")
	send := func(base, method, path string, header map[string]string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, nil)
		req.Host = host
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, body
	}
	page := "/sites/o1/s1/page"
	for _, c := range []struct {
		name, method, path string
		header             map[string]string
	}{
		{"first read (a miss)", "GET", page, nil},
		{"hit", "GET", page, nil},
		{"hit, gzip", "GET", page, map[string]string{"Accept-Encoding": "gzip"}},
		{"hit, br", "GET", page, map[string]string{"Accept-Encoding": "gzip, br"}},
		{"hit, If-None-Match", "GET", page, map[string]string{"If-None-Match": `"First"`}},
		{"hit, HEAD", "HEAD", page, map[string]string{"Accept-Encoding": "gzip"}},
		{"returning reader", "GET", page, map[string]string{"Cookie": "docspub_vid=v1; docspub_sid=s1", "User-Agent": "ua", "Referer": "https://example.com/x"}},
		{"cookie of access", "GET", page, map[string]string{"Cookie": "docspub_share=k1"}},
		{"range", "GET", page, map[string]string{"Range": "bytes=0-3"}},
		{"query", "GET", page + "?a=b", nil},
		{"escaped path", "GET", "/sites/o1/s1/p%61ge", nil},
		{"not public", "GET", "/sites/o1/s1/other", nil},
		{"X-Request-Id kept", "GET", page, map[string]string{"X-Request-Id": "rid-1"}},
	} {
		gw, gwBody := send(h.srv.URL, c.method, c.path, c.header)
		rd, rdBody := send(h.readers, c.method, c.path, c.header)
		if gw.StatusCode != rd.StatusCode || !bytes.Equal(gwBody, rdBody) {
			t.Errorf("%s: gateway %d %q, readers' listener %d %q", c.name, gw.StatusCode, gwBody, rd.StatusCode, rdBody)
		}
		if g, r := comparable(gw.Header), comparable(rd.Header); !maps.EqualFunc(g, r, slices.Equal) {
			t.Errorf("%s: headers differ\n gateway:          %v\n readers' listener: %v", c.name, g, r)
		}
		if c.header["X-Request-Id"] != "" && rd.Header.Get("X-Request-Id") != c.header["X-Request-Id"] {
			t.Errorf("%s: X-Request-Id %q", c.name, rd.Header.Get("X-Request-Id"))
		}
	}
	for _, c := range []struct {
		method, path string
		status       int
	}{{"POST", page, http.StatusMethodNotAllowed}, {"GET", "/v1/orgs/o1", http.StatusNotFound}, {"GET", "/v1", http.StatusNotFound}} {
		if resp, body := send(h.readers, c.method, c.path, nil); resp.StatusCode != c.status || !strings.Contains(string(body), `"error"`) {
			t.Errorf("%s %s on the readers' listener: %d %s", c.method, c.path, resp.StatusCode, body)
		}
	}
}

// comparable is an answer's headers but those each answer has its own
// (Date, X-Request-Id, the rate limit's count) and with its cookies'
// values left out.
func comparable(h http.Header) http.Header {
	out := h.Clone()
	for _, name := range []string{"Date", "X-Request-Id", "X-Ratelimit-Remaining", "X-Ratelimit-Reset"} {
		delete(out, name)
	}
	for i, c := range out["Set-Cookie"] {
		name, rest, _ := strings.Cut(c, "=")
		_, attrs, _ := strings.Cut(rest, ";")
		out["Set-Cookie"][i] = name + "=…;" + attrs
	}
	return out
}
