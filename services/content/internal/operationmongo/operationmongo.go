// Package operationmongo runs content's tree operations (transfers,
// duplications: space.Operations) as jobs of libs/jobs on MongoDB: a
// request records its operation, or joins the unfinished one of its key,
// and waits for its end; the queue's worker runs them, resuming after a
// crash.
package operationmongo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/jobs"
	"github.com/docspub/platform/libs/jobs/jobsmongo"
	"github.com/docspub/platform/services/content/internal/space"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Collection is the collection of content's operation log: the jobs of
// transfers and duplications (their keys live in Collection+"_keys").
const Collection = "operations"

// Queue runs the tree's operations on a job queue: Do records the job
// (or joins the unfinished one of its key) and waits for its end.
type Queue struct {
	queue *jobsmongo.Queue
	wait  time.Duration
}

var _ space.Operations = Queue{}

// New returns the operations of queue; a request waits at most wait for
// its operation's end (then answers 503: repeating it follows the same
// operation).
func New(queue *jobsmongo.Queue, wait time.Duration) Queue { return Queue{queue: queue, wait: wait} }

// result is what an operation that ended with an API error (a conflict, a
// resource gone meanwhile) stores, to answer the request with.
type result struct {
	Status  int    `bson:"status,omitempty"`
	Message string `bson:"message,omitempty"`
	Field   string `bson:"field,omitempty"`
}

func (o Queue) Do(ctx context.Context, org, kind, key string, payload any) error {
	job, created, err := o.queue.Enqueue(ctx, kind, key, payload, jobs.Tenant(org))
	if err != nil {
		return err
	}
	if !created {
		raw, err := bson.Marshal(payload)
		if err != nil {
			return err
		}
		if job.Kind != kind || !bytes.Equal(raw, job.Payload.Bytes()) {
			return apierr.Conflict("another operation on this resource is under way; retry when it is done")
		}
	}
	wctx, cancel := context.WithTimeout(ctx, o.wait)
	defer cancel()
	done, err := o.queue.Wait(wctx, job.ID, 20*time.Millisecond)
	switch {
	case ctx.Err() != nil:
		return ctx.Err() // the client went away; the operation goes on
	case errors.Is(err, context.DeadlineExceeded):
		return apierr.Unavailable(2*time.Second, "the operation is still running; repeat the request to follow it")
	case err != nil:
		return err
	case done.State == jobs.Failed:
		return fmt.Errorf("operation %s %s failed: %s", kind, job.ID, done.Error)
	}
	var res result
	if err := done.Result.Decode(&res); err != nil {
		return err
	}
	if res.Status != 0 {
		return &apierr.Error{Status: res.Status, Message: res.Message, Field: res.Field}
	}
	return nil
}

// Handlers adapts the tree's operations to the queue's worker: an API error
// below 500 ends the job with that error as its result (retrying cannot
// change it), except a busy tree, which is retried.
func Handlers(ops map[string]func(context.Context, space.Op) error) map[string]jobs.Handler {
	out := make(map[string]jobs.Handler, len(ops))
	for kind, h := range ops {
		out[kind] = func(ctx context.Context, r *jobs.Run) error {
			err := h(ctx, run{r})
			var ae *apierr.Error
			if err != nil && err != space.ErrTreeBusy && errors.As(err, &ae) && ae.Status < 500 {
				r.SetResult(result{Status: ae.Status, Message: ae.Message, Field: ae.Field})
				return nil
			}
			return err
		}
	}
	return out
}

// run is a job's run as the tree sees an operation.
type run struct{ r *jobs.Run }

func (r run) ID() string                                    { return r.r.Job.ID }
func (r run) Payload(v any) error                           { return r.r.Payload(v) }
func (r run) Progress(v any) error                          { return r.r.Progress(v) }
func (r run) SaveProgress(ctx context.Context, v any) error { return r.r.SaveProgress(ctx, v) }
