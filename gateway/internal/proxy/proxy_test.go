package proxy_test

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/gateway/internal/proxy"
	"github.com/docspub/platform/libs/discovery"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internalapi/readerapi"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/logx"
	"github.com/gin-gonic/gin"
)

const secret = "test-secret-test-secret-test-secret-0123"

func newProxy(t *testing.T, resolver discovery.Resolver) *proxy.Proxy {
	t.Helper()
	signer, err := internaltoken.NewSigner("gateway", secret, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	return proxy.New(proxy.Config{Service: "gateway", Resolver: resolver, Signer: signer,
		ReaderTokenReuse: 15 * time.Second, UpstreamTimeout: 5 * time.Second, Log: logx.Discard()})
}

// forward sends req through p as f from a gin server, as the gateway
// does, and returns the client's answer.
func forward(t *testing.T, p *proxy.Proxy, req *http.Request, f *proxy.Forward) (*http.Response, string) {
	t.Helper()
	gin.SetMode(gin.ReleaseMode)
	e := gin.New()
	e.NoRoute(func(c *gin.Context) {
		c.Set("request_id", "req-1")
		p.Forward(c, f, internaltoken.Principal{Service: "gateway"})
	})
	gw := httptest.NewServer(e)
	defer gw.Close()
	req.URL.Scheme, req.URL.Host, req.RequestURI = "http", gw.Listener.Addr().String(), ""
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(body)
}

// hook records what the Answered hook saw.
type hook struct {
	in       *http.Request
	internal proxy.Internal
}

func (h *hook) Answered(in *http.Request, _ *http.Response, internal proxy.Internal) error {
	h.in, h.internal = in, internal
	return nil
}

// A reader's request reaches sites below ReaderPrefix with the internal
// token, the request id and the client's address, and none of the
// headers only the platform may set; the answer reaches the client
// without the internal headers, whose values the hook saw.
func TestForwardReader(t *testing.T) {
	var saw *http.Request
	sites := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		saw = r
		w.Header().Set(readerapi.ViewHeader, "view")
		w.Header().Set(readerapi.TagsHeader, "org:o1")
		w.Header().Set("X-Ratelimit-Remaining", "3")
		w.Header().Set(httpx.RequestIDHeader, "theirs")
		_, _ = io.WriteString(w, "page")
	}))
	defer sites.Close()
	p := newProxy(t, discovery.Static{"sites": sites.URL})

	req := httptest.NewRequest(http.MethodGet, "http://docs.example.com/guide/a%2Fb?q=1", nil)
	for _, name := range []string{"Authorization", "X-User-Id", "X-Internal-Token", "Forwarded", "X-Forwarded-For", "Cf-Connecting-Ip"} {
		req.Header.Set(name, "forged")
	}
	req.Header.Set("Accept-Language", "en")
	h := &hook{}
	resp, body := forward(t, p, req, &proxy.Forward{Service: "sites", Reader: true, Client: "203.0.113.9", After: h})

	if resp.StatusCode != http.StatusOK || body != "page" {
		t.Fatalf("answer: %d %q", resp.StatusCode, body)
	}
	if saw.URL.EscapedPath() != proxy.ReaderPrefix+"/guide/a%2Fb" || saw.URL.RawQuery != "q=1" {
		t.Errorf("sites saw %s?%s", saw.URL.EscapedPath(), saw.URL.RawQuery)
	}
	for _, name := range []string{"Authorization", "X-User-Id", "Forwarded", "Cf-Connecting-Ip"} {
		if v := saw.Header.Get(name); v != "" {
			t.Errorf("sites saw %s: %q", name, v)
		}
	}
	if tok := saw.Header.Get(internaltoken.Header); tok == "" || tok == "forged" {
		t.Errorf("internal token %q", tok)
	}
	if saw.Header.Get("X-Forwarded-For") != "203.0.113.9" || saw.Header.Get("X-Forwarded-Host") != "docs.example.com" ||
		saw.Header.Get(httpx.RequestIDHeader) != "req-1" || saw.Header.Get("Accept-Language") != "en" {
		t.Errorf("sites saw headers %v", saw.Header)
	}
	for name := range resp.Header {
		if strings.HasPrefix(name, "X-Internal-") || strings.HasPrefix(name, "X-Ratelimit-") || name == httpx.RequestIDHeader {
			t.Errorf("the client got %s", name)
		}
	}
	if h.in == nil || h.in.Header.Get("Authorization") != "forged" || h.internal != (proxy.Internal{View: "view", Tags: "org:o1"}) {
		t.Errorf("hook saw the client's request %v, %+v", h.in, h.internal)
	}
}

// A service that cannot be found or reached is a 503 naming it.
func TestForwardUnavailable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	_ = ln.Close()
	p := newProxy(t, discovery.Static{"content": closed})
	for _, service := range []string{"content", "insights"} {
		resp, body := forward(t, p, httptest.NewRequest(http.MethodGet, "/v1/spaces", nil), &proxy.Forward{Service: service})
		if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "service "+service+" unavailable") {
			t.Errorf("%s: %d %s", service, resp.StatusCode, body)
		}
	}
}
