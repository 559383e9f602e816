package local

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"testing"

	"github.com/docspub/platform/libs/otelx"
)

// requestsByServer sums, per component (server_address), the requests the
// scraped /metrics count.
func requestsByServer(t *testing.T, metrics http.Handler) map[string]int {
	t.Helper()
	srv := httptest.NewServer(metrics)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatalf("GET /metrics: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	out := map[string]int{}
	// Label values may hold braces: a route template's parameters.
	re := regexp.MustCompile(`(?m)^http_server_request_duration_seconds_count\{((?:[^}"]|"[^"]*")*)\} (\d+)`)
	server := regexp.MustCompile(`server_address="([^"]+)"`)
	for _, m := range re.FindAllStringSubmatch(string(body), -1) {
		s := server.FindStringSubmatch(m[1])
		if s == nil {
			continue
		}
		n, _ := strconv.Atoi(m[2])
		out[s[1]] += n
	}
	return out
}

// TestMetricsMoveWithTraffic scrapes /metrics of the local platform (every
// component in one process, told apart by server_address) before and
// after a round of requests through the gateway, and checks that each
// component's request counter moved by that round.
func TestMetricsMoveWithTraffic(t *testing.T) {
	inProcessOnly(t) // reads the in-process platform's metrics and traces
	metrics, shutdown, err := otelx.Metrics("platform")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = shutdown(context.Background()) })
	p := startPlatform(t)
	admin := client{t, p.URL, p.Credentials.DemoAdminToken}
	org := "/v1/orgs/" + p.Credentials.DemoOrgID
	round := []struct{ path, service string }{
		{"/v1/orgs", "identity"},
		{org + "/collections", "content"},
		{org + "/sites", "sites"},
		{org + "/sites/nosuchsite/insights/visitor-segments", "insights"},
		{org + "/openapi", "integrations"},
	}
	before := requestsByServer(t, metrics)
	for _, r := range round {
		admin.raw("GET", r.path, nil)
	}
	after := requestsByServer(t, metrics)
	for _, r := range round {
		if got := after[r.service] - before[r.service]; got < 1 {
			t.Errorf("%s requests moved by %d after GET %s; want at least 1 (before %v, after %v)", r.service, got, r.path, before, after)
		}
	}
	if got := after["gateway"] - before["gateway"]; got < len(round) {
		t.Errorf("gateway requests moved by %d; want at least %d", got, len(round))
	}

	// The background work reports too: each consumer's lag, each relay's
	// backlog, the job queues' depth.
	srv := httptest.NewServer(metrics)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, want := range []string{
		`kafkax_consumer_lag{[^}]*messaging_consumer_group_name="content"[^}]*messaging_destination_name="identity.events"`,
		`kafkax_consumer_lag{[^}]*messaging_consumer_group_name="sites"`,
		`kafkax_relay_backlog{[^}]*messaging_destination_name="content.events"`,
		`jobs_queue_depth{[^}]*jobs_state="pending"`,
	} {
		if !regexp.MustCompile(want).Match(body) {
			t.Errorf("metrics have no %s", want)
		}
	}
}
