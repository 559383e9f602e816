package jobsmongo

import (
	"context"
	"time"

	"github.com/docspub/platform/libs/jobs"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// observeDepth reports, while the worker runs, the queue's depth: jobs
// pending and jobs running, per state, counted at each scrape.
func (w *Worker) observeDepth() func() {
	meter := otel.Meter("github.com/docspub/platform/libs/jobs")
	g, err := meter.Int64ObservableGauge("jobs.queue.depth", metric.WithUnit("{job}"),
		metric.WithDescription("Jobs of the queue waiting (pending) or being run (running)."))
	if err != nil {
		return func() {}
	}
	queue := attribute.String("jobs.queue", w.q.coll.Name())
	reg, err := meter.RegisterCallback(func(ctx context.Context, o metric.Observer) error {
		ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		for _, state := range []string{jobs.Pending, jobs.Running} {
			n, err := w.q.coll.CountDocuments(ctx, bson.M{"state": state})
			if err != nil {
				return nil
			}
			o.ObserveInt64(g, n, metric.WithAttributes(queue, attribute.String("jobs.state", state)))
		}
		return nil
	}, g)
	if err != nil {
		return func() {}
	}
	return func() { _ = reg.Unregister() }
}
