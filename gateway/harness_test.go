package gateway_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docspub/platform/gateway"
	"github.com/docspub/platform/libs/config"
	"github.com/docspub/platform/libs/discovery"
	"github.com/docspub/platform/libs/embedded"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/otelx"
	"github.com/redis/go-redis/v9"
)

const secret = "test-secret-test-secret-test-secret-0123"

// redisURL is REDIS_URL when set (CI runs the tests against a real
// redis-server), else the package's miniredis, started in TestMain.
var redisURL string

func TestMain(m *testing.M) {
	// Traces as a deployment without an exporter has them (the default).
	if _, err := otelx.Setup(context.Background(), "gateway", otelx.Config{}); err != nil {
		panic(err)
	}
	// Tests stop Redis on purpose; go-redis would log every failed dial.
	redis.SetLogger(quiet{})

	redisURL = os.Getenv("REDIS_URL")
	var mr *embedded.Redis
	if redisURL == "" {
		var err error
		mr, err = embedded.StartRedis("")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		redisURL = "redis://" + mr.Addr() + "/0"
	}
	code := m.Run()
	if mr != nil {
		mr.Close()
	}
	os.Exit(code)
}

type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

// newRedis returns a client of the test Redis. Tests share it and stay apart
// by using fresh random tokens and user ids, so nothing is flushed.
func newRedis(t testing.TB) *redis.Client {
	t.Helper()
	opts, err := redis.ParseURL(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opts)
	t.Cleanup(func() { _ = rdb.Close() })
	if err := rdb.Ping(context.Background()).Err(); err != nil {
		t.Fatalf("redis %s: %v", redisURL, err)
	}
	return rdb
}

// closedAddr returns a loopback address nothing listens on.
func closedAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

func randomID(prefix string) string { return prefix + "-" + rand.Text() }

// identity stands in for identity's token resolve endpoint. It checks the
// gateway's service token (minted for identity) and counts the calls.
type identity struct {
	srv    *httptest.Server
	signer *internaltoken.Signer
	calls  atomic.Int64

	mu     sync.Mutex
	tokens map[string]resolution
	// down makes it answer 500.
	down atomic.Bool
	// hold, when set, receives a channel with each resolution; the
	// resolution answers once that channel is closed.
	hold chan chan struct{}
}

type resolution struct {
	UserID  string            `json:"userId"`
	TokenID string            `json:"tokenId"`
	Roles   map[string]string `json:"roles"`
}

func newIdentity(t testing.TB, other http.Handler, hold bool) *identity {
	t.Helper()
	s, err := internaltoken.NewSigner("identity", secret, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	id := &identity{signer: s, tokens: map[string]resolution{}}
	if hold {
		id.hold = make(chan chan struct{})
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+gateway.ResolvePath, id.resolve)
	if other != nil {
		mux.Handle("/v1/", other)
	}
	id.srv = httptest.NewServer(mux)
	t.Cleanup(id.srv.Close)
	return id
}

// add registers a token and returns it.
func (id *identity) add(userID string, roles map[string]string) (token string, res resolution) {
	token = randomID("tok")
	res = resolution{UserID: userID, TokenID: randomID("tid"), Roles: roles}
	id.mu.Lock()
	id.tokens[token] = res
	id.mu.Unlock()
	return token, res
}

func (id *identity) resolve(w http.ResponseWriter, r *http.Request) {
	id.calls.Add(1)
	p, err := id.signer.Verify(r.Header.Get(internaltoken.Header))
	if err != nil || p.Service != "gateway" {
		http.Error(w, `{"error":{"code":403,"message":"not the gateway"}}`, http.StatusForbidden)
		return
	}
	if id.down.Load() {
		http.Error(w, `{"error":{"code":500,"message":"down"}}`, http.StatusInternalServerError)
		return
	}
	if id.hold != nil {
		release := make(chan struct{})
		id.hold <- release
		<-release
	}
	var body struct {
		Token string `json:"token"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, "bad body", http.StatusBadRequest)
		return
	}
	id.mu.Lock()
	res, ok := id.tokens[body.Token]
	id.mu.Unlock()
	if !ok {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `{"error":{"code":401,"message":"unknown token"}}`)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(res)
}

// seen is what an upstream received.
type seen struct {
	method, path, rawPath, query string
	header                       http.Header
	body                         []byte
	bodyErr                      error
}

// upstream is a fake service that records requests and answers 200 JSON.
type upstream struct {
	srv  *httptest.Server
	name string

	mu   sync.Mutex
	reqs []seen
}

func newUpstream(t testing.TB, name string) *upstream {
	t.Helper()
	u := &upstream{name: name}
	u.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		u.mu.Lock()
		u.reqs = append(u.reqs, seen{method: r.Method, path: r.URL.Path, rawPath: r.URL.EscapedPath(), query: r.URL.RawQuery,
			header: r.Header.Clone(), body: body, bodyErr: err})
		u.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Request-Id", r.Header.Get("X-Request-Id"))
		w.Header().Set("X-Internal-Debug", "leak")
		_ = json.NewEncoder(w).Encode(map[string]any{"service": name, "path": r.URL.Path, "bytes": len(body)})
	}))
	t.Cleanup(u.srv.Close)
	return u
}

// last returns the request the upstream received last.
func (u *upstream) last(t testing.TB) seen {
	t.Helper()
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.reqs) == 0 {
		t.Fatalf("upstream %s received no request", u.name)
	}
	return u.reqs[len(u.reqs)-1]
}

// count returns how many requests the upstream received.
func (u *upstream) count() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.reqs)
}

// harness is a gateway in front of fake services.
type harness struct {
	gw  *gateway.Gateway
	srv *httptest.Server
	// readers is the URL of the readers' listener (options.readers).
	readers string
	// target is where do sends requests when set (readers); else srv.
	target   string
	identity *identity
	content  *upstream
	sites    *upstream
	rdb      *redis.Client
	// signers verify as each service would, by name.
	signers map[string]*internaltoken.Signer
}

type options struct {
	env       map[string]string
	upstreams discovery.Static // overrides
	rdb       *redis.Client
	// identityAPI serves identity's /v1 routes beside the fake resolve endpoint.
	identityAPI http.Handler
	// holdResolutions makes identity hold each resolution (identity.hold).
	holdResolutions bool
	// log receives the gateway's log; nil discards it.
	log *slog.Logger
	// resolve names the service resolved by resolver instead of the
	// static upstreams (a Consul registry).
	resolve  string
	resolver discovery.Resolver
	// readers serves the readers' listener too (READER_ADDR): readers.
	readers bool
}

// someThrough resolves one service through another resolver.
type someThrough struct {
	service string
	through discovery.Resolver
	others  discovery.Resolver
}

func (s someThrough) Resolve(ctx context.Context, service string) (string, error) {
	if service == s.service {
		return s.through.Resolve(ctx, service)
	}
	return s.others.Resolve(ctx, service)
}

func newHarness(t testing.TB, o options) *harness {
	t.Helper()
	h := &harness{rdb: o.rdb}
	if h.rdb == nil {
		h.rdb = newRedis(t)
	}
	h.identity = newIdentity(t, o.identityAPI, o.holdResolutions)
	h.content = newUpstream(t, "content")
	h.sites = newUpstream(t, "sites")
	ups := discovery.Static{"identity": h.identity.srv.URL, "content": h.content.srv.URL, "sites": h.sites.srv.URL}
	for k, v := range o.upstreams {
		ups[k] = v
	}
	// The failed-auth limit is per client address, and every test comes from
	// 127.0.0.1 through one shared Redis: off unless a test turns it on.
	env := map[string]string{"INTERNAL_TOKEN_SECRET": secret, "UPSTREAMS": ups.String(), "FAILED_AUTH_LIMIT": "0"}
	for k, v := range o.env {
		env[k] = v
	}
	var cfg gateway.Config
	if err := config.LoadMap(context.Background(), &cfg, env); err != nil {
		t.Fatal(err)
	}
	log := o.log
	if log == nil {
		log = logx.Discard()
	}
	var resolver discovery.Resolver = ups
	if o.resolver != nil {
		resolver = someThrough{service: o.resolve, through: o.resolver, others: ups}
	}
	gw, err := gateway.New(cfg, gateway.Deps{Redis: h.rdb, Resolver: resolver, Log: log})
	if err != nil {
		t.Fatalf("gateway.New: %v", err)
	}
	h.gw = gw
	h.srv = httptest.NewServer(gw.Handler())
	t.Cleanup(h.srv.Close)
	if o.readers {
		h.readers = serveReaders(t, gw)
	}
	h.signers = map[string]*internaltoken.Signer{}
	for _, name := range []string{"identity", "content", "sites", "insights", "integrations"} {
		if h.signers[name], err = internaltoken.NewSigner(name, secret, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

// serveReaders serves gw's readers' listener on a loopback port until the
// test ends, and returns its URL.
func serveReaders(t testing.TB, gw *gateway.Gateway) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- gw.ServeReaders(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("readers' listener: %v", err)
		}
	})
	return "http://" + ln.Addr().String()
}

// do sends a request to the gateway with the bearer token (none when empty).
func (h *harness) do(t testing.TB, method, path, token string, body io.Reader, header http.Header) *http.Response {
	t.Helper()
	base := h.srv.URL
	if h.target != "" {
		base = h.target
	}
	req, err := http.NewRequest(method, base+path, body)
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	client := *h.srv.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

// errorBody decodes the JSON error body and checks that its code is the status.
func errorBody(t testing.TB, resp *http.Response, wantStatus int) string {
	t.Helper()
	if resp.StatusCode != wantStatus {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status = %d, want %d; body %s", resp.StatusCode, wantStatus, b)
	}
	var body struct {
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("error body is not JSON: %v", err)
	}
	if body.Error.Code != wantStatus || body.Error.Message == "" {
		t.Fatalf("error body = %+v, want code %d and a message", body, wantStatus)
	}
	return body.Error.Message
}

func wantStatus(t testing.TB, resp *http.Response, want int) {
	t.Helper()
	if resp.StatusCode != want {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status = %d, want %d; body %s", resp.StatusCode, want, b)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
}
