package local

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/config"
	"github.com/docspub/platform/libs/logx"
)

// TestReadersListenerServesTheDocs: the platform's own docs, published
// as `make run` publishes them, read on the gateway's readers' listener
// (READER_ADDR) under the published URL's host, as an Ingress routing
// /sites there sends them: every page, file, search and miss answers as
// on the gateway's main listener (status, body, and the headers a reader
// and a cache act on), in every coding.
func TestReadersListenerServesTheDocs(t *testing.T) {
	inProcessOnly(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var cfg Config
	if err := config.LoadMap(ctx, &cfg, map[string]string{"ADDR": "127.0.0.1:0", "READER_ADDR": "127.0.0.1:0",
		"DATA_DIR": t.TempDir(), "LOG_LEVEL": "warn", "RATE_LIMIT": "0"}); err != nil {
		t.Fatal(err)
	}
	cfg.DocsRepo = "../.."
	p, err := Start(ctx, cfg, logx.Discard())
	if err != nil {
		t.Fatalf("start platform: %v", err)
	}
	defer p.Close()
	docs := p.Credentials.DocsURL
	if docs == "" || p.ReaderURL == "" {
		t.Fatalf("no docs site (%q) or no readers' listener (%q)", docs, p.ReaderURL)
	}
	rt := &http.Transport{DisableCompression: true}
	defer rt.CloseIdleConnections()
	get := func(base, target, accept string) (*http.Response, []byte) {
		t.Helper()
		u, err := url.Parse(target)
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequest(http.MethodGet, base+u.RequestURI(), nil)
		req.Host = u.Host
		if accept != "" {
			req.Header.Set("Accept-Encoding", accept)
		}
		resp, err := rt.RoundTrip(req)
		if err != nil {
			t.Fatalf("GET %s on %s: %v", target, base, err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("GET %s on %s: %v", target, base, err)
		}
		return resp, body
	}
	_, services := get(p.URL, docs+"/architecture/services", "")
	img := imgSrcRe.FindStringSubmatch(articleRe.FindString(string(services)))
	if img == nil {
		t.Fatal("the services page shows no image")
	}
	for _, target := range []string{docs, docs + "/operations/configuration", docs + "/architecture/services",
		p.URL + img[1], docs + "/~search?q=gateway", docs + "/operations/configuration?x=1", docs + "/no-such-page"} {
		for _, accept := range []string{"", "gzip", "gzip, br"} {
			get(p.URL, target, accept) // kept in the page cache, when it may be
			want, wantBody := get(p.URL, target, accept)
			got, gotBody := get(p.ReaderURL, target, accept)
			if got.StatusCode != want.StatusCode || !bytes.Equal(gotBody, wantBody) {
				t.Errorf("GET %s (%q): readers' listener %d, %d bytes; gateway %d, %d bytes",
					target, accept, got.StatusCode, len(gotBody), want.StatusCode, len(wantBody))
			}
			for _, name := range []string{"Content-Type", "Content-Encoding", "Content-Length", "Etag", "Cache-Control", "Vary", "Content-Security-Policy", "X-Content-Type-Options"} {
				if g, w := strings.Join(got.Header.Values(name), ", "), strings.Join(want.Header.Values(name), ", "); g != w {
					t.Errorf("GET %s (%q): %s %q on the readers' listener, %q on the gateway's", target, accept, name, g, w)
				}
			}
		}
	}
}
