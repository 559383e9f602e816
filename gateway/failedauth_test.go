package gateway_test

import (
	"fmt"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"testing"
)

// clientAt sends requests to the harness's gateway from its own loopback
// address (127.x.y.z), so that the per-address counters in the shared Redis
// start empty (a rerun within the minute included).
type clientAt struct {
	h      *harness
	addr   net.IP
	client *http.Client
}

func newClientAt(h *harness) *clientAt { return clientFrom(h, randomLoopback()) }

func randomLoopback() net.IP {
	return net.IPv4(127, byte(1+mrand.IntN(250)), byte(mrand.IntN(256)), byte(1+mrand.IntN(250)))
}

func clientFrom(h *harness, ip net.IP) *clientAt {
	return &clientAt{h: h, addr: ip, client: &http.Client{Transport: &http.Transport{
		DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: ip}}).DialContext}}}
}

// get sends GET /v1/spaces/s1 with the token and, when not empty, an
// X-Forwarded-For header.
func (c *clientAt) get(t *testing.T, token, forwardedFor string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, c.h.srv.URL+"/v1/spaces/s1", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if forwardedFor != "" {
		req.Header.Set("X-Forwarded-For", forwardedFor)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

// randomClientIP returns an address of TEST-NET-3 (203.0.113.0/24) or
// 198.18.0.0/15 that no other test of this run uses.
func randomClientIP() string {
	return fmt.Sprintf("198.%d.%d.%d", 18+mrand.IntN(2), mrand.IntN(256), 1+mrand.IntN(250))
}

// guessUntilBlocked sends unknown tokens until the answer is a 429 and checks
// that the first limit of them were 401s.
func guessUntilBlocked(t *testing.T, c *clientAt, forwardedFor string, limit int) {
	t.Helper()
	for range limit {
		errorBody(t, c.get(t, randomID("guess"), forwardedFor), http.StatusUnauthorized)
	}
	resp := c.get(t, randomID("guess"), forwardedFor)
	errorBody(t, resp, http.StatusTooManyRequests)
	if retry, err := strconv.Atoi(resp.Header.Get("Retry-After")); err != nil || retry < 1 || retry > 60 {
		t.Errorf("429 with Retry-After %q, want 1..60 s", resp.Header.Get("Retry-After"))
	}
}

// TestFailedAuthLimitSparesValidTokens: once an address has used up its
// unknown tokens, unknown tokens get a 429, while a valid token never seen
// before is still resolved and served, and other addresses are not affected.
func TestFailedAuthLimitSparesValidTokens(t *testing.T) {
	t.Parallel()
	h := newHarness(t, options{env: map[string]string{"FAILED_AUTH_LIMIT": "30"}})
	c := newClientAt(h)
	cached, _ := h.identity.add(randomID("user"), nil)
	wantStatus(t, c.get(t, cached, ""), http.StatusOK)

	guessUntilBlocked(t, c, "", 30)
	calls := h.identity.calls.Load()
	fresh, _ := h.identity.add(randomID("user"), nil)
	wantStatus(t, c.get(t, fresh, ""), http.StatusOK)
	if got := h.identity.calls.Load() - calls; got != 1 {
		t.Errorf("identity calls for the fresh token = %d, want 1 (it was never cached)", got)
	}
	wantStatus(t, c.get(t, cached, ""), http.StatusOK)
	errorBody(t, c.get(t, randomID("guess"), ""), http.StatusTooManyRequests)
	// Another address is not blocked.
	errorBody(t, newClientAt(h).get(t, randomID("guess"), ""), http.StatusUnauthorized)
}

// TestFailedAuthLimitBehindTrustedProxy: clients behind a trusted proxy are
// told apart by X-Forwarded-For; blocking one leaves the other alone.
func TestFailedAuthLimitBehindTrustedProxy(t *testing.T) {
	t.Parallel()
	proxyIP := randomLoopback()
	h := newHarness(t, options{env: map[string]string{"FAILED_AUTH_LIMIT": "3", "TRUSTED_PROXIES": "10.0.0.0/8, " + proxyIP.String()}})
	proxy := clientFrom(h, proxyIP)
	guesser, honest := randomClientIP(), randomClientIP()
	// The proxy appends the address it saw; a client's own entries come before it.
	guessUntilBlocked(t, proxy, "10.9.9.9, "+guesser, 3)
	errorBody(t, proxy.get(t, randomID("guess"), honest), http.StatusUnauthorized)
	token, _ := h.identity.add(randomID("user"), nil)
	wantStatus(t, proxy.get(t, token, honest), http.StatusOK)
	// Behind a chain of trusted proxies the right-most untrusted address counts.
	errorBody(t, proxy.get(t, randomID("guess"), guesser+", 10.1.2.3"), http.StatusTooManyRequests)
	// An address the guesser prepends does not change who it is.
	errorBody(t, proxy.get(t, randomID("guess"), randomClientIP()+", "+guesser), http.StatusTooManyRequests)
}

// TestForwardedForFromUntrustedPeerIgnored: a client that is not a trusted
// proxy cannot choose its address with X-Forwarded-For (or X-Real-IP) to
// dodge the limit.
func TestForwardedForFromUntrustedPeerIgnored(t *testing.T) {
	t.Parallel()
	for _, trusted := range []string{"", "10.0.0.0/8"} {
		t.Run("trusted="+trusted, func(t *testing.T) {
			h := newHarness(t, options{env: map[string]string{"FAILED_AUTH_LIMIT": "3", "TRUSTED_PROXIES": trusted}})
			c := newClientAt(h)
			for range 3 {
				errorBody(t, c.get(t, randomID("guess"), randomClientIP()), http.StatusUnauthorized)
			}
			errorBody(t, c.get(t, randomID("guess"), randomClientIP()), http.StatusTooManyRequests)
			req, err := http.NewRequest(http.MethodGet, h.srv.URL+"/v1/spaces/s1", nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+randomID("guess"))
			req.Header.Set("X-Real-IP", randomClientIP())
			resp, err := c.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			errorBody(t, resp, http.StatusTooManyRequests)
		})
	}
}
