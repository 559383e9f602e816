package otelx_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/docspub/platform/libs/kafkatest"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/libs/otelx"
	"github.com/docspub/platform/libs/otlptest"
	"github.com/google/go-cmp/cmp"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// These tests change the global tracer provider: none runs in parallel.

func TestMain(m *testing.M) { mongotest.Main(m) }

func TestSetup(t *testing.T) {
	for _, tc := range []struct {
		exporter string
		wantErr  bool
	}{
		{exporter: ""},
		{exporter: "none"},
		{exporter: "stdout"},
		{exporter: "otlp"},
		{exporter: "jaeger", wantErr: true},
	} {
		t.Run("exporter="+tc.exporter, func(t *testing.T) {
			otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator())
			if tc.exporter == "otlp" {
				t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", otlptest.Start(t).URL)
			}
			shutdown, err := otelx.Setup(context.Background(), "svc", otelx.Config{Exporter: tc.exporter})
			if gotErr := err != nil; gotErr != tc.wantErr {
				t.Fatalf("Setup(%q) error = %v, want error %v", tc.exporter, err, tc.wantErr)
			}
			if err != nil {
				return
			}
			defer func() {
				if err := shutdown(context.Background()); err != nil {
					t.Errorf("shutdown: %v", err)
				}
			}()
			fields := otel.GetTextMapPropagator().Fields()
			slices.Sort(fields)
			if diff := cmp.Diff(fields, []string{"baggage", "traceparent", "tracestate"}); diff != "" {
				t.Errorf("propagated fields (-got +want):\n%s", diff)
			}
			_, span := otel.Tracer("test").Start(context.Background(), "op")
			defer span.End()
			// Exported spans are recorded; with nothing to export, spans
			// keep their trace ids but record nothing.
			if wantRecording := tc.exporter == "stdout" || tc.exporter == "otlp"; !span.SpanContext().IsValid() || span.IsRecording() != wantRecording {
				t.Errorf("a new span: valid=%v recording=%v, want valid and recording=%v", span.SpanContext().IsValid(), span.IsRecording(), wantRecording)
			}
		})
	}
}

func TestHTTPTransportCarriesTrace(t *testing.T) {
	exp, shutdown := otelx.SetupInMemory("client")
	t.Cleanup(func() { _ = shutdown(context.Background()) })

	seen := make(chan trace.SpanContext, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := otel.GetTextMapPropagator().Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		seen <- trace.SpanContextFromContext(ctx)
	}))
	t.Cleanup(srv.Close)

	ctx, parent := otel.Tracer("test").Start(context.Background(), "request")
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := (&http.Client{Transport: otelx.HTTPTransport(nil)}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	parent.End()

	got := <-seen
	if got.TraceID() != parent.SpanContext().TraceID() {
		t.Errorf("server saw trace %s, want %s", got.TraceID(), parent.SpanContext().TraceID())
	}
	client := findSpan(t, exp, trace.SpanKindClient)
	if client.Parent.SpanID() != parent.SpanContext().SpanID() || got.SpanID() != client.SpanContext.SpanID() {
		t.Errorf("client span %s (parent %s), server saw parent %s; want the client span between request %s and server",
			client.SpanContext.SpanID(), client.Parent.SpanID(), got.SpanID(), parent.SpanContext().SpanID())
	}
}

// A change made within a traced request stores its event with the trace;
// the relay publishes it later, outside the request, and the consumer's
// handler runs in the same trace, below a publish span.
func TestTraceAcrossKafka(t *testing.T) {
	exp, shutdown := otelx.SetupInMemory("svc")
	t.Cleanup(func() { _ = shutdown(context.Background()) })
	db := mongotest.Database(t)
	k := kafkatest.Start(t)
	pub := kafkax.NewPublisher(kafkax.Plain(k.Brokers))
	t.Cleanup(func() { _ = pub.Close() })
	const topic = "things.events"

	member, err := baggage.NewMember("tenant", "org1")
	if err != nil {
		t.Fatal(err)
	}
	bag, err := baggage.New(member)
	if err != nil {
		t.Fatal(err)
	}
	ctx, request := otel.Tracer("test").Start(baggage.ContextWithBaggage(context.Background(), bag), "PATCH /things/a")
	ev := kafkax.NewEvent("thing.updated", "org1", "a", nil).WithTrace(ctx)
	o, err := kafkax.NewOutbox(ev)
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Collection("things").InsertOne(ctx, append(bson.D{{Key: "_id", Value: "a"}}, o.Fields()...))
	request.End()
	if err != nil {
		t.Fatal(err)
	}

	relay := kafkax.NewRelay(mongox.NewDB(db), pub, topic, []string{"things"}, nil)
	if n, err := relay.SweepOnce(context.Background()); n != 1 || err != nil {
		t.Fatalf("SweepOnce = %d, %v; want 1, nil", n, err)
	}

	type handled struct {
		span   trace.SpanContext
		tenant string
		trace  map[string]string
	}
	got := make(chan handled, 1)
	c := kafkax.NewConsumer(kafkax.Plain(k.Brokers), "g1", topic, db, func(ctx context.Context, ev kafkax.Event) error {
		got <- handled{trace.SpanContextFromContext(ctx), baggage.FromContext(ctx).Member("tenant").Value(), ev.Trace}
		return nil
	}, nil)
	cctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(cctx) }()
	stop := sync.OnceFunc(func() {
		cancel()
		_ = c.Close()
		<-done
	})
	t.Cleanup(stop)

	var h handled
	select {
	case h = <-got:
	case <-time.After(20 * time.Second):
		t.Fatal("timed out waiting for the event")
	}
	if h.span.TraceID() != request.SpanContext().TraceID() {
		t.Errorf("handler's trace = %s, want the request's %s", h.span.TraceID(), request.SpanContext().TraceID())
	}
	if h.tenant != "org1" {
		t.Errorf("handler's baggage tenant = %q, want org1", h.tenant)
	}
	if h.trace["traceparent"] == "" {
		t.Errorf("handled event's Trace = %v, want the message's traceparent", h.trace)
	}

	stop() // the process span has ended once Run returned
	producer := findSpan(t, exp, trace.SpanKindProducer)
	consumer := findSpan(t, exp, trace.SpanKindConsumer)
	if producer.Parent.SpanID() != request.SpanContext().SpanID() {
		t.Errorf("publish span's parent = %s, want the request %s", producer.Parent.SpanID(), request.SpanContext().SpanID())
	}
	if consumer.Parent.SpanID() != producer.SpanContext.SpanID() {
		t.Errorf("process span's parent = %s, want the publish span %s", consumer.Parent.SpanID(), producer.SpanContext.SpanID())
	}
	if h.span.SpanID() != consumer.SpanContext.SpanID() {
		t.Errorf("handler ran in span %s, want the process span %s", h.span.SpanID(), consumer.SpanContext.SpanID())
	}
}

// findSpan returns the one recorded span of kind.
func findSpan(t *testing.T, exp *tracetest.InMemoryExporter, kind trace.SpanKind) tracetest.SpanStub {
	t.Helper()
	var found []tracetest.SpanStub
	for _, s := range exp.GetSpans() {
		if s.SpanKind == kind {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		t.Fatalf("recorded %d spans of kind %s, want 1", len(found), kind)
	}
	return found[0]
}

// With OTEL_TRACES_EXPORTER=otlp, spans reach a real OTLP/HTTP receiver at
// the endpoint of the standard variable, under the service's name.
func TestSetupOTLPExportsOverHTTP(t *testing.T) {
	col := otlptest.Start(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", col.URL)
	t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment.name=test")
	shutdown, err := otelx.Setup(context.Background(), "content", otelx.Config{Exporter: otelx.ExporterOTLP})
	if err != nil {
		t.Fatal(err)
	}
	_, span := otel.Tracer("test").Start(context.Background(), "GET /v1/spaces/{spaceId}")
	span.End()
	if err := shutdown(context.Background()); err != nil { // flushes
		t.Fatal(err)
	}
	spans := col.Spans()
	if len(spans) != 1 {
		t.Fatalf("received %d spans, want 1: %+v", len(spans), spans)
	}
	got := spans[0]
	if got.Name != "GET /v1/spaces/{spaceId}" || got.Service != "content" || got.TraceID != span.SpanContext().TraceID().String() {
		t.Errorf("received %+v, want the span of service content in trace %s", got, span.SpanContext().TraceID())
	}
}
