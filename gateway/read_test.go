package gateway_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/docspub/platform/libs/discovery"
	"github.com/docspub/platform/libs/internaltoken"
)

// TestReaderRouting: a path outside /v1 is a published site's, forwarded to
// sites below /reader without authentication: no Authorization, no
// internal header from outside, an internal token for sites that names the
// gateway and no user, the reader's host and address.
func TestReaderRouting(t *testing.T) {
	t.Parallel()
	h := newHarness(t, options{})
	token, _ := h.identity.add(randomID("user"), map[string]string{"o1": "admin"})
	resp := h.do(t, http.MethodGet, "/sites/acme/docs/guide/intro?shareKey=k1", token, nil, http.Header{
		"X-Internal-Token":  {"forged"},
		"X-Internal-Roles":  {"admin"},
		"X-Forwarded-Host":  {"evil.example"},
		"X-Forwarded-For":   {"10.1.2.3"},
		"Cookie":            {"docspub_share=k1"},
		"X-User-Id":         {"u1"},
		"X-Gateway-Checked": {"yes"},
	})
	wantStatus(t, resp, http.StatusOK)
	if got := resp.Header.Get("X-Internal-Debug"); got != "" {
		t.Errorf("internal response header leaked: %q", got)
	}
	got := h.sites.last(t)
	if got.path != "/reader/sites/acme/docs/guide/intro" || got.query != "shareKey=k1" {
		t.Errorf("sites got %s?%s, want /reader/sites/acme/docs/guide/intro?shareKey=k1", got.path, got.query)
	}
	p, err := h.signers["sites"].Verify(got.header.Get(internaltoken.Header))
	if err != nil || p.Service != "gateway" || p.UserID != "" || len(p.Roles) != 0 {
		t.Errorf("internal token %+v (%v), want the gateway alone", p, err)
	}
	for _, name := range []string{"Authorization", "X-Internal-Roles", "X-User-Id", "X-Gateway-Checked"} {
		if v := got.header.Get(name); v != "" {
			t.Errorf("sites got %s: %q", name, v)
		}
	}
	if v := got.header.Get("X-Forwarded-For"); v != "127.0.0.1" {
		t.Errorf("X-Forwarded-For = %q, want the peer address only", v)
	}
	if v := got.header.Get("X-Forwarded-Host"); v != h.srv.Listener.Addr().String() {
		t.Errorf("X-Forwarded-Host = %q, want the host the reader asked for", v)
	}
	if v := got.header.Get("Cookie"); v != "docspub_share=k1" {
		t.Errorf("Cookie = %q, want the reader's", v)
	}
	if h.identity.calls.Load() != 0 {
		t.Errorf("identity resolved %d tokens for a reader", h.identity.calls.Load())
	}

	// A custom hostname's paths, escaped ones too, go to sites as they are.
	req := h.do(t, http.MethodGet, "/getting%2Fstarted/page", "", nil, http.Header{"X-Forwarded-Proto": {"https"}})
	wantStatus(t, req, http.StatusOK)
	if got := h.sites.last(t); got.rawPath != "/reader/getting%2Fstarted/page" {
		t.Errorf("sites got raw path %q", got.rawPath)
	}
	// Readers only read.
	resp = h.do(t, http.MethodPost, "/sites/acme/docs", "", nil, nil)
	errorBody(t, resp, http.StatusMethodNotAllowed)
	if resp.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("Allow = %q", resp.Header.Get("Allow"))
	}
	if n := h.content.count(); n != 0 {
		t.Errorf("content received %d requests", n)
	}
}

// TestReaderRateLimit: readers are limited per client address with
// RATE_LIMIT, apart from tokens.
func TestReaderRateLimit(t *testing.T) {
	t.Parallel()
	h := newHarness(t, options{env: map[string]string{"RATE_LIMIT": "2"}})
	c := newClientAt(h)
	get := func() *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, h.srv.URL+"/sites/acme/docs", nil)
		resp, err := c.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = resp.Body.Close() })
		return resp
	}
	for range 2 {
		wantStatus(t, get(), http.StatusOK)
	}
	resp := get()
	errorBody(t, resp, http.StatusTooManyRequests)
	if retry, err := strconv.Atoi(resp.Header.Get("Retry-After")); err != nil || retry < 1 {
		t.Errorf("Retry-After = %q", resp.Header.Get("Retry-After"))
	}
	if n := h.sites.count(); n != 2 {
		t.Errorf("sites received %d requests, want 2", n)
	}
	// Another address reads on.
	other := newClientAt(h)
	req, _ := http.NewRequest(http.MethodGet, h.srv.URL+"/sites/acme/docs", nil)
	r2, err := other.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Body.Close()
	wantStatus(t, r2, http.StatusOK)
}

// TestReaderEncodingPassesThrough: the gateway asks sites for gzip only
// when the reader does, and passes the answer on as sites wrote it: a
// reader without Accept-Encoding gets the page uncompressed with its
// length, one asking for gzip gets sites' gzip bytes and validator.
func TestReaderEncodingPassesThrough(t *testing.T) {
	t.Parallel()
	page := []byte(strings.Repeat("<p>Zebras graze in herds.</p>\n", 200))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write(page)
	_ = zw.Close()
	var asked atomic.Value
	sites := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Store(r.Header.Get("Accept-Encoding"))
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		body, etag := page, `"p1"`
		if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			w.Header().Set("Content-Encoding", "gzip")
			body, etag = gz.Bytes(), `"p1-gzip"`
		}
		w.Header().Set("ETag", etag)
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = w.Write(body)
	}))
	t.Cleanup(sites.Close)
	h := newHarness(t, options{upstreams: discovery.Static{"sites": sites.URL}})
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	t.Cleanup(client.CloseIdleConnections)
	for _, tc := range []struct {
		accept, wantEncoding, wantETag string
		want                           []byte
	}{
		{"", "", `"p1"`, page},
		{"gzip", "gzip", `"p1-gzip"`, gz.Bytes()},
	} {
		req, _ := http.NewRequest(http.MethodGet, h.srv.URL+"/sites/acme/docs/guide", nil)
		if tc.accept != "" {
			req.Header.Set("Accept-Encoding", tc.accept)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if got, _ := asked.Load().(string); got != tc.accept {
			t.Errorf("reader's Accept-Encoding %q: sites was asked for %q", tc.accept, got)
		}
		if resp.Header.Get("Content-Encoding") != tc.wantEncoding || resp.Header.Get("ETag") != tc.wantETag ||
			!bytes.Equal(body, tc.want) {
			t.Errorf("reader's Accept-Encoding %q: got encoding %q, ETag %s, %d bytes; want %q, %s, %d bytes",
				tc.accept, resp.Header.Get("Content-Encoding"), resp.Header.Get("ETag"), len(body), tc.wantEncoding, tc.wantETag, len(tc.want))
		}
		if resp.ContentLength != int64(len(tc.want)) {
			t.Errorf("reader's Accept-Encoding %q: Content-Length %d, want %d (sent as sites sent it)", tc.accept, resp.ContentLength, len(tc.want))
		}
	}
}
