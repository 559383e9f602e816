package local

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/otelx"
	"github.com/docspub/platform/libs/otlptest"
	"github.com/docspub/platform/libs/waittest"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// One request makes one trace, received over real OTLP/HTTP: the gateway's
// server span, its forward to content, content's server span, the MongoDB
// insert, the relay's Kafka publish and sites' consumer processing the event.
// Not parallel: it installs the global tracer provider.
func TestOneTraceFromGatewayToConsumerOverOTLP(t *testing.T) {
	inProcessOnly(t) // reads the in-process platform's metrics and traces
	col := otlptest.Start(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", col.URL)
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50") // ms: export promptly
	// Only the traces a client starts sampled are recorded: the platform's
	// background work (pollers, relays, consumers) starts none, so the
	// collector holds this trace alone. (Under CI load, with every new trace
	// sampled, the collector's spans grew to 23 GB while this test waited.)
	shutdown, err := otelx.Setup(context.Background(), "platform", otelx.Config{Exporter: otelx.ExporterOTLP, Sampler: "parentbased_always_off"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = shutdown(context.Background()) })
	p := startPlatform(t)

	// The client starts the trace; the gateway continues it.
	traceID, parentID := randomHex(t, 16), randomHex(t, 8)
	body := strings.NewReader(`{"title":"Traced"}`)
	req, err := http.NewRequest(http.MethodPost, p.URL+"/v1/orgs/"+p.Credentials.DemoOrgID+"/spaces", body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+p.Credentials.DemoAdminToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Traceparent", "00-"+traceID+"-"+parentID+"-01")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("create space answered %d", res.StatusCode)
	}

	var spans []otlptest.Span
	find := func(ok func(otlptest.Span) bool) (otlptest.Span, bool) {
		for _, s := range spans {
			if s.TraceID == traceID && ok(s) {
				return s, true
			}
		}
		return otlptest.Span{}, false
	}
	consumed := func(s otlptest.Span) bool {
		return s.Kind == tracepb.Span_SPAN_KIND_CONSUMER && strings.HasPrefix(s.Name, "content.events")
	}
	waittest.Until(t, "sites' consumer span in the request's trace", 60*time.Second, func() bool {
		spans = col.Spans()
		_, ok := find(consumed)
		return ok
	})

	byID := map[string]otlptest.Span{}
	for _, s := range spans {
		if s.TraceID == traceID {
			byID[s.SpanID] = s
		}
	}
	// descends reports whether s has ancestor in the trace.
	descends := func(s otlptest.Span, ancestor string) bool {
		for s.Parent != "" {
			if s.Parent == ancestor {
				return true
			}
			s = byID[s.Parent]
		}
		return false
	}
	must := func(what string, ok func(otlptest.Span) bool) otlptest.Span {
		t.Helper()
		s, found := find(ok)
		if !found {
			var names []string
			for _, s := range byID {
				names = append(names, s.Kind.String()+" "+s.Name+" ("+s.Scope+")")
			}
			t.Fatalf("no %s in trace %s; it has:\n%s", what, traceID, strings.Join(names, "\n"))
		}
		return s
	}
	gateway := must("gateway server span", func(s otlptest.Span) bool {
		return s.Parent == parentID && s.Kind == tracepb.Span_SPAN_KIND_SERVER
	})
	forward := must("forward to content", func(s otlptest.Span) bool {
		return s.Kind == tracepb.Span_SPAN_KIND_CLIENT && descends(s, gateway.SpanID) && s.Attributes["server.address"] != "" &&
			strings.HasPrefix(s.Attributes["url.full"], "http://") && strings.Contains(s.Attributes["url.full"], "/spaces")
	})
	content := must("content server span", func(s otlptest.Span) bool {
		return s.Kind == tracepb.Span_SPAN_KIND_SERVER && s.Parent == forward.SpanID
	})
	must("MongoDB insert into spaces under content", func(s otlptest.Span) bool {
		return s.Name == "insert spaces" && s.Attributes["db.system.name"] == "mongodb" && descends(s, content.SpanID)
	})
	publish := must("Kafka publish of content's event", func(s otlptest.Span) bool {
		return s.Kind == tracepb.Span_SPAN_KIND_PRODUCER && strings.HasPrefix(s.Name, "content.events") && descends(s, content.SpanID)
	})
	must("sites' consumer span under the publish", func(s otlptest.Span) bool {
		return consumed(s) && s.Parent == publish.SpanID
	})
	if gateway.Service != "platform" {
		t.Errorf("spans came from service %q, want the resource's service.name", gateway.Service)
	}
}

func randomHex(t *testing.T, n int) string {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}
