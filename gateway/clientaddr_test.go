package gateway_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docspub/platform/libs/logx"
	"github.com/pires/go-proxyproto"
)

// readerPath is a published page's path: the reader rate limit applies.
const readerPath = "/sites/acme/docs/guide/intro"

// newProxyHop is an HTTP proxy in front of target, as an Ingress
// controller is: it connects from its own address (from) and appends the
// address it saw to X-Forwarded-For (httputil.ReverseProxy's Director).
func newProxyHop(t *testing.T, target string, from net.IP) *httptest.Server {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.Transport = &http.Transport{DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: from}}).DialContext}
	srv := httptest.NewServer(rp)
	t.Cleanup(srv.Close)
	return srv
}

// readFrom GETs readerPath at base from the address ip, with an
// X-Forwarded-For header of the reader's own when forwardedFor is set.
func readFrom(t *testing.T, base string, ip net.IP, forwardedFor string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+readerPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	if forwardedFor != "" {
		req.Header.Set("X-Forwarded-For", forwardedFor)
		req.Header.Set("X-Real-IP", forwardedFor)
	}
	client := &http.Client{Transport: &http.Transport{
		DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: ip}}).DialContext}}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

// logLines is a log sink that the test reads as JSON lines.
type logLines struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// count returns how many lines have the message prefix and the client.
func (l *logLines) count(t *testing.T, msgPrefix, client string) int {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(l.b.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			continue
		}
		if msg, _ := m["msg"].(string); strings.HasPrefix(msg, msgPrefix) && m["client"] == client {
			n++
		}
	}
	return n
}

// TestReaderLimitPerClientBehindProxy: behind one proxy hop, readers are
// told apart by the address the proxy appends, both when the proxy's
// address is trusted (TRUSTED_PROXIES) and when the number of hops is
// (TRUSTED_HOPS): one reader over the limit leaves the other alone, an
// X-Forwarded-For the reader sends itself changes nothing, sites gets the
// reader's address alone, and the refusal is logged once.
func TestReaderLimitPerClientBehindProxy(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"TRUSTED_PROXIES", "TRUSTED_HOPS"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			proxyIP := randomLoopback()
			env := map[string]string{"RATE_LIMIT": "3", mode: "1"}
			if mode == "TRUSTED_PROXIES" {
				env[mode] = "10.0.0.0/8," + proxyIP.String()
			}
			logs := &logLines{}
			h := newHarness(t, options{env: env, log: logx.NewTo(logs, "gateway", "info")})
			hop := newProxyHop(t, h.srv.URL, proxyIP)
			a, b := randomLoopback(), randomLoopback()
			for range 3 {
				wantStatus(t, readFrom(t, hop.URL, a, randomClientIP()), http.StatusOK)
			}
			if got := h.sites.last(t).header.Get("X-Forwarded-For"); got != a.String() {
				t.Errorf("sites got X-Forwarded-For %q, want the reader's address %s alone", got, a)
			}
			for range 3 {
				errorBody(t, readFrom(t, hop.URL, a, randomClientIP()), http.StatusTooManyRequests)
			}
			wantStatus(t, readFrom(t, hop.URL, b, ""), http.StatusOK)
			if n := logs.count(t, "rate limit exceeded", a.String()); n != 1 {
				t.Errorf("%d refusal lines for %s, want 1 for its 3 refusals", n, a)
			}
			if n := logs.count(t, "request", b.String()); n != 1 {
				t.Errorf("%d access log lines name %s, want 1", n, b)
			}
		})
	}
}

// TestReaderForwardedForFromUntrustedPeerIgnored: a reader that is not a
// trusted proxy cannot choose its address with X-Forwarded-For or
// X-Real-IP: it is limited by its own.
func TestReaderForwardedForFromUntrustedPeerIgnored(t *testing.T) {
	t.Parallel()
	h := newHarness(t, options{env: map[string]string{"RATE_LIMIT": "3", "TRUSTED_PROXIES": "10.0.0.0/8"}})
	c := randomLoopback()
	for range 3 {
		wantStatus(t, readFrom(t, h.srv.URL, c, randomClientIP()), http.StatusOK)
	}
	if got := h.sites.last(t).header.Get("X-Forwarded-For"); got != c.String() {
		t.Errorf("sites got X-Forwarded-For %q, want the peer %s", got, c)
	}
	errorBody(t, readFrom(t, h.srv.URL, c, randomClientIP()), http.StatusTooManyRequests)
}

// rawRead sends GET readerPath on a connection from the address from to
// addr, first writing the PROXY header when not nil, and returns the
// answer, or the error of a connection closed without one.
func rawRead(t *testing.T, addr string, from net.IP, header *proxyproto.Header) (*http.Response, error) {
	t.Helper()
	conn, err := (&net.Dialer{LocalAddr: &net.TCPAddr{IP: from}, Timeout: 5 * time.Second}).Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if header != nil {
		if _, err := header.WriteTo(conn); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := io.WriteString(conn, "GET "+readerPath+" HTTP/1.1\r\nHost: docs.example\r\nConnection: close\r\n\r\n"); err != nil {
		return nil, err
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return nil, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp, nil
}

// TestProxyProtocol: with PROXY_PROTOCOL, a trusted load balancer's PROXY
// header (v1 or v2) names the client, so readers behind it are limited
// apart; its own connections without a header are served as its own; a
// PROXY header from any other peer closes the connection unanswered, and
// that peer's plain requests are served as its own.
func TestProxyProtocol(t *testing.T) {
	t.Parallel()
	lb := randomLoopback()
	h := newHarness(t, options{env: map[string]string{"RATE_LIMIT": "3", "TRUSTED_PROXIES": lb.String(), "PROXY_PROTOCOL": "true"}})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h.gw.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(h.gw.Listener(ln)) }()
	t.Cleanup(func() { _ = srv.Close() })
	addr := ln.Addr().String()
	via := func(version byte, client string) *proxyproto.Header {
		return proxyproto.HeaderProxyFromAddrs(version, &net.TCPAddr{IP: net.ParseIP(client), Port: 40000}, ln.Addr())
	}
	sitesSaw := func(want string) {
		t.Helper()
		if got := h.sites.last(t).header.Get("X-Forwarded-For"); got != want {
			t.Errorf("sites got X-Forwarded-For %q, want %s", got, want)
		}
	}

	a, b := randomClientIP(), randomClientIP()
	for range 3 {
		wantRaw(t, addr, lb, via(1, a), http.StatusOK)
	}
	sitesSaw(a)
	wantRaw(t, addr, lb, via(2, a), http.StatusTooManyRequests)
	wantRaw(t, addr, lb, via(2, b), http.StatusOK)
	sitesSaw(b)
	wantRaw(t, addr, lb, nil, http.StatusOK)
	sitesSaw(lb.String())

	other := randomLoopback()
	for _, version := range []byte{1, 2} {
		if resp, err := rawRead(t, addr, other, via(version, b)); err == nil {
			t.Errorf("PROXY v%d header from an untrusted peer answered %d, want the connection closed", version, resp.StatusCode)
		}
	}
	wantRaw(t, addr, other, nil, http.StatusOK)
	sitesSaw(other.String())
}

func wantRaw(t *testing.T, addr string, from net.IP, header *proxyproto.Header, status int) {
	t.Helper()
	resp, err := rawRead(t, addr, from, header)
	if err != nil {
		t.Fatalf("read from %s: %v", from, err)
	}
	if resp.StatusCode != status {
		t.Fatalf("read from %s: status %d, want %d", from, resp.StatusCode, status)
	}
}

// TestServicesGetTheClientAddress: behind a trusted proxy, an API request
// reaches its service with the client's address as the one X-Forwarded-For
// entry (not the proxy's), and without the headers CDNs and proxies name a
// client in, whoever sent them.
func TestServicesGetTheClientAddress(t *testing.T) {
	t.Parallel()
	proxyIP := randomLoopback()
	h := newHarness(t, options{env: map[string]string{"TRUSTED_PROXIES": proxyIP.String()}})
	hop := newProxyHop(t, h.srv.URL, proxyIP)
	token, _ := h.identity.add(randomID("user"), nil)
	req, err := http.NewRequest(http.MethodGet, hop.URL+"/v1/spaces/s1", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	claimed := []string{"True-Client-IP", "CF-Connecting-IP", "Fastly-Client-IP", "X-Cluster-Client-IP", "X-Original-Forwarded-For", "X-Client-IP"}
	for _, name := range claimed {
		req.Header.Set(name, randomClientIP())
	}
	client := randomLoopback()
	c := &http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: client}}).DialContext}}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	wantStatus(t, resp, http.StatusOK)
	got := h.content.last(t)
	if v := got.header.Values("X-Forwarded-For"); len(v) != 1 || v[0] != client.String() {
		t.Errorf("content got X-Forwarded-For %q, want the client %s alone", v, client)
	}
	for _, name := range claimed {
		if v := got.header.Get(name); v != "" {
			t.Errorf("content got %s: %q", name, v)
		}
	}
}
