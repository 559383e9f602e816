package kafkax

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// observe registers callback as the observer of a gauge of the global
// meter provider; the returned function unregisters it. A failure to make
// the instrument leaves the gauge out (metrics never stop the work).
func observe(name, unit, description string, callback func(context.Context) (int64, bool), attrs ...attribute.KeyValue) func() {
	g, err := otel.Meter(tracerName).Int64ObservableGauge(name, metric.WithUnit(unit), metric.WithDescription(description))
	if err != nil {
		return func() {}
	}
	reg, err := otel.Meter(tracerName).RegisterCallback(func(ctx context.Context, o metric.Observer) error {
		if v, ok := callback(ctx); ok {
			o.ObserveInt64(g, v, metric.WithAttributes(attrs...))
		}
		return nil
	}, g)
	if err != nil {
		return func() {}
	}
	return func() { _ = reg.Unregister() }
}

// observeLag reports the consumer's lag (messages of its partitions not yet
// fetched) while it runs.
func (c *Consumer) observeLag() func() {
	return observe("kafkax.consumer.lag", "{message}",
		"Messages of the consumer's partitions not yet fetched (kafka-go's reader lag).",
		func(context.Context) (int64, bool) { return c.r.Stats().Lag, true },
		attribute.String("messaging.destination.name", c.topic), attribute.String("messaging.consumer.group.name", c.group))
}

// observeBacklog reports the relay's backlog, the documents with pending
// events, while it runs; one count per collection at each scrape.
func (r *Relay) observeBacklog() func() {
	return observe("kafkax.relay.backlog", "{document}",
		"Documents of the service's database whose events wait to be published.",
		func(ctx context.Context) (int64, bool) {
			ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			defer cancel()
			var n int64
			for _, coll := range r.collections {
				c, err := r.db.Collection(coll).CountDocuments(ctx, bson.M{OutboxField + ".0": bson.M{"$exists": true}})
				if err != nil {
					return 0, false
				}
				n += c
			}
			return n, true
		},
		attribute.String("messaging.destination.name", r.topic))
}
