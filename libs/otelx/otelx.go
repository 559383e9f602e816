// Package otelx sets up OpenTelemetry tracing for a binary: the global tracer
// provider with the chosen exporter, and the W3C trace context and baggage
// propagator that carries traces over HTTP and Kafka.
package otelx

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
)

// Exporters accepted by Setup.
const (
	ExporterNone   = "none"   // spans are made (trace ids in logs, propagation) but not exported
	ExporterStdout = "stdout" // spans are written to stdout, one JSON object per line
	ExporterOTLP   = "otlp"   // spans are sent over OTLP/HTTP (protobuf)
)

// Setup installs the global tracer provider of service and the W3C trace
// context and baggage propagator. exporter is "none" (also for ""),
// "stdout" or "otlp"; the OTLP exporter reads its endpoint, headers,
// timeout and TLS from the standard OTEL_EXPORTER_OTLP_* (and
// OTEL_EXPORTER_OTLP_TRACES_*) variables, and the batching from OTEL_BSP_*.
// OTEL_RESOURCE_ATTRIBUTES adds to the resource. The returned shutdown
// flushes and stops the provider; call it on exit.
func Setup(ctx context.Context, service, exporter string) (shutdown func(context.Context) error, err error) {
	var opts []sdktrace.TracerProviderOption
	switch exporter {
	case "", ExporterNone:
	case ExporterStdout:
		exp, err := stdouttrace.New(stdouttrace.WithWriter(os.Stdout))
		if err != nil {
			return nil, fmt.Errorf("stdout trace exporter: %w", err)
		}
		opts = append(opts, sdktrace.WithBatcher(exp))
	case ExporterOTLP:
		exp, err := otlptracehttp.New(ctx)
		if err != nil {
			return nil, fmt.Errorf("otlp trace exporter: %w", err)
		}
		opts = append(opts, sdktrace.WithBatcher(exp))
	default:
		return nil, fmt.Errorf("unknown trace exporter %q: want %q, %q or %q", exporter, ExporterNone, ExporterStdout, ExporterOTLP)
	}
	res, err := resource.New(ctx,
		resource.WithTelemetrySDK(),
		resource.WithHost(),
		resource.WithFromEnv(),
		resource.WithAttributes(semconv.ServiceName(service)))
	if err != nil && !errors.Is(err, resource.ErrPartialResource) {
		return nil, fmt.Errorf("trace resource: %w", err)
	}
	return install(res, opts...).Shutdown, nil
}

// SetupInMemory is Setup for tests: every ended span is recorded at once in
// the returned exporter. It changes global state, so tests using it must not
// run in parallel with other tracing tests; call shutdown at the end.
func SetupInMemory(service string) (exp *tracetest.InMemoryExporter, shutdown func(context.Context) error) {
	exp = tracetest.NewInMemoryExporter()
	res := resource.NewSchemaless(semconv.ServiceName(service))
	return exp, install(res, sdktrace.WithSyncer(exp)).Shutdown
}

// install makes a provider sampling every new trace (and following the
// caller's decision otherwise) the global one, with the platform's propagator.
func install(res *resource.Resource, opts ...sdktrace.TracerProviderOption) *sdktrace.TracerProvider {
	tp := sdktrace.NewTracerProvider(append([]sdktrace.TracerProviderOption{
		sdktrace.WithResource(res),
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.AlwaysSample())),
	}, opts...)...)
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(Propagator())
	return tp
}

// Propagator is the platform's propagator: W3C trace context and baggage.
func Propagator() propagation.TextMapPropagator {
	return propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
}

// HTTPTransport wraps base (http.DefaultTransport when nil) so that every
// outbound request is a client span and carries the trace context.
func HTTPTransport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return otelhttp.NewTransport(base)
}
