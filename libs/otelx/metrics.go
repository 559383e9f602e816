package otelx

import (
	"context"
	"fmt"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
)

// Metrics installs the global meter provider of service, read by a
// Prometheus registry (with the Go runtime and process collectors), and
// returns the handler of /metrics in the Prometheus text format. Every
// instrument of the binary lands there: the RED metrics of each gin route
// (otelgin's http.server.request.duration by http.route, the route
// template), Kafka consumer lag, relay backlog and dead letters, job queue
// depth, cache hits. shutdown stops the provider.
func Metrics(service string) (handler http.Handler, shutdown func(context.Context) error, err error) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	exp, err := otelprom.New(otelprom.WithRegisterer(reg))
	if err != nil {
		return nil, nil, fmt.Errorf("prometheus exporter: %w", err)
	}
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exp),
		sdkmetric.WithResource(resource.NewSchemaless(semconv.ServiceName(service))))
	otel.SetMeterProvider(mp)
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{}), mp.Shutdown, nil
}
