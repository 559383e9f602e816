package manifests

import (
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/otelx"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
)

// instruments are the instruments the alerts and the dashboard read, as
// the code makes them: name, unit, kind, attributes, and the file that
// makes them (http.server.request.duration is otelgin's, which
// libs/httpx installs).
var instruments = []struct {
	name, unit, kind, file string
	attrs                  []attribute.KeyValue
}{
	{"http.server.request.duration", "s", "histogram", "libs/httpx/engine.go", []attribute.KeyValue{
		attribute.String("http.route", "/v1/orgs/:orgId"), attribute.String("http.request.method", "GET"), attribute.Int("http.response.status_code", 200)}},
	{"kafkax.consumer.lag", "{message}", "gauge", "libs/kafkax/metrics.go", []attribute.KeyValue{
		attribute.String("messaging.destination.name", "t"), attribute.String("messaging.consumer.group.name", "g")}},
	{"kafkax.relay.backlog", "{document}", "gauge", "libs/kafkax/metrics.go", []attribute.KeyValue{
		attribute.String("messaging.destination.name", "t")}},
	{"kafkax.dead_letters", "{event}", "counter", "libs/kafkax/deadletter.go", nil},
}

// exported returns the series and label names the components' /metrics
// shows for instruments, through the same exporter (otelx.Metrics).
func exported(t *testing.T) (series, labels map[string]bool) {
	t.Helper()
	h, shutdown, err := otelx.Metrics("manifests-test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = shutdown(context.Background()) })
	ctx, m := context.Background(), otel.Meter("manifests-test")
	for _, in := range instruments {
		src := readFile(t, filepath.Join(root, in.file))
		if in.kind != "histogram" && !strings.Contains(src, `"`+in.name+`"`) || in.kind == "histogram" && !strings.Contains(src, "otelgin.Middleware") {
			t.Errorf("%s no longer makes %s", in.file, in.name)
		}
		opts := []metric.RecordOption{metric.WithAttributes(in.attrs...)}
		switch in.kind {
		case "histogram":
			i, _ := m.Float64Histogram(in.name, metric.WithUnit(in.unit))
			i.Record(ctx, 0.1, opts...)
		case "gauge":
			i, _ := m.Int64Gauge(in.name, metric.WithUnit(in.unit))
			i.Record(ctx, 1, opts...)
		case "counter":
			i, _ := m.Int64Counter(in.name, metric.WithUnit(in.unit))
			i.Add(ctx, 1, metric.WithAttributes(in.attrs...))
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	series, labels = map[string]bool{}, map[string]bool{"service": true, "le": true} // the PodMonitor's and histograms'
	line := regexp.MustCompile(`(?m)^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([^}]*)\})? `)
	for _, m := range line.FindAllStringSubmatch(string(body), -1) {
		series[m[1]] = true
		for _, kv := range strings.Split(m[3], ",") {
			if k, _, ok := strings.Cut(kv, "="); ok {
				labels[k] = true
			}
		}
	}
	t.Logf("exported: %v; labels: %v", slices.Sorted(maps.Keys(series)), slices.Sorted(maps.Keys(labels)))
	return series, labels
}

var (
	// platformSeries matches the names of the components' own series in PromQL.
	platformSeries = regexp.MustCompile(`\b(http_server_\w+|kafkax_\w+|jobs_\w+|gateway_\w+)\b`)
	// promLabels matches label names in by (...) clauses and matchers.
	promByClause = regexp.MustCompile(`by \(([^)]*)\)`)
	promMatcher  = regexp.MustCompile(`\b(\w+)=~?"`)
)

// checkPromQL: expr reads only series and labels the components export.
func checkPromQL(t *testing.T, where, expr string, series, labels map[string]bool) {
	t.Helper()
	names := platformSeries.FindAllString(expr, -1)
	if len(names) == 0 {
		t.Errorf("%s reads none of the components' series: %s", where, expr)
	}
	for _, n := range names {
		if !series[n] {
			t.Errorf("%s reads %s, which the components do not export (%s)", where, n, expr)
		}
	}
	var used []string
	for _, m := range promByClause.FindAllStringSubmatch(expr, -1) {
		used = append(used, strings.Split(m[1], ",")...)
	}
	for _, m := range promMatcher.FindAllStringSubmatch(expr, -1) {
		used = append(used, m[1])
	}
	for _, l := range used {
		if l = strings.TrimSpace(l); !labels[l] {
			t.Errorf("%s uses the label %s, which no exported series has (%s)", where, l, expr)
		}
	}
}

// TestMonitoring: prod renders the monitoring component once: a PodMonitor
// of every component's metrics port, alerts on error rate, latency,
// consumer lag, dead letters and the outbox, and a Grafana dashboard with
// RED panels per service and per gateway route, consumer lag, outbox and
// dead letters, all reading series the code exports.
func TestMonitoring(t *testing.T) {
	series, labels := exported(t)
	ix := index(build(t, "k8s/overlays/prod"))
	pm, ok := ix["PodMonitor/docspub"].(*PodMonitor)
	if !ok || len(pm.Spec.PodMetricsEndpoints) != 1 || pm.Spec.PodMetricsEndpoints[0].Port != "metrics" ||
		pm.Spec.Selector.MatchLabels["app.kubernetes.io/part-of"] != "docspub" {
		t.Fatalf("PodMonitor %+v; want one of the metrics port of every docspub pod", pm)
	}
	for _, d := range of[*appsv1.Deployment](ix) {
		if d.Spec.Template.Labels["app.kubernetes.io/part-of"] != "docspub" || !slices.ContainsFunc(d.Spec.Template.Spec.Containers[0].Ports,
			func(p corev1.ContainerPort) bool { return p.Name == "metrics" }) {
			t.Errorf("the PodMonitor does not scrape %s", d.Name)
		}
	}
	rule, ok := ix["PrometheusRule/docspub"].(*PrometheusRule)
	if !ok {
		t.Fatal("no PrometheusRule docspub")
	}
	alerts := map[string]string{}
	for _, g := range rule.Spec.Groups {
		for _, r := range g.Rules {
			alerts[r.Alert] = r.Expr
			checkPromQL(t, "alert "+r.Alert, r.Expr, series, labels)
		}
	}
	for alert, reads := range map[string]string{"DocspubHighErrorRate": "http_response_status_code", "DocspubHighLatency": "_bucket",
		"DocspubConsumerLag": "kafkax_consumer_lag", "DocspubDeadLetters": "kafkax_dead_letters_total", "DocspubOutboxBacklog": "kafkax_relay_backlog"} {
		if !strings.Contains(alerts[alert], reads) {
			t.Errorf("alert %s reads %q; want it on %s", alert, alerts[alert], reads)
		}
	}
	cm, ok := ix["ConfigMap/docspub-dashboard"].(*corev1.ConfigMap)
	if !ok || cm.Labels["grafana_dashboard"] != "1" {
		t.Fatal("no ConfigMap docspub-dashboard labelled grafana_dashboard=1")
	}
	checkDashboard(t, cm.Data["docspub.json"], series, labels)
}

// checkDashboard: the dashboard's panels read exported series, and cover
// RED per service and per gateway route, lag, outbox and dead letters.
func checkDashboard(t *testing.T, doc string, series, labels map[string]bool) {
	t.Helper()
	var d struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal([]byte(doc), &d); err != nil {
		t.Fatalf("dashboard: %v", err)
	}
	var all string
	for _, p := range d.Panels {
		for _, q := range p.Targets {
			checkPromQL(t, "panel "+p.Title, strings.ReplaceAll(q.Expr, "$__rate_interval", "5m"), series, labels)
			all += q.Expr + "\n"
		}
	}
	for _, want := range []string{"by (service) (rate(http_server_request_duration_seconds_count", `http_response_status_code=~"5.."`,
		"by (service, le)", "by (http_request_method, http_route)", "by (http_request_method, http_route, le)",
		"kafkax_consumer_lag", "kafkax_relay_backlog", "kafkax_dead_letters_total"} {
		if !strings.Contains(all, want) {
			t.Errorf("no dashboard panel reads %s", want)
		}
	}
}

// TestProdWithEveryComponent renders prod with every component at once: the
// release (sample digests), monitoring, and the Gateway API instead of the
// Ingress, whose HTTPRoute serves the settings' host only, to the gateway,
// for as long as the gateway's server reads and writes.
func TestProdWithEveryComponent(t *testing.T) {
	digests, err := releaseDigests(t)
	if err != nil {
		t.Fatal(err)
	}
	gw := "k8s/overlays/prod/gateway/kustomization.yaml"
	edited := strings.Replace(readFile(t, filepath.Join(root, gw)), "components/ingress\n", "components/gateway-api\n", 1)
	ix := index(buildInMemory(t, "k8s/overlays/prod", map[string][]byte{releaseComponent: digests, gw: []byte(edited)}))
	if len(of[*networkingv1.Ingress](ix)) != 0 {
		t.Error("an Ingress beside the HTTPRoute")
	}
	for _, kind := range []string{"PodMonitor/docspub", "PrometheusRule/docspub", "ConfigMap/docspub-dashboard"} {
		if ix[kind] == nil {
			t.Errorf("no %s", kind)
		}
	}
	r, ok := ix["HTTPRoute/gateway"].(*HTTPRoute)
	if !ok {
		t.Fatal("no HTTPRoute gateway")
	}
	host := settingsOf(t, "prod").host()
	// Published sites (PUBLISHED_URL's path) to the readers' listener,
	// the rest to the API's.
	backends := map[string]int32{}
	for _, rule := range r.Spec.Rules {
		if len(rule.Matches) != 1 || len(rule.BackendRefs) != 1 || rule.BackendRefs[0].Name != "gateway" {
			t.Errorf("HTTPRoute rule %+v; want one path to the gateway", rule)
			continue
		}
		backends[rule.Matches[0].Path.Value] = rule.BackendRefs[0].Port
		if d, err := time.ParseDuration(rule.Timeouts.Request); err != nil || d < httpx.ReadTimeout+httpx.WriteTimeout {
			t.Errorf("HTTPRoute request timeout %q; want at least the gateway server's read and write timeouts", rule.Timeouts.Request)
		}
	}
	if want := map[string]int32{"/": int32(ports["gateway"]), "/sites": readersPort}; !slices.Equal(r.Spec.Hostnames, []string{host}) || !maps.Equal(backends, want) {
		t.Errorf("HTTPRoute %+v; want %s alone, its paths to the gateway's ports %v", r.Spec, host, want)
	}
	for _, d := range of[*appsv1.Deployment](ix) {
		for _, c := range append(d.Spec.Template.Spec.InitContainers, d.Spec.Template.Spec.Containers...) {
			if !strings.Contains(c.Image, "@sha256:") {
				t.Errorf("%s runs %s, not pinned by the release", d.Name, c.Image)
			}
		}
	}
}
