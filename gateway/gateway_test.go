package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/docspub/platform/libs/envelope"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/gateway"
	"github.com/docspub/platform/libs/discovery"
	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/internalapi/eventtest"
	"github.com/docspub/platform/libs/internalapi/identityapi"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/google/go-cmp/cmp"
	"github.com/redis/go-redis/v9"
)

func TestUnauthorized(t *testing.T) {
	t.Parallel()
	h := newHarness(t, options{})
	tests := []struct {
		name          string
		authorization string
		wantIdentity  int64 // calls to identity
	}{
		{name: "missing", authorization: ""},
		{name: "other scheme", authorization: "Basic dXNlcjpwdw=="},
		{name: "empty bearer", authorization: "Bearer "},
		{name: "bearer without token", authorization: "Bearer"},
		{name: "token with space", authorization: "Bearer a b"},
		{name: "too long", authorization: "Bearer " + strings.Repeat("a", 2000)},
		{name: "unknown", authorization: "Bearer " + randomID("unknown"), wantIdentity: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := h.identity.calls.Load()
			header := http.Header{}
			if tc.authorization != "" {
				header.Set("Authorization", tc.authorization)
			}
			resp := h.do(t, http.MethodGet, "/v1/spaces/s1", "", nil, header)
			errorBody(t, resp, http.StatusUnauthorized)
			if got := resp.Header.Get("WWW-Authenticate"); !strings.HasPrefix(got, "Bearer") {
				t.Errorf("WWW-Authenticate = %q, want Bearer", got)
			}
			if got := h.identity.calls.Load() - before; got != tc.wantIdentity {
				t.Errorf("identity calls = %d, want %d", got, tc.wantIdentity)
			}
		})
	}
	if n := h.content.count(); n != 0 {
		t.Errorf("content received %d requests, want 0", n)
	}
}

func TestUnknownTokenIsCachedBriefly(t *testing.T) {
	t.Parallel()
	h := newHarness(t, options{})
	token := randomID("guess")
	for range 3 {
		errorBody(t, h.do(t, http.MethodGet, "/v1/spaces/s1", token, nil, nil), http.StatusUnauthorized)
	}
	if got := h.identity.calls.Load(); got != 1 {
		t.Errorf("identity calls = %d, want 1", got)
	}
	ttl, err := h.rdb.TTL(context.Background(), "gateway:token:"+gateway.TokenHash(token)).Result()
	if err != nil {
		t.Fatal(err)
	}
	if ttl <= 0 || ttl > 5*time.Second {
		t.Errorf("negative cache TTL = %v, want (0, 5s]", ttl)
	}
}

func TestTokenCacheAndForget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHarness(t, options{})
	user := randomID("user")
	token, _ := h.identity.add(user, map[string]string{"org1": "admin"})
	other, _ := h.identity.add(user, nil)
	hash := gateway.TokenHash(token)

	get := func(tok string, wantCalls int64) {
		t.Helper()
		wantStatus(t, h.do(t, http.MethodGet, "/v1/spaces/s1", tok, nil, nil), http.StatusOK)
		if got := h.identity.calls.Load(); got != wantCalls {
			t.Fatalf("identity calls = %d, want %d", got, wantCalls)
		}
	}
	get(token, 1)
	get(token, 1) // from the cache
	get(other, 2)
	get(other, 2)

	// The cache holds the hash, never the raw token.
	keys, err := h.rdb.Keys(ctx, "gateway:*"+token+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 0 {
		t.Errorf("redis keys holding the raw token: %v", keys)
	}
	ttl, err := h.rdb.TTL(ctx, "gateway:token:"+hash).Result()
	if err != nil {
		t.Fatal(err)
	}
	if ttl <= 0 || ttl > 30*time.Second {
		t.Errorf("cache TTL = %v, want (0, 30s]", ttl)
	}
	if ok, err := h.rdb.SIsMember(ctx, "gateway:user:"+user, hash).Result(); err != nil || !ok {
		t.Errorf("user set holds the token hash = %v (err %v), want true", ok, err)
	}

	if err := h.gw.Forget(ctx, hash); err != nil {
		t.Fatal(err)
	}
	get(token, 3)
	get(other, 3) // untouched by Forget

	if err := h.gw.ForgetUser(ctx, user); err != nil {
		t.Fatal(err)
	}
	get(token, 4)
	get(other, 5)
	get(token, 5)
}

func TestHandleIdentityEvent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHarness(t, options{})
	user := randomID("user")
	token, res := h.identity.add(user, map[string]string{"org1": "admin"})
	get := func(wantCalls int64) {
		t.Helper()
		wantStatus(t, h.do(t, http.MethodGet, "/v1/spaces/s1", token, nil, nil), http.StatusOK)
		if got := h.identity.calls.Load(); got != wantCalls {
			t.Fatalf("identity calls = %d, want %d", got, wantCalls)
		}
	}
	get(1)

	revoked := identityapi.NewTokenRevoked(identityapi.Token{ID: res.TokenID, User: user, Hash: gateway.TokenHash(token)})
	if err := h.gw.HandleIdentityEvent(ctx, revoked); err != nil {
		t.Fatal(err)
	}
	get(2)

	member := identityapi.Member{Object: "member", ID: user, User: identityapi.User{Object: "user", ID: user}}
	for i, newEvent := range []func(string, identityapi.Member) envelope.Event{
		identityapi.NewMemberCreated, identityapi.NewMemberUpdated, identityapi.NewMemberDeleted,
	} {
		if err := h.gw.HandleIdentityEvent(ctx, newEvent("org1", member)); err != nil {
			t.Fatal(err)
		}
		get(int64(3 + i))
	}

	if err := h.gw.HandleIdentityEvent(ctx, identityapi.NewTeamCreated("org1", identityapi.Team{ID: "t1"})); err != nil {
		t.Errorf("unrelated event: %v, want nil", err)
	}
	for _, unknown := range []envelope.Event{
		{ID: "e1", Type: contentapi.SpaceCreated, Data: json.RawMessage(`{}`)},
		envelope.NewVersion(identityapi.TokenRevoked, identityapi.TokenVersion+1, "", "t1", map[string]string{"hash": "x"}),
	} {
		if err := h.gw.HandleIdentityEvent(ctx, unknown); !errors.Is(err, envelope.ErrUnknown) {
			t.Errorf("%s version %d: %v, want envelope.ErrUnknown", unknown.Type, unknown.SchemaVersion(), err)
		}
	}
	get(5)
	for _, ev := range eventtest.Goldens(t, identityapi.Goldens()) { // every type and version identity wrote
		if err := h.gw.HandleIdentityEvent(ctx, ev); err != nil {
			t.Errorf("%s: %v", eventtest.Name(ev), err)
		}
	}
	for _, bad := range []struct{ typ, data string }{
		{identityapi.TokenRevoked, `{}`},
		{identityapi.TokenRevoked, `not json`},
		{identityapi.MemberUpdated, `{"user":{}}`},
	} {
		ev := envelope.Event{ID: "e1", Type: bad.typ, Data: json.RawMessage(bad.data)}
		if err := h.gw.HandleIdentityEvent(ctx, ev); err == nil || errors.Is(err, envelope.ErrUnknown) {
			t.Errorf("HandleIdentityEvent(%s, %s) = nil, want an error", bad.typ, bad.data)
		}
	}
}

func TestForwarding(t *testing.T) {
	t.Parallel()
	h := newHarness(t, options{})
	user := randomID("user")
	token, res := h.identity.add(user, map[string]string{"org1": "admin", "org2": "reader"})

	const traceID = "4bf92f3577b34da6a3ce929b0e0e4736"
	const clientSpan = "00f067aa0ba902b7"
	forged, err := h.signers["content"].Mint("content", internaltoken.Principal{UserID: "someone-else", Roles: map[string]string{"org1": "admin"}})
	if err != nil {
		t.Fatal(err)
	}
	header := http.Header{
		"X-Internal-Token":  {forged},
		"X-Internal-Caller": {"content"},
		"X-Forwarded-User":  {"someone-else"},
		"X-Forwarded-For":   {"10.1.2.3"},
		"X-Real-Ip":         {"10.1.2.3"},
		"Forwarded":         {"for=10.1.2.3"},
		"X-Request-Id":      {"req-123"},
		"Traceparent":       {"00-" + traceID + "-" + clientSpan + "-01"},
		"Accept":            {"application/json"},
	}
	path := "/v1/spaces/sp%201/comments?format=markdown&authors=a%2Cb&targetPage=p"
	resp := h.do(t, http.MethodPost, path, token, strings.NewReader(`{"body":{"markdown":"hi"}}`), header)
	wantStatus(t, resp, http.StatusOK)

	got := h.content.last(t)
	if got.method != http.MethodPost || got.rawPath != "/v1/spaces/sp%201/comments" || got.query != "format=markdown&authors=a%2Cb&targetPage=p" {
		t.Errorf("upstream got %s %s ? %s, want the client's method, path and query", got.method, got.rawPath, got.query)
	}
	if string(got.body) != `{"body":{"markdown":"hi"}}` {
		t.Errorf("upstream body = %q", got.body)
	}
	p, err := h.signers["content"].Verify(got.header.Get(internaltoken.Header))
	if err != nil {
		t.Fatalf("upstream internal token: %v", err)
	}
	want := internaltoken.Principal{UserID: user, Roles: res.Roles, TokenID: res.TokenID}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("principal (-want +got):\n%s", diff)
	}
	if n := len(got.header.Values(internaltoken.Header)); n != 1 {
		t.Errorf("upstream got %d internal tokens, want 1", n)
	}
	for _, name := range []string{"X-Internal-Caller", "X-Forwarded-User", "X-Real-Ip", "Forwarded", "Authorization"} {
		if v := got.header.Values(name); len(v) != 0 {
			t.Errorf("upstream got %s: %q, want it dropped", name, v)
		}
	}
	if v := got.header.Get("X-Forwarded-For"); v != "127.0.0.1" {
		t.Errorf("X-Forwarded-For = %q, want the peer address only", v)
	}
	if v := got.header.Get("X-Request-Id"); v != "req-123" {
		t.Errorf("upstream X-Request-Id = %q, want req-123", v)
	}
	if v := got.header.Get("Accept"); v != "application/json" {
		t.Errorf("upstream Accept = %q, want it kept", v)
	}
	tp := strings.Split(got.header.Get("Traceparent"), "-")
	if len(tp) != 4 || tp[1] != traceID || tp[2] == clientSpan {
		t.Errorf("upstream traceparent = %q, want trace %s with the gateway's span", got.header.Get("Traceparent"), traceID)
	}

	if v := resp.Header.Values("X-Request-Id"); len(v) != 1 || v[0] != "req-123" {
		t.Errorf("response X-Request-Id = %q, want [req-123]", v)
	}
	if v := resp.Header.Get("X-Internal-Debug"); v != "" {
		t.Errorf("response leaks X-Internal-Debug = %q", v)
	}
}

// TestForwardedTokenOnlyForRouteService: the internal token the gateway
// forwards is accepted by the route's service and refused by every other.
func TestForwardedTokenOnlyForRouteService(t *testing.T) {
	t.Parallel()
	identityAPI := newUpstream(t, "identity")
	insights, integrations := newUpstream(t, "insights"), newUpstream(t, "integrations")
	h := newHarness(t, options{identityAPI: identityAPI.srv.Config.Handler,
		upstreams: discovery.Static{"insights": insights.srv.URL, "integrations": integrations.srv.URL}})
	token, _ := h.identity.add(randomID("user"), map[string]string{"o1": "admin"})
	for _, tc := range []struct {
		path     string
		upstream *upstream
	}{
		{"/v1/user", identityAPI},
		{"/v1/orgs/o1/spaces", h.content},
		{"/v1/orgs/o1/sites", h.sites},
		{"/v1/orgs/o1/sites/s1/insights/visitor-segments", insights},
		{"/v1/orgs/o1/openapi", integrations},
	} {
		t.Run(tc.upstream.name, func(t *testing.T) {
			wantStatus(t, h.do(t, http.MethodGet, tc.path, token, nil, nil), http.StatusOK)
			forwarded := tc.upstream.last(t).header.Get(internaltoken.Header)
			for name, s := range h.signers {
				_, err := s.Verify(forwarded)
				if accepted := err == nil; accepted != (name == tc.upstream.name) {
					t.Errorf("token forwarded to %s: accepted by %s = %v (err %v)", tc.upstream.name, name, accepted, err)
				}
			}
		})
	}
}

func TestRoutesToOwningService(t *testing.T) {
	t.Parallel()
	h := newHarness(t, options{})
	token, _ := h.identity.add(randomID("user"), nil)
	wantStatus(t, h.do(t, http.MethodGet, "/v1/orgs/o1/sites/s1/section-groups", token, nil, nil), http.StatusOK)
	wantStatus(t, h.do(t, http.MethodGet, "/v1/orgs/o1/members/u1/spaces", token, nil, nil), http.StatusOK)
	if got := h.sites.last(t).path; got != "/v1/orgs/o1/sites/s1/section-groups" {
		t.Errorf("sites got %q", got)
	}
	if got := h.content.last(t).path; got != "/v1/orgs/o1/members/u1/spaces" {
		t.Errorf("content got %q", got)
	}
	if h.sites.count() != 1 || h.content.count() != 1 {
		t.Errorf("sites got %d, content %d requests; want 1 each", h.sites.count(), h.content.count())
	}
}

func TestNoRoute(t *testing.T) {
	t.Parallel()
	h := newHarness(t, options{})
	token, _ := h.identity.add(randomID("user"), nil)
	tests := []struct {
		name, method, path, token string
		want                      int
		wantAllow                 string
	}{
		{name: "unknown path", method: "GET", path: "/v1/nothing/here", token: token, want: http.StatusNotFound},
		{name: "unknown path without token", method: "GET", path: "/v1/nothing/here", want: http.StatusNotFound},
		{name: "v1 alone", method: "GET", path: "/v1", token: token, want: http.StatusNotFound},
		{name: "dot segments", method: "GET", path: "/v1/spaces/%2e%2e/links", token: token, want: http.StatusNotFound},
		{name: "trailing slash", method: "GET", path: "/v1/spaces/s1/", token: token, want: http.StatusNotFound},
		{name: "wrong method", method: "PUT", path: "/v1/spaces/s1", token: token, want: http.StatusMethodNotAllowed, wantAllow: "DELETE, GET, PATCH"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := h.do(t, tc.method, tc.path, tc.token, nil, nil)
			errorBody(t, resp, tc.want)
			if got := resp.Header.Get("Allow"); got != tc.wantAllow {
				t.Errorf("Allow = %q, want %q", got, tc.wantAllow)
			}
		})
	}
	if n := h.content.count(); n != 0 {
		t.Errorf("content received %d requests, want 0", n)
	}
}

func TestRateLimit(t *testing.T) {
	t.Parallel()
	h := newHarness(t, options{env: map[string]string{"RATE_LIMIT": "2"}})
	token, _ := h.identity.add(randomID("user"), nil)
	for i, wantRemaining := range []string{"1", "0"} {
		resp := h.do(t, http.MethodGet, "/v1/spaces/s1", token, nil, nil)
		wantStatus(t, resp, http.StatusOK)
		if got := resp.Header.Get("X-RateLimit-Limit"); got != "2" {
			t.Errorf("request %d: X-RateLimit-Limit = %q, want 2", i, got)
		}
		if got := resp.Header.Get("X-RateLimit-Remaining"); got != wantRemaining {
			t.Errorf("request %d: X-RateLimit-Remaining = %q, want %s", i, got, wantRemaining)
		}
		if reset, err := strconv.Atoi(resp.Header.Get("X-RateLimit-Reset")); err != nil || reset < 1 || reset > 60 {
			t.Errorf("request %d: X-RateLimit-Reset = %q, want 1..60 s", i, resp.Header.Get("X-RateLimit-Reset"))
		}
	}

	resp := h.do(t, http.MethodGet, "/v1/spaces/s1", token, nil, nil)
	errorBody(t, resp, http.StatusTooManyRequests)
	retry, err := strconv.Atoi(resp.Header.Get("Retry-After"))
	if err != nil || retry < 1 || retry > 30 {
		t.Errorf("Retry-After = %q, want 1..30 s (one request per 30 s)", resp.Header.Get("Retry-After"))
	}
	if got := resp.Header.Get("X-RateLimit-Remaining"); got != "0" {
		t.Errorf("X-RateLimit-Remaining = %q, want 0", got)
	}
	if got := resp.Header.Get("X-RateLimit-Limit"); got != "2" {
		t.Errorf("X-RateLimit-Limit = %q, want 2", got)
	}
	if n := h.content.count(); n != 2 {
		t.Errorf("content received %d requests, want 2", n)
	}

	// The limit is per token.
	other, _ := h.identity.add(randomID("user"), nil)
	wantStatus(t, h.do(t, http.MethodGet, "/v1/spaces/s1", other, nil, nil), http.StatusOK)
}

func TestRateLimitOff(t *testing.T) {
	t.Parallel()
	h := newHarness(t, options{env: map[string]string{"RATE_LIMIT": "0"}})
	token, _ := h.identity.add(randomID("user"), nil)
	for range 5 {
		resp := h.do(t, http.MethodGet, "/v1/spaces/s1", token, nil, nil)
		wantStatus(t, resp, http.StatusOK)
		if got := resp.Header.Get("X-RateLimit-Limit"); got != "" {
			t.Errorf("X-RateLimit-Limit = %q with the limit off", got)
		}
	}
}

func TestServiceUnavailable(t *testing.T) {
	t.Parallel()
	h := newHarness(t, options{upstreams: discovery.Static{"content": "http://" + closedAddr(t)}})
	token, _ := h.identity.add(randomID("user"), nil)

	start := time.Now()
	msg := errorBody(t, h.do(t, http.MethodGet, "/v1/spaces/s1", token, nil, nil), http.StatusServiceUnavailable)
	if took := time.Since(start); took > 2500*time.Millisecond {
		t.Errorf("503 took %v, want about the dial timeout at most", took)
	}
	if msg != "service content unavailable" {
		t.Errorf("message = %q", msg)
	}

	// integrations is in no upstream list: discovery fails.
	msg = errorBody(t, h.do(t, http.MethodGet, "/v1/spaces/s1/git/info", token, nil, nil), http.StatusServiceUnavailable)
	if msg != "service integrations unavailable" {
		t.Errorf("message = %q", msg)
	}
}

func TestIdentityUnavailable(t *testing.T) {
	t.Parallel()
	h := newHarness(t, options{})
	token, _ := h.identity.add(randomID("user"), nil)
	h.identity.down.Store(true)
	errorBody(t, h.do(t, http.MethodGet, "/v1/spaces/s1", token, nil, nil), http.StatusServiceUnavailable)

	// A failure is not cached.
	h.identity.down.Store(false)
	wantStatus(t, h.do(t, http.MethodGet, "/v1/spaces/s1", token, nil, nil), http.StatusOK)

	// Identity down: a token that is not cached cannot be resolved.
	h2 := newHarness(t, options{upstreams: discovery.Static{"identity": "http://" + closedAddr(t)}})
	errorBody(t, h2.do(t, http.MethodGet, "/v1/spaces/s1", randomID("tok"), nil, nil), http.StatusServiceUnavailable)
}

func TestUpstreamTimeout(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(slow.Close)
	t.Cleanup(func() { close(release) }) // runs before slow.Close
	h := newHarness(t, options{
		env:       map[string]string{"UPSTREAM_TIMEOUT": "300ms"},
		upstreams: discovery.Static{"content": slow.URL},
	})
	token, _ := h.identity.add(randomID("user"), nil)
	start := time.Now()
	msg := errorBody(t, h.do(t, http.MethodGet, "/v1/spaces/s1", token, nil, nil), http.StatusGatewayTimeout)
	if took := time.Since(start); took < 300*time.Millisecond || took > 5*time.Second {
		t.Errorf("504 after %v, want about UPSTREAM_TIMEOUT", took)
	}
	if msg != "service content timed out" {
		t.Errorf("message = %q", msg)
	}
}

// unsized hides the length of a reader, so the client sends it chunked.
type unsized struct{ io.Reader }

func TestBodyLimit(t *testing.T) {
	t.Parallel()
	h := newHarness(t, options{env: map[string]string{"MAX_BODY_BYTES": "1024"}})
	token, _ := h.identity.add(randomID("user"), nil)
	path := "/v1/orgs/o1/collections"

	errorBody(t, h.do(t, http.MethodPost, path, token, bytes.NewReader(make([]byte, 2048)), nil), http.StatusRequestEntityTooLarge)
	if n := h.content.count(); n != 0 {
		t.Errorf("content received %d requests for a declared oversize body, want 0", n)
	}

	errorBody(t, h.do(t, http.MethodPost, path, token, unsized{bytes.NewReader(make([]byte, 4096))}, nil), http.StatusRequestEntityTooLarge)

	resp := h.do(t, http.MethodPost, path, token, unsized{bytes.NewReader(make([]byte, 1024))}, nil)
	wantStatus(t, resp, http.StatusOK)
	if got := h.content.last(t); len(got.body) != 1024 || got.bodyErr != nil {
		t.Errorf("upstream got %d bytes (err %v), want 1024", len(got.body), got.bodyErr)
	}
}

func TestHealth(t *testing.T) {
	t.Parallel()
	h := newHarness(t, options{})
	wantStatus(t, h.do(t, http.MethodGet, "/healthz", "", nil, nil), http.StatusOK)
	wantStatus(t, h.do(t, http.MethodGet, "/readyz", "", nil, nil), http.StatusOK)

	// Without Redis the gateway fails open, so it stays ready: a Redis
	// outage must not take every gateway out of the Ingress.
	down := newHarness(t, options{rdb: redis.NewClient(&redis.Options{Addr: closedAddr(t), MaxRetries: -1, DialerRetries: 1})})
	wantStatus(t, down.do(t, http.MethodGet, "/healthz", "", nil, nil), http.StatusOK)
	wantStatus(t, down.do(t, http.MethodGet, "/readyz", "", nil, nil), http.StatusOK)
}

func TestRedisDownFailsOpen(t *testing.T) {
	t.Parallel()
	rdb := redis.NewClient(&redis.Options{Addr: closedAddr(t), MaxRetries: -1, DialerRetries: 1})
	t.Cleanup(func() { _ = rdb.Close() })
	h := newHarness(t, options{rdb: rdb, env: map[string]string{"RATE_LIMIT": "1"}})
	token, _ := h.identity.add(randomID("user"), nil)
	for i := range 3 {
		wantStatus(t, h.do(t, http.MethodGet, "/v1/spaces/s1", token, nil, nil), http.StatusOK)
		if got := h.identity.calls.Load(); got != int64(i+1) {
			t.Errorf("identity calls = %d, want %d (no cache without Redis)", got, i+1)
		}
	}
	errorBody(t, h.do(t, http.MethodGet, "/v1/spaces/s1", randomID("unknown"), nil, nil), http.StatusUnauthorized)
}

func TestConfigValidate(t *testing.T) {
	t.Parallel()
	err := gateway.Config{LogLevel: "loud", RateLimit: -1, Upstreams: "content=ftp://x", RedisURL: "nope",
		TrustedProxies: []string{"proxy.example"}}.Validate()
	if err == nil {
		t.Fatal("Validate of a bad config = nil")
	}
	for _, name := range []string{"ADDR", "UPSTREAMS", "REDIS_URL", "INTERNAL_TOKEN_SECRET", "AUTH_CACHE_TTL",
		"RATE_LIMIT", "UPSTREAM_TIMEOUT", "MAX_BODY_BYTES", "LOG_LEVEL", "TRUSTED_PROXIES", "KAFKA_BROKERS"} {
		if !strings.Contains(err.Error(), name+":") && !strings.Contains(err.Error(), name+" is required") && !strings.Contains(err.Error(), name+" must") {
			t.Errorf("Validate error %q does not name %s", err, name)
		}
	}

	if !strings.Contains(err.Error(), "PUBLIC_URL must be an absolute http(s) URL") {
		t.Errorf("Validate error %q does not name PUBLIC_URL", err)
	}

	err = gateway.Config{Upstreams: "content=http://127.0.0.1:1"}.Validate()
	if err == nil || !strings.Contains(err.Error(), "must name identity") {
		t.Errorf("Validate without identity = %v", err)
	}

	err = gateway.Config{Discovery: discovery.Config{Mode: "dns"}}.Validate()
	if err == nil || !strings.Contains(err.Error(), "DISCOVERY must be static or consul") {
		t.Errorf("Validate with an unknown discovery = %v", err)
	}

	for _, tc := range []struct {
		proxies []string
		ok      bool
	}{
		{[]string{"10.0.0.0/8", " 192.168.1.7 ", "fd00::/8", ""}, true},
		{[]string{"0.0.0.0/0"}, false},
		{[]string{"::/0"}, false},
		{[]string{"10.0.0.0/33"}, false},
	} {
		err := gateway.Config{TrustedProxies: tc.proxies}.Validate()
		if got := err == nil || !strings.Contains(err.Error(), "TRUSTED_PROXIES"); got != tc.ok {
			t.Errorf("TRUSTED_PROXIES %q accepted = %v, want %v (%v)", tc.proxies, got, tc.ok, err)
		}
	}

	for _, tc := range []struct {
		cfg  gateway.Config
		name string // the variable the error names; "" accepted
	}{
		{gateway.Config{TrustedHops: 2}, ""},
		{gateway.Config{TrustedHops: -1}, "TRUSTED_HOPS"},
		{gateway.Config{TrustedHops: 11}, "TRUSTED_HOPS"},
		{gateway.Config{TrustedHops: 1, TrustedProxies: []string{"10.0.0.0/8"}}, "TRUSTED_HOPS"},
		{gateway.Config{ProxyProtocol: true, TrustedProxies: []string{"10.0.0.0/8"}}, ""},
		{gateway.Config{ProxyProtocol: true, TrustedProxies: []string{" "}}, "PROXY_PROTOCOL"},
		{gateway.Config{ProxyProtocol: true, TrustedHops: 1}, "PROXY_PROTOCOL"},
	} {
		err := tc.cfg.Validate()
		for _, name := range []string{"TRUSTED_HOPS", "PROXY_PROTOCOL"} {
			if named := err != nil && strings.Contains(err.Error(), name+":"); named != (name == tc.name) {
				t.Errorf("Validate(hops %d, proxies %q, PROXY %v) = %v; names %s: %v, want %v",
					tc.cfg.TrustedHops, tc.cfg.TrustedProxies, tc.cfg.ProxyProtocol, err, name, named, name == tc.name)
			}
		}
	}
}

func ExampleTokenHash() {
	fmt.Println(gateway.TokenHash("secret-token")[:16])
	// Output: 930bbdc51b6aed5c
}
