// Package otelx sets up OpenTelemetry for a binary: the global tracer
// provider with the chosen exporter and sampler, the W3C trace context and
// baggage propagator that carries traces over HTTP and Kafka, and the
// global meter provider read by Prometheus (Metrics).
package otelx

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"

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
	ExporterNone   = "none"   // spans carry trace ids (logs, propagation) but are neither recorded nor exported
	ExporterStdout = "stdout" // spans are written to stdout, one JSON object per line
	ExporterOTLP   = "otlp"   // spans are sent over OTLP/HTTP (protobuf)
)

// Config is how a binary traces, from the standard variables.
type Config struct {
	// Exporter is "none" (trace context still travels), "stdout" or "otlp"
	// (OTLP/HTTP to the endpoint of the standard OTEL_EXPORTER_OTLP_* variables).
	Exporter string `env:"OTEL_TRACES_EXPORTER, default=none"`
	// Sampler and SamplerArg choose which new traces are sampled:
	// always_on, always_off, traceidratio, parentbased_always_on,
	// parentbased_always_off or parentbased_traceidratio (the ratio in
	// SamplerArg, 0 to 1).
	Sampler    string `env:"OTEL_TRACES_SAMPLER, default=parentbased_always_on"`
	SamplerArg string `env:"OTEL_TRACES_SAMPLER_ARG"`
}

// Samplers accepted in OTEL_TRACES_SAMPLER.
var Samplers = []string{"always_on", "always_off", "traceidratio", "parentbased_always_on", "parentbased_always_off", "parentbased_traceidratio"}

// Sampler returns the sampler that name and arg (OTEL_TRACES_SAMPLER and
// OTEL_TRACES_SAMPLER_ARG) describe; "" is parentbased_always_on.
func Sampler(name, arg string) (sdktrace.Sampler, error) {
	ratio := func() (float64, error) {
		if arg == "" {
			return 1, nil
		}
		r, err := strconv.ParseFloat(arg, 64)
		if err != nil || r < 0 || r > 1 {
			return 0, fmt.Errorf("OTEL_TRACES_SAMPLER_ARG %q must be a ratio from 0 to 1", arg)
		}
		return r, nil
	}
	switch name {
	case "", "parentbased_always_on":
		return sdktrace.ParentBased(sdktrace.AlwaysSample()), nil
	case "parentbased_always_off":
		return sdktrace.ParentBased(sdktrace.NeverSample()), nil
	case "always_on":
		return sdktrace.AlwaysSample(), nil
	case "always_off":
		return sdktrace.NeverSample(), nil
	case "traceidratio", "parentbased_traceidratio":
		r, err := ratio()
		if err != nil {
			return nil, err
		}
		if name == "traceidratio" {
			return sdktrace.TraceIDRatioBased(r), nil
		}
		return sdktrace.ParentBased(sdktrace.TraceIDRatioBased(r)), nil
	}
	return nil, fmt.Errorf("OTEL_TRACES_SAMPLER %q must be one of %s", name, strings.Join(Samplers, ", "))
}

// Setup installs the global tracer provider of service and the W3C trace
// context and baggage propagator. cfg.Exporter is "none" (also for ""),
// "stdout" or "otlp"; the OTLP exporter reads its endpoint, headers,
// timeout and TLS from the standard OTEL_EXPORTER_OTLP_* (and
// OTEL_EXPORTER_OTLP_TRACES_*) variables, and the batching from OTEL_BSP_*.
// New traces are sampled by cfg.Sampler; with no exporter, no span is
// recorded (trace ids still travel). OTEL_RESOURCE_ATTRIBUTES adds to
// the resource. The returned shutdown flushes and stops the provider; call
// it on exit.
func Setup(ctx context.Context, service string, cfg Config) (shutdown func(context.Context) error, err error) {
	sampler, err := Sampler(cfg.Sampler, cfg.SamplerArg)
	if err != nil {
		return nil, err
	}
	opts := []sdktrace.TracerProviderOption{sdktrace.WithSampler(sampler)}
	exporter := cfg.Exporter
	switch exporter {
	case "", ExporterNone:
		// Nothing reads a recorded span: record none. Spans keep their
		// trace ids (in logs, propagated unsampled); recording each
		// request's attributes was a third of a cached page's allocations.
		opts[0] = sdktrace.WithSampler(sdktrace.NeverSample())
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
		return nil, fmt.Errorf("OTEL_TRACES_EXPORTER: unknown trace exporter %q: want %q, %q or %q", exporter, ExporterNone, ExporterStdout, ExporterOTLP)
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

// install makes a provider the global one, with the platform's propagator;
// unless opts choose another sampler, it samples every new trace and
// follows the caller's decision otherwise.
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
