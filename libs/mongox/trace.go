package mongox

import (
	"context"
	"net"
	"strconv"
	"strings"
	"sync"

	"go.mongodb.org/mongo-driver/v2/event"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// tracerName is the instrumentation scope of the driver's spans.
const tracerName = "github.com/docspub/platform/libs/mongox"

// CommandTracer returns the driver's command monitor that records every
// command sent within a trace as a client span ("find spaces", with the
// database, collection and server; never the command's values). Commands
// outside any trace (background polling, readiness pings) make no span, so
// that they do not flood the exporter with one-span traces.
func CommandTracer() *event.CommandMonitor {
	t := &commandTracer{}
	return &event.CommandMonitor{Started: t.started, Succeeded: t.succeeded, Failed: t.failed}
}

type commandTracer struct {
	spans sync.Map // commandKey → trace.Span
}

// commandKey identifies one command in flight: the driver numbers requests
// per connection.
type commandKey struct {
	conn string
	id   int64
}

func (t *commandTracer) started(ctx context.Context, e *event.CommandStartedEvent) {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return
	}
	name := e.CommandName
	attrs := []attribute.KeyValue{semconv.DBSystemNameMongoDB, semconv.DBNamespace(e.DatabaseName),
		semconv.DBOperationName(e.CommandName)}
	// The first element names the collection ({"find": "spaces", ...});
	// a redacted command has none.
	if first, err := e.Command.IndexErr(0); err == nil {
		if coll, ok := first.Value().StringValueOK(); ok && coll != "" {
			name += " " + coll
			attrs = append(attrs, semconv.DBCollectionName(coll))
		}
	}
	if host, port, ok := serverOf(e.ConnectionID); ok {
		attrs = append(attrs, semconv.ServerAddress(host), semconv.ServerPort(port))
	}
	// The global provider is asked each time: a client outlives the
	// provider that was global when it connected (tests install several).
	_, span := otel.Tracer(tracerName).Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	t.spans.Store(commandKey{e.ConnectionID, e.RequestID}, span)
}

func (t *commandTracer) succeeded(_ context.Context, e *event.CommandSucceededEvent) {
	if s, ok := t.spans.LoadAndDelete(commandKey{e.ConnectionID, e.RequestID}); ok {
		s.(trace.Span).End()
	}
}

func (t *commandTracer) failed(_ context.Context, e *event.CommandFailedEvent) {
	if s, ok := t.spans.LoadAndDelete(commandKey{e.ConnectionID, e.RequestID}); ok {
		span := s.(trace.Span)
		span.RecordError(e.Failure)
		span.SetStatus(codes.Error, e.CommandName+" failed")
		span.End()
	}
}

// serverOf reads the server's host and port from the driver's connection id
// ("host:port[-7]").
func serverOf(connID string) (string, int, bool) {
	addr, _, _ := strings.Cut(connID, "[")
	host, portText, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, false
	}
	port, err := strconv.Atoi(portText)
	if err != nil {
		return "", 0, false
	}
	return host, port, true
}
