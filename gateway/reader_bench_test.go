package gateway_test

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/docspub/platform/libs/discovery"
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
