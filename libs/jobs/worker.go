package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Handler does the work of a job. It returns nil when the job is done (its
// result set with Run.SetResult), Permanent(err) to fail it for good, or
// another error to try again later (with backoff, up to the queue's maximum
// of attempts). It must stop when ctx ends (the worker stops, or the lease
// was lost) and be idempotent: a job may run again from the progress it
// last saved.
type Handler func(ctx context.Context, r *Run) error

// Run is one run of a job by a worker.
type Run struct {
	Job    Job
	q      *Queue
	result any
}

// Payload decodes the job's payload into v.
func (r *Run) Payload(v any) error { return Decode(r.Job.Payload, v) }

// Progress decodes the progress saved by an earlier run into v (unchanged
// when none was saved).
func (r *Run) Progress(v any) error { return Decode(r.Job.Progress, v) }

// SaveProgress records how far the job got, so that a later run resumes
// there; ErrLeaseLost when this worker no longer holds the job.
func (r *Run) SaveProgress(ctx context.Context, v any) error {
	raw, err := bson.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s progress: %w", r.Job.Kind, err)
	}
	doc, err := toDoc(v)
	if err != nil {
		return fmt.Errorf("encode %s progress: %w", r.Job.Kind, err)
	}
	now := r.q.clock()
	ok, err := r.q.cas(ctx, r.Job.ID, r.q.mine(r.Job.ID), bson.M{"$set": bson.M{"progress": doc, "updatedAt": now}})
	if err != nil {
		return err
	}
	if !ok {
		return ErrLeaseLost
	}
	r.Job.Progress = raw
	return nil
}

// SetResult sets what the job stores as its result when the handler returns nil.
func (r *Run) SetResult(v any) { r.result = v }

// permanent marks an error that retrying cannot cure.
type permanent struct{ err error }

func (p permanent) Error() string { return p.err.Error() }
func (p permanent) Unwrap() error { return p.err }

// Permanent wraps err so that the job fails at once, without retries.
func Permanent(err error) error { return permanent{err: err} }

// Worker runs the jobs of a queue whose kinds it has handlers for.
type Worker struct {
	q           *Queue
	handlers    map[string]Handler
	kinds       []string
	concurrency int
	perTenant   int
	poll        time.Duration
	log         *slog.Logger
}

// DefaultPoll is how often an idle worker looks for due jobs (besides
// Notify): it bounds how long a job waits for its retry or for a dead
// worker's lapsed lease to be noticed.
const DefaultPoll = time.Second

// NewWorker returns a worker running at most concurrency jobs at once.
func (q *Queue) NewWorker(handlers map[string]Handler, concurrency int, log *slog.Logger) *Worker {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	w := &Worker{q: q, handlers: handlers, concurrency: max(concurrency, 1), poll: DefaultPoll,
		log: log.With("component", "jobs", "collection", q.coll.Name())}
	for k := range handlers {
		w.kinds = append(w.kinds, k)
	}
	return w
}

// SetPoll changes how often an idle worker looks for due jobs.
func (w *Worker) SetPoll(d time.Duration) {
	if d > 0 {
		w.poll = d
	}
}

// SetTenantLimit makes the worker run a job of a tenant only while that
// tenant has fewer than n jobs of the worker's kinds running (in every
// worker of the queue), even when no other tenant waits: with separate
// workers per kind and n = 1, one organization never holds more than one
// worker of a kind. 0 (the default) sets no limit: tenants running none
// still go first. The count is read before each claim, so two replicas
// claiming at the same instant may exceed it by one each.
func (w *Worker) SetTenantLimit(n int) {
	if n >= 0 {
		w.perTenant = n
	}
}

// Run takes and runs jobs until ctx is done; then it hands back the jobs it
// holds (they resume at once elsewhere or after a restart) and returns nil.
// The jobs run detached from whoever enqueued them.
func (w *Worker) Run(ctx context.Context) error {
	defer w.observeDepth()()
	slots := make(chan struct{}, w.concurrency)
	var wg sync.WaitGroup
	defer wg.Wait()
	timer := time.NewTimer(0)
	defer timer.Stop()
	failures := 0
	wake, unsubscribe := w.q.subscribe()
	defer unsubscribe()
	for {
		select {
		case <-ctx.Done():
			return nil
		case slots <- struct{}{}:
		}
		job, ok, err := w.q.claim(ctx, w.kinds, w.perTenant)
		if err != nil || !ok {
			<-slots
			if ctx.Err() != nil {
				return nil
			}
			wait := w.poll
			if err != nil {
				failures++
				wait = min(w.poll*time.Duration(failures), 10*w.poll)
				w.log.WarnContext(ctx, "claim job", "err", err)
			} else {
				failures = 0
			}
			timer.Reset(wait)
			select {
			case <-ctx.Done():
				return nil
			case <-timer.C:
			case <-wake:
			}
			continue
		}
		failures = 0
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			w.run(ctx, job)
		}()
	}
}

// run runs one claimed job, renewing its lease meanwhile, and records how it ended.
func (w *Worker) run(ctx context.Context, job Job) {
	log := w.log.With("job", job.ID, "kind", job.Kind, "attempt", job.Attempts)
	jctx, cancel := context.WithCancel(ctx)
	defer cancel()
	lost := make(chan struct{})
	stopRenew := make(chan struct{})
	renewed := make(chan struct{})
	go func() {
		defer close(renewed)
		t := time.NewTicker(w.q.lease / 3)
		defer t.Stop()
		for {
			select {
			case <-stopRenew:
				return
			case <-jctx.Done():
				return
			case <-t.C:
				if err := w.q.renew(jctx, job.ID); err != nil {
					if errors.Is(err, ErrLeaseLost) {
						close(lost)
						cancel()
						return
					}
					log.WarnContext(jctx, "renew job lease", "err", err)
				}
			}
		}
	}()
	r := &Run{Job: job, q: w.q}
	err := w.call(jctx, r)
	close(stopRenew)
	<-renewed

	select {
	case <-lost:
		log.WarnContext(ctx, "job lease lost; another worker has it", "err", err)
		return
	default:
		if errors.Is(err, ErrLeaseLost) {
			log.WarnContext(ctx, "job lease lost; another worker has it")
			return
		}
	}
	// Record the end with a context of its own: the worker's may be done.
	ectx, ecancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer ecancel()
	var perm permanent
	var ferr error
	switch {
	case err == nil:
		ferr = w.q.finish(ectx, job, Done, r.result, "", time.Time{}, 0)
	case ctx.Err() != nil:
		// Stopping: hand the job back, uncounted, for the next worker.
		ferr = w.q.finish(ectx, job, Pending, nil, "", w.q.clock(), -1)
	case errors.As(err, &perm):
		log.ErrorContext(ctx, "job failed", "err", err)
		ferr = w.q.finish(ectx, job, Failed, nil, err.Error(), time.Time{}, 0)
	case job.Attempts >= w.q.maxAttempts:
		log.ErrorContext(ctx, "job failed after its last attempt", "err", err)
		ferr = w.q.finish(ectx, job, Failed, nil, err.Error(), time.Time{}, 0)
	default:
		wait := retryWait(job.Attempts)
		log.WarnContext(ctx, "job will be retried", "err", err, "retry_in", wait.String())
		ferr = w.q.finish(ectx, job, Pending, nil, err.Error(), w.q.clock().Add(wait), 0)
	}
	if ferr != nil {
		log.ErrorContext(ctx, "record job end", "err", ferr)
	}
}

// call runs the handler, turning a panic into a permanent failure.
func (w *Worker) call(ctx context.Context, r *Run) (err error) {
	h := w.handlers[r.Job.Kind]
	defer func() {
		if p := recover(); p != nil {
			w.log.ErrorContext(ctx, "job handler panicked", "job", r.Job.ID, "panic", p, "stack", string(debug.Stack()))
			err = Permanent(fmt.Errorf("handler panicked: %v", p))
		}
	}()
	return h(ctx, r)
}

// retryWait is the wait before attempt n+1: 1s doubled per attempt, at most a minute.
func retryWait(n int) time.Duration {
	d := time.Second
	for i := 1; i < n && d < time.Minute; i++ {
		d *= 2
	}
	return min(d, time.Minute)
}
