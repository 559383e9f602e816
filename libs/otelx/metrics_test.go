package otelx_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/otelx"
	"github.com/gin-gonic/gin"
	"go.opentelemetry.io/contrib/instrumentation/github.com/gin-gonic/gin/otelgin"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// requests returns the request count of route on the scraped metrics.
func requests(t *testing.T, metrics http.Handler, route string) int {
	t.Helper()
	rec := httptest.NewRecorder()
	metrics.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	re := regexp.MustCompile(`http_server_request_duration_seconds_count\{[^}]*http_route="` + regexp.QuoteMeta(route) + `"[^}]*\} (\d+)`)
	m := re.FindSubmatch(body)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

func TestMetricsCountRequestsByRouteTemplate(t *testing.T) {
	metrics, shutdown, err := otelx.Metrics("svc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = shutdown(context.Background()) })
	gin.SetMode(gin.ReleaseMode)
	e := gin.New()
	e.Use(otelgin.Middleware("svc"))
	e.GET("/v1/spaces/:id", func(c *gin.Context) { c.Status(http.StatusNoContent) })

	for i, path := range []string{"/v1/spaces/a", "/v1/spaces/b", "/v1/spaces/c"} {
		e.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, path, nil))
		if got := requests(t, metrics, "/v1/spaces/:id"); got != i+1 {
			t.Fatalf("requests of /v1/spaces/:id after %d = %d", i+1, got)
		}
	}
	rec := httptest.NewRecorder()
	metrics.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	body := rec.Body.String()
	if regexp.MustCompile(`http_route="/v1/spaces/a"`).MatchString(body) {
		t.Errorf("metrics carry a raw path; want the route template only")
	}
	if !regexp.MustCompile(`(?m)^go_goroutines `).MatchString(body) {
		t.Errorf("metrics lack the Go runtime's")
	}
}

func TestSampler(t *testing.T) {
	t.Parallel()
	sampledParent := trace.ContextWithRemoteSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{1}, SpanID: trace.SpanID{1}, TraceFlags: trace.FlagsSampled, Remote: true}))
	tests := []struct {
		name, arg           string
		wantRoot, wantChild bool
		wantErr             bool
	}{
		{name: "", wantRoot: true, wantChild: true},
		{name: "parentbased_always_on", wantRoot: true, wantChild: true},
		{name: "parentbased_traceidratio", arg: "0", wantRoot: false, wantChild: true},
		{name: "parentbased_traceidratio", arg: "1", wantRoot: true, wantChild: true},
		{name: "traceidratio", arg: "0", wantRoot: false, wantChild: false},
		{name: "always_off", wantRoot: false, wantChild: false},
		{name: "parentbased_always_off", wantRoot: false, wantChild: true},
		{name: "traceidratio", arg: "1.5", wantErr: true},
		{name: "jaeger_remote", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name+"="+tc.arg, func(t *testing.T) {
			t.Parallel()
			s, err := otelx.Sampler(tc.name, tc.arg)
			if gotErr := err != nil; gotErr != tc.wantErr {
				t.Fatalf("Sampler(%q, %q) error = %v; want error %v", tc.name, tc.arg, err, tc.wantErr)
			}
			if err != nil {
				return
			}
			tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(s))
			t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
			_, root := tp.Tracer("t").Start(context.Background(), "root")
			_, child := tp.Tracer("t").Start(sampledParent, "child")
			if got := root.SpanContext().IsSampled(); got != tc.wantRoot {
				t.Errorf("new trace sampled = %v; want %v", got, tc.wantRoot)
			}
			if got := child.SpanContext().IsSampled(); got != tc.wantChild {
				t.Errorf("child of a sampled caller sampled = %v; want %v", got, tc.wantChild)
			}
		})
	}
}

// A catch-all route that names the template it matched (the gateway's
// "/v1/*path" with its route table) is counted by that template, not by
// gin's catch-all nor by the raw path.
func TestMetricsCountACatchAllByTheTemplateItMatched(t *testing.T) {
	metrics, shutdown, err := otelx.Metrics("gw")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = shutdown(context.Background()) })
	e := httpx.NewEngine(logx.Discard(), "gw")
	e.Any("/v1/*path", func(c *gin.Context) {
		if strings.HasPrefix(c.Param("path"), "/sites/") {
			httpx.SetRoute(c, "/v1/sites/{siteId}")
		}
		c.Status(http.StatusNoContent)
	})
	for _, path := range []string{"/v1/sites/a", "/v1/sites/b", "/v1/unknown"} {
		e.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, path, nil))
	}
	if got := requests(t, metrics, "/v1/sites/{siteId}"); got != 2 {
		t.Errorf("requests of /v1/sites/{siteId} = %d, want 2", got)
	}
	if got := requests(t, metrics, "/v1/*path"); got != 1 {
		t.Errorf("requests of /v1/*path = %d, want the one unmatched", got)
	}
}
