package httpx_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/apitest"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/waittest"
	"github.com/gin-gonic/gin"
	"github.com/google/go-cmp/cmp"
)

// Extra is embedded: its fields sit at the top of the JSON object.
type Extra struct {
	Labels []string `json:"labels,omitempty"`
}

type thing struct {
	Extra
	Title  string `json:"title"`
	Count  int    `json:"count"`
	Tags   []string
	Nested struct {
		Flag bool `json:"flag"`
	} `json:"nested"`
}

// syncBuffer is a log destination safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newEngine(t *testing.T, ready ...httpx.Check) (*gin.Engine, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	e := httpx.NewEngine(logx.NewTo(logs, "test", "info"), "test", ready...)
	e.POST("/things", func(c *gin.Context) {
		var th thing
		if err := httpx.BindJSON(c, &th); err != nil {
			httpx.Error(c, err)
			return
		}
		c.JSON(http.StatusCreated, th)
	})
	e.PATCH("/things", func(c *gin.Context) {
		th := thing{Title: "unchanged"}
		if err := httpx.BindOptionalJSON(c, &th); err != nil {
			httpx.Error(c, err)
			return
		}
		c.JSON(http.StatusOK, th)
	})
	e.GET("/panic", func(c *gin.Context) { panic("mongodb://admin:hunter2@db failed") })
	e.GET("/fail", func(c *gin.Context) { httpx.Error(c, errors.New("dial 10.0.0.3: secret detail")) })
	e.GET("/gone", func(c *gin.Context) { httpx.Error(c, apierr.NotFound("thing t1 not found")) })
	e.DELETE("/things", func(c *gin.Context) { httpx.NoContent(c, http.StatusNoContent) })
	e.GET("/query", func(c *gin.Context) {
		b, err := httpx.QueryBool(c, "nested", false)
		if err != nil {
			httpx.Error(c, err)
			return
		}
		s, err := httpx.QueryEnum(c, "sort", "title", "title", "updatedAt")
		if err != nil {
			httpx.Error(c, err)
			return
		}
		c.JSON(http.StatusOK, gin.H{"nested": b, "sort": s})
	})
	return e, logs
}

func do(e http.Handler, method, path, body string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	e.ServeHTTP(w, apitest.NewRequest(method, path, body))
	return w
}

func TestEngine(t *testing.T) {
	e, _ := newEngine(t)
	for _, tc := range []struct {
		name, method, path, body string
		wantStatus               int
		wantBody                 string
	}{
		{"unknown route", "GET", "/nope", "", 404, `{"error":{"code":404,"message":"no route for GET /nope"}}`},
		{"method not allowed", "PUT", "/things", "", 405, `{"error":{"code":405,"message":"method PUT not allowed on /things"}}`},
		{"healthz", "GET", "/healthz", "", 200, `{"status":"ok"}`},
		{"readyz", "GET", "/readyz", "", 200, `{"status":"ready"}`},
		{"created", "POST", "/things", `{"title":"a","count":2,"nested":{"flag":true}}`, 201,
			`{"title":"a","count":2,"Tags":null,"nested":{"flag":true}}`},
		{"malformed JSON", "POST", "/things", `{"title":`, 400, `{"error":{"code":400,"message":"malformed JSON: unexpected end of body"}}`},
		{"syntax error", "POST", "/things", `{"title" "a"}`, 400, `{"error":{"code":400,"message":"malformed JSON at offset 10"}}`},
		{"wrong type", "POST", "/things", `{"title":5}`, 400, `{"error":{"code":400,"message":"title: must be a string"}}`},
		{"wrong type number", "POST", "/things", `{"count":"two"}`, 400, `{"error":{"code":400,"message":"count: must be a number"}}`},
		{"wrong type array", "POST", "/things", `{"Tags":"x"}`, 400, `{"error":{"code":400,"message":"Tags: must be an array"}}`},
		{"wrong type in an embedded struct", "POST", "/things", `{"labels":"x"}`, 400, `{"error":{"code":400,"message":"labels: must be an array"}}`},
		{"wrong type nested", "POST", "/things", `{"nested":{"flag":"yes"}}`, 400, `{"error":{"code":400,"message":"nested.flag: must be a boolean"}}`},
		{"wrong body type", "POST", "/things", `[1]`, 400, `{"error":{"code":400,"message":"body: must be an object"}}`},
		{"no body", "POST", "/things", "", 400, `{"error":{"code":400,"message":"request body is required"}}`},
		{"trailing data", "POST", "/things", `{"title":"a"} {}`, 400, `{"error":{"code":400,"message":"malformed JSON: unexpected data after the body"}}`},
		{"optional body absent", "PATCH", "/things", "", 200, `{"title":"unchanged","count":0,"Tags":null,"nested":{"flag":false}}`},
		{"optional body set", "PATCH", "/things", `{"title":"b"}`, 200, `{"title":"b","count":0,"Tags":null,"nested":{"flag":false}}`},
		{"optional body wrong type", "PATCH", "/things", `{"title":5}`, 400, `{"error":{"code":400,"message":"title: must be a string"}}`},
		{"optional body malformed", "PATCH", "/things", `{"title":`, 400, `{"error":{"code":400,"message":"malformed JSON: unexpected end of body"}}`},
		{"client error", "GET", "/gone", "", 404, `{"error":{"code":404,"message":"thing t1 not found"}}`},
		{"internal error", "GET", "/fail", "", 500, `{"error":{"code":500,"message":"internal error"}}`},
		{"panic", "GET", "/panic", "", 500, `{"error":{"code":500,"message":"internal error"}}`},
		{"no content", "DELETE", "/things", "", 204, ``},
		{"query defaults", "GET", "/query", "", 200, `{"nested":false,"sort":"title"}`},
		{"query values", "GET", "/query?nested=true&sort=updatedAt", "", 200, `{"nested":true,"sort":"updatedAt"}`},
		{"query bad bool", "GET", "/query?nested=maybe", "", 400, `{"error":{"code":400,"message":"nested: must be true or false"}}`},
		{"query bad enum", "GET", "/query?sort=size", "", 400, `{"error":{"code":400,"message":"sort: must be one of [title updatedAt]"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := do(e, tc.method, tc.path, tc.body)
			if w.Code != tc.wantStatus {
				t.Errorf("status = %d, want %d (body %s)", w.Code, tc.wantStatus, w.Body)
			}
			if diff := cmp.Diff(w.Body.String(), tc.wantBody); diff != "" {
				t.Errorf("body (-got +want):\n%s", diff)
			}
			if w.Header().Get(httpx.RequestIDHeader) == "" {
				t.Errorf("no %s header", httpx.RequestIDHeader)
			}
		})
	}
}

func TestBodyTooLarge(t *testing.T) {
	e, _ := newEngine(t)
	big := `{"title":"` + strings.Repeat("a", httpx.MaxBodyBytes) + `"}`
	w := do(e, "POST", "/things", big)
	want := `{"error":{"code":413,"message":"request body larger than 1048576 bytes"}}`
	if w.Code != http.StatusRequestEntityTooLarge || w.Body.String() != want {
		t.Errorf("oversized body: %d %s; want 413 %s", w.Code, w.Body, want)
	}
}

// Internal errors and panics are logged with their detail, which never
// reaches the client.
func TestInternalDetailsLoggedNotSent(t *testing.T) {
	for _, tc := range []struct {
		path, secret string
	}{
		{"/fail", "secret detail"},
		{"/panic", "hunter2"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			e, logs := newEngine(t)
			w := do(e, "GET", tc.path, "")
			if strings.Contains(w.Body.String(), tc.secret) {
				t.Errorf("response %s leaks %q", w.Body, tc.secret)
			}
			if !strings.Contains(logs.String(), tc.secret) {
				t.Errorf("log does not record the failure %q:\n%s", tc.secret, logs)
			}
		})
	}
}

func TestReadyzReportsFailedCheck(t *testing.T) {
	e, _ := newEngine(t,
		func(context.Context) error { return nil },
		func(context.Context) error { return errors.New("mongodb unreachable") })
	w := do(e, "GET", "/readyz", "")
	want := `{"error":{"code":503,"message":"not ready"}}`
	if w.Code != http.StatusServiceUnavailable || w.Body.String() != want {
		t.Errorf("readyz = %d %s; want 503 %s", w.Code, w.Body, want)
	}
}

func TestRequestID(t *testing.T) {
	e, _ := newEngine(t)
	req := httptest.NewRequest("GET", "/healthz", nil)
	req.Header.Set(httpx.RequestIDHeader, "req-from-gateway")
	w := httptest.NewRecorder()
	e.ServeHTTP(w, req)
	if got := w.Header().Get(httpx.RequestIDHeader); got != "req-from-gateway" {
		t.Errorf("request id = %q, want the inbound one", got)
	}

	req = httptest.NewRequest("GET", "/healthz", nil)
	req.Header.Set(httpx.RequestIDHeader, strings.Repeat("x", 129))
	w = httptest.NewRecorder()
	e.ServeHTTP(w, req)
	if got := w.Header().Get(httpx.RequestIDHeader); len(got) != 24 {
		t.Errorf("request id for an oversized inbound one = %q, want a fresh 24-hex id", got)
	}
}

func TestServeDrainsOnCancel(t *testing.T) {
	e, _ := newEngine(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	ln := listen(t)
	go func() { done <- httpx.Serve(ctx, ln, e, logx.Discard()) }()

	res, err := http.Get("http://" + ln.Addr().String() + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]string
	err = json.NewDecoder(res.Body).Decode(&got)
	res.Body.Close()
	if err != nil || got["status"] != "ok" {
		t.Fatalf("healthz over the network = %v, %v", got, err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Serve after cancel = %v, want nil", err)
	}
}

// Told to stop, a server still answers on its open keep-alive connections
// for a while, each answer closing its connection, and stops once none is
// open: a client sending its next request on a pooled connection is
// answered rather than having the connection closed under it.
func TestServeLingersClosingConnections(t *testing.T) {
	e, _ := newEngine(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	ln := listen(t)
	go func() { done <- httpx.ServeLingering(ctx, ln, e, logx.Discard(), httpx.Lingering{For: httpx.Linger}) }()
	client := &http.Client{Transport: &http.Transport{}}
	get := func() (*http.Response, error) {
		res, err := client.Get("http://" + ln.Addr().String() + "/healthz")
		if err == nil {
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
		}
		return res, err
	}
	if res, err := get(); err != nil || res.Close {
		t.Fatalf("GET before stopping = %v (closes its connection: %v)", err, res != nil && res.Close)
	}
	cancel()
	waittest.Until(t, "an answer asking to close its connection", 5*time.Second, func() bool {
		res, err := get()
		if err != nil {
			t.Fatalf("GET on the kept-alive connection while the server lingers: %v", err)
		}
		return res.Close
	})
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve after cancel = %v, want nil", err)
		}
	case <-time.After(httpx.Linger + time.Second):
		t.Fatal("Serve still running after Linger with no connection open")
	}
}

// A streamed (chunked) empty body is an absent optional body.
func TestBindOptionalJSONStreamedEmptyBody(t *testing.T) {
	e, _ := newEngine(t)
	req := httptest.NewRequest("PATCH", "/things", nil)
	req.Body = io.NopCloser(strings.NewReader(""))
	req.ContentLength = -1
	w := httptest.NewRecorder()
	e.ServeHTTP(w, req)
	want := `{"title":"unchanged","count":0,"Tags":null,"nested":{"flag":false}}`
	if w.Code != http.StatusOK || w.Body.String() != want {
		t.Errorf("PATCH with a streamed empty body = %d %s; want 200 %s", w.Code, w.Body, want)
	}
}

func TestCreated(t *testing.T) {
	for _, tc := range []struct {
		name         string
		err          error
		wantStatus   int
		wantLocation string
	}{
		{"created", nil, http.StatusCreated, "http://gw.test/v1/things/t1"},
		{"failed", apierr.Invalid("title", "is too long"), http.StatusBadRequest, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			c, _ := gin.CreateTestContext(w)
			httpx.Created(c, "http://gw.test/v1/things/t1", gin.H{"id": "t1"}, tc.err)
			if w.Code != tc.wantStatus || w.Header().Get("Location") != tc.wantLocation {
				t.Errorf("status %d, Location %q; want %d, %q", w.Code, w.Header().Get("Location"), tc.wantStatus, tc.wantLocation)
			}
		})
	}
}

func TestErrorSetsRetryAfter(t *testing.T) {
	e := httpx.NewEngine(logx.Discard(), "test")
	e.GET("/busy", func(c *gin.Context) { httpx.Error(c, apierr.TooMany(1500*time.Millisecond, "busy")) })
	w := httptest.NewRecorder()
	e.ServeHTTP(w, httptest.NewRequest("GET", "/busy", nil))
	if w.Code != 429 || w.Header().Get("Retry-After") != "2" {
		t.Errorf("GET /busy = %d Retry-After %q, want 429 and 2 (rounded up)", w.Code, w.Header().Get("Retry-After"))
	}
}

// A request its client abandoned is no failure of the service: no error is
// logged for the context's end, and the access log records 499.
func TestAbandonedRequestIsNoError(t *testing.T) {
	e, logs := newEngine(t)
	e.GET("/slow", func(c *gin.Context) {
		<-c.Request.Context().Done()
		httpx.Error(c, fmt.Errorf("read things: %w", c.Request.Context().Err()))
	})
	ctx, cancel := context.WithCancel(context.Background())
	w := httptest.NewRecorder()
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.ServeHTTP(w, apitest.NewRequest("GET", "/slow", "").WithContext(ctx))
	}()
	cancel()
	<-done
	if strings.Contains(logs.String(), `"level":"ERROR"`) {
		t.Errorf("an abandoned request logged an error:\n%s", logs)
	}
	if w.Code != httpx.StatusClientClosedRequest {
		t.Errorf("status %d, want %d", w.Code, httpx.StatusClientClosedRequest)
	}
}

// TestAccessLog: each request is one "request" line with its method, path,
// status, duration, request id and trace id; a logger that keeps only
// warnings gets no line.
func TestAccessLog(t *testing.T) {
	e, logs := newEngine(t)
	e.GET("/teapot", func(c *gin.Context) {
		c.Set(httpx.ClientKey, "198.51.100.7")
		c.String(http.StatusTeapot, "short and stout")
	})
	req := apitest.NewRequest("GET", "/teapot", "")
	req.Header.Set(httpx.RequestIDHeader, "req-1")
	e.ServeHTTP(httptest.NewRecorder(), req)
	var line map[string]any
	for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err == nil && m["msg"] == "request" {
			line = m
		}
	}
	if line == nil {
		t.Fatalf("no access log line in:\n%s", logs)
	}
	if _, ok := line["duration_ms"].(float64); !ok {
		t.Errorf("duration_ms %v is not a number", line["duration_ms"])
	}
	want := map[string]any{"level": "INFO", "method": "GET", "path": "/teapot", "status": float64(418), "request_id": "req-1", "trace_id": "",
		"client": "198.51.100.7"}
	for k, v := range want {
		if line[k] != v {
			t.Errorf("%s = %#v, want %#v (line %v)", k, line[k], v, line)
		}
	}

	svc, svcLogs := newEngine(t)
	svc.GET("/teapot", func(c *gin.Context) { c.String(http.StatusTeapot, "short and stout") })
	svc.ServeHTTP(httptest.NewRecorder(), apitest.NewRequest("GET", "/teapot", ""))
	if strings.Contains(svcLogs.String(), `"client"`) {
		t.Errorf("a line without a client address names one:\n%s", svcLogs)
	}

	quiet := &syncBuffer{}
	q := httpx.NewEngine(logx.NewTo(quiet, "test", "warn"), "test")
	q.GET("/teapot", func(c *gin.Context) { c.String(http.StatusTeapot, "short and stout") })
	q.ServeHTTP(httptest.NewRecorder(), apitest.NewRequest("GET", "/teapot", ""))
	if quiet.String() != "" {
		t.Errorf("a logger at warn got:\n%s", quiet)
	}
}

// BenchmarkAccessLog serves a small GET through the engine's middleware
// with a logger that drops the access line and one that writes it.
func BenchmarkAccessLog(b *testing.B) {
	for name, log := range map[string]*slog.Logger{"dropped": logx.Discard(), "written": logx.NewTo(io.Discard, "test", "info")} {
		b.Run(name, func(b *testing.B) {
			e := httpx.NewEngine(log, "test")
			e.GET("/x", func(c *gin.Context) { c.String(http.StatusOK, "x") })
			req := httptest.NewRequest("GET", "/x", nil)
			b.ReportAllocs()
			for range b.N {
				e.ServeHTTP(httptest.NewRecorder(), req)
			}
		})
	}
}
