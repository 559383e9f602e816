package kafkax

import (
	"context"

	"github.com/segmentio/kafka-go"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
)

// tracerName names the tracer of the publish and process spans.
const tracerName = "github.com/docspub/platform/libs/kafkax"

// HeaderCarrier adapts Kafka message headers to the OpenTelemetry
// TextMapCarrier, so the propagator reads and writes trace context headers.
type HeaderCarrier struct {
	Headers *[]kafka.Header
}

var _ propagation.TextMapCarrier = HeaderCarrier{}

// Get returns the value of the first header named key.
func (c HeaderCarrier) Get(key string) string {
	for _, h := range *c.Headers {
		if h.Key == key {
			return string(h.Value)
		}
	}
	return ""
}

// Set replaces the header named key, or appends it.
func (c HeaderCarrier) Set(key, value string) {
	for i, h := range *c.Headers {
		if h.Key == key {
			(*c.Headers)[i].Value = []byte(value)
			return
		}
	}
	*c.Headers = append(*c.Headers, kafka.Header{Key: key, Value: []byte(value)})
}

// Keys lists the header names.
func (c HeaderCarrier) Keys() []string {
	keys := make([]string, 0, len(*c.Headers))
	for _, h := range *c.Headers {
		keys = append(keys, h.Key)
	}
	return keys
}

// ContextFromHeaders returns ctx carrying the trace context found in headers.
func ContextFromHeaders(ctx context.Context, headers []kafka.Header) context.Context {
	return otel.GetTextMapPropagator().Extract(ctx, HeaderCarrier{Headers: &headers})
}

// traceContext returns ctx carrying the trace context of an event's Trace map.
func traceContext(ctx context.Context, trace map[string]string) context.Context {
	if len(trace) == 0 {
		return ctx
	}
	return otel.GetTextMapPropagator().Extract(ctx, propagation.MapCarrier(trace))
}

// traceFromHeaders copies the propagator's headers (traceparent, tracestate,
// baggage) into a map (nil when there is none).
func traceFromHeaders(headers []kafka.Header) map[string]string {
	var m map[string]string
	for _, f := range otel.GetTextMapPropagator().Fields() {
		if v := (HeaderCarrier{Headers: &headers}).Get(f); v != "" {
			if m == nil {
				m = map[string]string{}
			}
			m[f] = v
		}
	}
	return m
}
