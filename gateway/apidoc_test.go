package gateway_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/docspub/platform/gateway"
	"github.com/docspub/platform/libs/apidoc"
	"github.com/docspub/platform/libs/config"
	"github.com/docspub/platform/libs/discovery"
	"github.com/getkin/kin-openapi/openapi3"
)

func TestAPIDocument(t *testing.T) {
	t.Parallel()
	h := newHarness(t, options{env: map[string]string{"PUBLIC_URL": "https://docs.example.com"}})

	resp := h.do(t, http.MethodGet, gateway.DocumentPath, "", nil, nil)
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s without a token: %d %s", gateway.DocumentPath, resp.StatusCode, body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q", ct)
	}
	etag := resp.Header.Get("ETag")
	if !strings.HasPrefix(etag, `"`) || len(etag) < 10 {
		t.Errorf("ETag = %q, want a strong one", etag)
	}
	if cc := resp.Header.Get("Cache-Control"); !strings.Contains(cc, "max-age=") {
		t.Errorf("Cache-Control = %q, want cacheable", cc)
	}

	// An off-the-shelf OpenAPI library loads what the gateway serves,
	// resolves every $ref and validates it.
	l := openapi3.NewLoader()
	doc, err := l.LoadFromData(body)
	if err != nil {
		t.Fatalf("load the served document: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("validate the served document: %v", err)
	}
	if len(doc.Servers) != 1 || doc.Servers[0].URL != "https://docs.example.com" {
		t.Errorf("servers = %v, want the gateway's PUBLIC_URL", doc.Servers)
	}
	if op := doc.Paths.Find("/v1/spaces/{spaceId}").GetOperation(http.MethodGet); op == nil || op.Extensions["x-service"] != "content" {
		t.Errorf("GET /v1/spaces/{spaceId}: %+v, want an operation of content", op)
	}

	// Revalidation by ETag, HEAD, and other methods.
	resp = h.do(t, http.MethodGet, gateway.DocumentPath, "", nil, http.Header{"If-None-Match": {etag}})
	wantStatus(t, resp, http.StatusNotModified)
	resp = h.do(t, http.MethodHead, gateway.DocumentPath, "", nil, nil)
	wantStatus(t, resp, http.StatusOK)
	if resp.Header.Get("ETag") != etag {
		t.Errorf("HEAD ETag = %q, want %q", resp.Header.Get("ETag"), etag)
	}
	resp = h.do(t, http.MethodPost, gateway.DocumentPath, "", nil, nil)
	errorBody(t, resp, http.StatusMethodNotAllowed)
	if got := resp.Header.Get("Allow"); got != "GET, HEAD" {
		t.Errorf("Allow = %q", got)
	}

	// No token was resolved and nothing was forwarded.
	if n := h.identity.calls.Load(); n != 0 {
		t.Errorf("identity resolved %d tokens, want 0", n)
	}
	if n := h.content.count() + h.sites.count(); n != 0 {
		t.Errorf("services received %d requests, want 0", n)
	}
}

func TestAPIDocumentDefaultServer(t *testing.T) {
	t.Parallel()
	h := newHarness(t, options{})
	resp := h.do(t, http.MethodGet, gateway.DocumentPath, "", nil, nil)
	var doc struct {
		Servers []struct {
			URL string `json:"url"`
		} `json:"servers"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Servers) != 1 || doc.Servers[0].URL != "http://127.0.0.1:8080" {
		t.Errorf("servers = %+v, want PUBLIC_URL's default", doc.Servers)
	}
}

var assetRef = regexp.MustCompile(`(?:src|href)="([^"]+)"`)

// scriptTag is a script element of the page, with its nonce.
var scriptTag = regexp.MustCompile(`<script(?: nonce="([^"]*)")?[^>]*>`)

// scriptNonce is the one source of a policy's script-src: a nonce, never
// 'self' nor anything else.
func scriptNonce(t *testing.T, csp string) string {
	t.Helper()
	for _, d := range strings.Split(csp, ";") {
		src, ok := strings.CutPrefix(strings.TrimSpace(d), "script-src ")
		if !ok {
			continue
		}
		nonce, ok := strings.CutPrefix(strings.TrimSpace(src), "'nonce-")
		if nonce, found := strings.CutSuffix(nonce, "'"); ok && found && len(nonce) >= 16 && !strings.ContainsAny(nonce, " '") {
			return nonce
		}
		t.Fatalf("script-src %q: not a nonce alone", src)
	}
	t.Fatalf("Content-Security-Policy %q has no script-src", csp)
	return ""
}

// TestAPIReferencePage: the reference page loads its files from the
// gateway, relative to itself; its policy runs scripts by a nonce of each
// answer's (never by the origin, which serves tenants' files too), which
// each of its scripts carries, and no cache keeps it.
func TestAPIReferencePage(t *testing.T) {
	t.Parallel()
	h := newHarness(t, options{})
	resp := h.do(t, http.MethodGet, gateway.DocsPath, "", nil, nil)
	page, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", gateway.DocsPath, resp.StatusCode, page)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Errorf("Content-Type = %q", ct)
	}
	csp := resp.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "style-src 'self'", "connect-src 'self'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("Content-Security-Policy %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe") || strings.Contains(csp, "http") {
		t.Errorf("Content-Security-Policy %q allows more than 'self'", csp)
	}
	// Scripts run by nonce only: the gateway's origin also serves
	// tenants' files, which must not run as the page's scripts.
	nonce := scriptNonce(t, csp)
	scripts := scriptTag.FindAllStringSubmatch(string(page), -1)
	if len(scripts) < 2 {
		t.Fatalf("the page has %d scripts", len(scripts))
	}
	for _, m := range scripts {
		if m[1] != nonce {
			t.Errorf("script %s has nonce %q, the policy %q", m[0], m[1], nonce)
		}
	}
	// Each answer has a nonce of its own, and no cache keeps one.
	again := h.do(t, http.MethodGet, gateway.DocsPath, "", nil, nil)
	if other := scriptNonce(t, again.Header.Get("Content-Security-Policy")); other == nonce {
		t.Errorf("two answers share the nonce %q", nonce)
	}
	if cc := resp.Header.Get("Cache-Control"); cc != "no-store" || resp.Header.Get("ETag") != "" {
		t.Errorf("the page is kept: Cache-Control %q, ETag %q", cc, resp.Header.Get("ETag"))
	}

	// Every file the page loads comes from the gateway, relative to the page.
	refs := assetRef.FindAllStringSubmatch(string(page), -1)
	if len(refs) < 4 {
		t.Fatalf("page references %d files, want the stylesheet, two scripts and the document: %s", len(refs), page)
	}
	wantType := map[string]string{".js": "text/javascript", ".css": "text/css", ".json": "application/json"}
	for _, m := range refs {
		ref := m[1]
		if strings.Contains(ref, "//") {
			t.Errorf("page loads %s from elsewhere", ref)
			continue
		}
		p := "/v1/" + ref // relative to /v1/docs
		resp := h.do(t, http.MethodGet, p, "", nil, nil)
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK || len(b) == 0 {
			t.Errorf("GET %s: %d, %d bytes", p, resp.StatusCode, len(b))
			continue
		}
		ext := p[strings.LastIndex(p, "."):]
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, wantType[ext]) {
			t.Errorf("GET %s: Content-Type %q, want %s", p, ct, wantType[ext])
		}
		if resp.Header.Get("ETag") == "" || resp.Header.Get("Cache-Control") == "" {
			t.Errorf("GET %s is not cacheable", p)
		}
	}
	for _, p := range []string{gateway.DocsPath + "/LICENSE", gateway.DocsPath + "/init.js"} {
		wantStatus(t, h.do(t, http.MethodGet, p, "", nil, nil), http.StatusOK)
	}
	errorBody(t, h.do(t, http.MethodGet, gateway.DocsPath+"/nothing.js", "", nil, nil), http.StatusNotFound)
	errorBody(t, h.do(t, http.MethodGet, gateway.DocsPath+"/", "", nil, nil), http.StatusNotFound)
	if n := h.identity.calls.Load(); n != 0 {
		t.Errorf("identity resolved %d tokens, want 0", n)
	}
}

// TestDocumentedServices: the x-service of every operation of the API
// document, from which the gateway builds its route table, is a service the
// default UPSTREAMS names (as discovery resolves it), or the gateway itself,
// which then answers the operation without a token.
func TestDocumentedServices(t *testing.T) {
	t.Parallel()
	var cfg gateway.Config
	if err := config.LoadMap(context.Background(), &cfg, map[string]string{"INTERNAL_TOKEN_SECRET": secret}); err != nil {
		t.Fatal(err)
	}
	ups, err := discovery.ParseStatic(cfg.Upstreams)
	if err != nil {
		t.Fatal(err)
	}
	routes, err := apidoc.Routes()
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, options{})
	own := 0
	for _, r := range routes {
		if r.Service != "gateway" {
			if _, ok := ups[r.Service]; !ok {
				t.Errorf("%s %s: x-service %q is no service of UPSTREAMS %q", r.Method, r.Path, r.Service, cfg.Upstreams)
			}
			continue
		}
		own++
		resp := h.do(t, r.Method, r.Path, "", nil, nil)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s %s: the gateway's own operation answers %d without a token", r.Method, r.Path, resp.StatusCode)
		}
	}
	if own != 2 {
		t.Errorf("%d operations of the gateway, want 2 (the document and its page)", own)
	}
}
