package gateway_test

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/docspub/platform/libs/discovery"
	"github.com/docspub/platform/libs/internalapi/readerapi"
)

// BenchmarkReaderPath measures a published page read through the gateway
// (no token, rate limit off) and straight from the upstream that stands
// for sites, one request at a time: a 48 KB HTML page, kept gzipped as
// sites keeps it and sent gzipped only to a client that asks. The ratio of
// the two ns/op is the gateway's share of a page view.
func BenchmarkReaderPath(b *testing.B) {
	page := []byte("<!doctype html><title>Guide</title>" + strings.Repeat("<p>Zebras graze in herds.</p>\n", 1600))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write(page)
	_ = zw.Close()
	sites := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Vary", "Accept-Encoding")
		body := page
		if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			w.Header().Set("Content-Encoding", "gzip")
			body = gz.Bytes()
		}
		_, _ = w.Write(body)
	}))
	b.Cleanup(sites.Close)
	h := newHarness(b, options{upstreams: discovery.Static{"sites": sites.URL}, env: map[string]string{"RATE_LIMIT": "0"}})
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4, DisableCompression: true}}
	b.Cleanup(client.CloseIdleConnections)
	for _, tc := range []struct{ name, url string }{
		{"direct", sites.URL + "/reader/sites/acme/docs/guide"},
		{"gateway", h.srv.URL + "/sites/acme/docs/guide"},
	} {
		send(b, client, tc.url, "")
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				send(b, client, tc.url, "")
			}
		})
	}
}

// BenchmarkReaderCacheHit measures a published page answered from the
// gateway's page cache, through the gateway's handler alone (no network:
// the gateway's own CPU and allocations per hit), as is, gzipped and in
// brotli, for a returning reader (insights cookies: the read is recorded,
// no cookie set).
//
//	go test -run '^$' -bench ReaderCacheHit -cpuprofile cpu.out ./gateway/
func BenchmarkReaderCacheHit(b *testing.B) {
	page := []byte("<!doctype html><title>Guide</title>" + strings.Repeat("<p>Zebras graze in herds.</p>\n", 1600))
	sites := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Cache-Control", "public, max-age=60, stale-while-revalidate=30")
		h.Set("Vary", "Accept-Encoding")
		h.Set("ETag", `"d1"`)
		h.Set(readerapi.TagsHeader, readerapi.OrgTag("o1"))
		h.Set(readerapi.ImpersonalHeader, readerapi.Impersonal)
		h.Set(readerapi.ViewHeader, readerapi.View{Type: "page_view", Organization: "o1", Site: "s1",
			URL: "http://gw/sites/o1/s1/page", CookiePath: "/sites/o1/s1"}.Encode())
		h.Set("Content-Length", strconv.Itoa(len(page)))
		_, _ = w.Write(page)
	}))
	b.Cleanup(sites.Close)
	h := newHarness(b, options{upstreams: discovery.Static{"sites": sites.URL},
		env: map[string]string{"RATE_LIMIT": "0", "READER_CACHE_TTL": "1m"}})
	handler := h.gw.Handler()
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	b.Cleanup(client.CloseIdleConnections)
	for _, tc := range []struct{ name, accept, coding string }{
		{"plain", "", ""}, {"gzip", "gzip", "gzip"}, {"br", "gzip, deflate, br", "br"},
	} {
		r := httptest.NewRequest(http.MethodGet, h.srv.URL+"/sites/o1/s1/page", nil)
		r.RemoteAddr = "127.0.0.1:40000"
		r.Header.Set("Cookie", "docspub_vid=v1; docspub_sid=s1")
		if tc.accept != "" {
			r.Header.Set("Accept-Encoding", tc.accept)
		}
		send(b, client, h.srv.URL+"/sites/o1/s1/page", "") // fills the cache (through the network: the proxy needs a real connection)
		w := &discardWriter{h: http.Header{}}
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				w.status = 0
				handler.ServeHTTP(w, r)
			}
			if w.status != 200 || w.h.Get("Content-Encoding") != tc.coding {
				b.Fatalf("%d, Content-Encoding %q", w.status, w.h.Get("Content-Encoding"))
			}
		})
	}
}

// discardWriter is a ResponseWriter that keeps the status and header and
// drops the body.
type discardWriter struct {
	h      http.Header
	status int
}

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) WriteHeader(s int)           { w.status = s }
func (w *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
