package readerhttp_test

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/docspub/platform/services/sites/internal/contentclient"
	"github.com/docspub/platform/services/sites/internal/contentclient/contenttest"
	"github.com/docspub/platform/services/sites/internal/reader"
)

const mathPage = "Energy $$E = mc^2$$ is mass.\n\n$$\n\\int_0^1 x\\,dx = \\frac{1}{2}\n$$\n\n" +
	"```mermaid\nflowchart LR\n  A[Write] --> B[Publish]\n```\n"

var loaderRe = regexp.MustCompile(`<script data-src="([^"]+)">(.*?)</script>`)

// TestMathAndDiagramPage: a page of formulas and a diagram has them
// typeset (KaTeX's HTML and MathML, its stylesheet linked) and its
// diagram's loader, allowed by the page's CSP by its hash, with Mermaid's
// script under 'strict-dynamic'; KaTeX's stylesheet and fonts are allowed
// by style-src and font-src 'self'. The assets are served under the site
// with their types, cached for good; Mermaid's script gzipped as
// committed to readers who take gzip, inflated for others. A page without
// either links neither.
func TestMathAndDiagramPage(t *testing.T) {
	e := newEnv(t)
	e.content.AddSpace("sp1", "acme", "Handbook")
	e.content.MergeFiles("sp1", []contentclient.Page{contenttest.Doc("p1", "Math", "math", mathPage),
		contenttest.Doc("p2", "Plain", "plain", "No math.")}, nil)
	_, url := e.site(`{"title":"Acme","spaces":["sp1"]}`)
	p := e.want(url, 200)
	for _, w := range []string{`<span class="math math-inline"><span class="katex">`, `<math xmlns="http://www.w3.org/1998/Math/MathML">`,
		`<div class="math math-display"><span class="katex-display">`, `<pre class="mermaid">`} {
		if !strings.Contains(p.body, w) {
			t.Errorf("the page has no %s: %.2000s", w, p.body)
		}
	}
	csp := p.header.Get("Content-Security-Policy")
	for _, w := range []string{"style-src 'self' 'unsafe-inline';", "font-src 'self';", " 'strict-dynamic';"} {
		if !strings.Contains(csp, w) {
			t.Errorf("CSP %q: want %s", csp, w)
		}
	}
	css := regexp.MustCompile(`<link rel="stylesheet" href="([^"]+)">`).FindStringSubmatch(p.body)
	loader := loaderRe.FindStringSubmatch(p.body)
	if css == nil || loader == nil {
		t.Fatalf("stylesheet %q, loader %q", css, loader)
	}
	sum := sha256.Sum256([]byte(loader[2]))
	if h := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"; !strings.Contains(csp, h) {
		t.Errorf("CSP %q does not allow the diagram loader (%s)", csp, h)
	}
	if !strings.Contains(loader[2], `securityLevel:"strict"`) {
		t.Errorf("the loader does not draw diagrams strict: %s", loader[2])
	}

	font := strings.TrimSuffix(css[1], "katex.min.css") + "fonts/KaTeX_Main-Regular.woff2"
	for _, a := range []struct{ url, typ, starts string }{
		{css[1], "text/css; charset=utf-8", "@font-face{"},
		{font, "font/woff2", "wOF2"},
		{loader[1], "text/javascript; charset=utf-8", `"use strict";`},
	} {
		got := e.want(a.url, 200)
		if ct := got.header.Get("Content-Type"); ct != a.typ {
			t.Errorf("GET %s: Content-Type %q, want %q", a.url, ct, a.typ)
		}
		if cc := got.header.Get("Cache-Control"); !strings.Contains(cc, "immutable") || !strings.HasPrefix(cc, "public") {
			t.Errorf("GET %s: Cache-Control %q", a.url, cc)
		}
		if !strings.HasPrefix(got.body, a.starts) || got.header.Get("Content-Encoding") != "" {
			t.Errorf("GET %s: %q…, Content-Encoding %q", a.url, got.body[:min(len(got.body), 20)], got.header.Get("Content-Encoding"))
		}
	}

	plain := e.want(loader[1], 200)
	gz := e.readWith("GET", loader[1], map[string]string{"Accept-Encoding": "gzip"})
	if gz.status != 200 || gz.header.Get("Content-Encoding") != "gzip" || !strings.Contains(gz.header.Get("Vary"), "Accept-Encoding") ||
		gz.header.Get("ETag") == plain.header.Get("ETag") {
		t.Fatalf("GET %s with gzip: %d %v", loader[1], gz.status, gz.header)
	}
	zr, err := gzip.NewReader(strings.NewReader(gz.body))
	if err != nil {
		t.Fatal(err)
	}
	inflated, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(inflated, []byte(plain.body)) || len(gz.body) >= len(plain.body)/2 {
		t.Errorf("gzipped %d bytes inflate to %d (%v), plain %d", len(gz.body), len(inflated), err, len(plain.body))
	}
	// The vendored Mermaid is the one static/README.md names.
	if s := sha256.Sum256([]byte(plain.body)); hex.EncodeToString(s[:]) != "336df803d87a38b70a01e736e666c8f7601d2ce42f5e47c8fafe5d721074b9a3" {
		t.Errorf("mermaid.min.js sha256 %x", s)
	}
	if nm := e.readWith("GET", loader[1], map[string]string{"If-None-Match": gz.header.Get("ETag"), "Accept-Encoding": "gzip"}); nm.status != 304 {
		t.Errorf("GET %s If-None-Match: %d", loader[1], nm.status)
	}
	for _, bad := range []string{"/~static/katex-0.16.47/README.md", "/~static/nothing.js", "/~static/katex-0.16.47/LICENSE"} {
		e.want(url+bad, 404)
	}

	other := e.want(url+"/plain", 200)
	if strings.Contains(other.body, reader.KaTeXCSS) || strings.Contains(other.body, "data-src=") {
		t.Errorf("a page without math or diagrams links their assets: %.3000s", other.body)
	}
}
