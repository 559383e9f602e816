package jobsmongo

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/docspub/platform/libs/backoff"
	"github.com/docspub/platform/libs/jobs"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Worker runs the jobs of a queue whose kinds it has handlers for.
type Worker struct {
	q           *Queue
	handlers    map[string]jobs.Handler
	kinds       []string
	concurrency int
	perTenant   int
	// rest, when > 0, is how long a tenant's job keeps the tenant's next
	// ones waiting in every worker, as a multiple of the time it ran.
	rest float64
	poll time.Duration
	log  *slog.Logger
}

// DefaultPoll is how often an idle worker looks for due jobs (besides
// Notify): it bounds how long a job waits for its retry or for a dead
// worker's lapsed lease to be noticed.
const DefaultPoll = time.Second

// NewWorker returns a worker running at most concurrency jobs at once.
func (q *Queue) NewWorker(handlers map[string]jobs.Handler, concurrency int, log *slog.Logger) *Worker {
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

// SetTenantRest makes a tenant's job keep the tenant's next jobs of its
// kind waiting, in every worker of the queue (every replica's: the rest is
// stored with the queue), for factor times as long as it ran (its others
// wait; other tenants' go on): a tenant whose jobs are costly (a parse of
// a large document again and again) then uses at most 1/(1+factor) of the
// worker's time per job at once, and leaves the rest of the machine to the
// other tenants (whose jobs of other kinds share its processors). A job
// handed back by a stopping worker makes no rest: it resumes at once
// elsewhere. 0 (the default): no rest.
func (w *Worker) SetTenantRest(factor float64) {
	if factor >= 0 {
		w.rest = factor
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
	wg.Add(1)
	go func() {
		defer wg.Done()
		w.keepHomes(ctx)
	}()
	for {
		select {
		case <-ctx.Done():
			return nil
		case slots <- struct{}{}:
		}
		job, ok, restEnds, err := w.q.claim(ctx, w.kinds, w.perTenant, w.rest > 0)
		if err != nil || !ok {
			<-slots
			if ctx.Err() != nil {
				return nil
			}
			wait := w.poll
			if !restEnds.IsZero() {
				wait = min(wait, max(restEnds.Sub(w.q.clock()), time.Millisecond))
			}
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

// keepHomes renews, every third of a lease until ctx is done, the home
// claim of the jobs of the worker's kinds its queue enqueued with jobs.Home.
func (w *Worker) keepHomes(ctx context.Context) {
	t := time.NewTicker(w.q.lease / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := w.q.renewHomes(ctx, w.kinds); err != nil && ctx.Err() == nil {
				w.log.WarnContext(ctx, "renew the home of jobs", "err", err)
			}
		}
	}
}

// run runs one claimed job, renewing its lease meanwhile, and records how it ended.
func (w *Worker) run(ctx context.Context, job doc) {
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
					if errors.Is(err, jobs.ErrLeaseLost) {
						close(lost)
						cancel()
						return
					}
					log.WarnContext(jctx, "renew job lease", "err", err)
				}
			}
		}
	}()
	r := jobs.NewRun(job.job(), func(ctx context.Context, v any) (jobs.Data, error) { return w.q.saveProgress(ctx, job, v) })
	started := time.Now()
	err := w.call(jctx, r)
	if ran := time.Since(started); w.rest > 0 && job.Tenant != "" && ctx.Err() == nil {
		w.restTenant(ctx, log, job, ran)
	}
	close(stopRenew)
	<-renewed

	select {
	case <-lost:
		log.WarnContext(ctx, "job lease lost; another worker has it", "err", err)
		return
	default:
		if errors.Is(err, jobs.ErrLeaseLost) {
			log.WarnContext(ctx, "job lease lost; another worker has it")
			return
		}
	}
	// Record the end with a context of its own: the worker's may be done.
	ectx, ecancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer ecancel()
	var ferr error
	switch {
	case err == nil:
		ferr = w.q.finish(ectx, job, jobs.Done, r.Result(), "", time.Time{}, 0)
	case ctx.Err() != nil:
		// Stopping: hand the job back, uncounted, for the next worker.
		ferr = w.q.finish(ectx, job, jobs.Pending, nil, "", w.q.clock(), -1)
	case jobs.IsPermanent(err):
		log.ErrorContext(ctx, "job failed", "err", err)
		ferr = w.q.finish(ectx, job, jobs.Failed, nil, err.Error(), time.Time{}, 0)
	case job.Attempts >= w.q.maxAttempts:
		log.ErrorContext(ctx, "job failed after its last attempt", "err", err)
		ferr = w.q.finish(ectx, job, jobs.Failed, nil, err.Error(), time.Time{}, 0)
	default:
		wait := backoff.Wait(job.Attempts, time.Second, time.Minute)
		log.WarnContext(ctx, "job will be retried", "err", err, "retry_in", wait.String())
		ferr = w.q.finish(ectx, job, jobs.Pending, nil, err.Error(), w.q.clock().Add(wait), 0)
	}
	if ferr != nil {
		log.ErrorContext(ctx, "record job end", "err", ferr)
	}
}

// restTenant records the rest job's tenant takes after its job ran for
// ran, before the job's end is recorded (see Queue.claim), with a
// deadline of its own.
func (w *Worker) restTenant(ctx context.Context, log *slog.Logger, job doc, ran time.Duration) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := w.q.rest(rctx, job.Kind, job.Tenant, w.q.clock().Add(time.Duration(float64(ran)*w.rest))); err != nil {
		log.WarnContext(ctx, "the tenant's next jobs will not rest", "err", err)
	}
}

// call runs the handler, turning a panic into a permanent failure.
func (w *Worker) call(ctx context.Context, r *jobs.Run) (err error) {
	h := w.handlers[r.Job.Kind]
	defer func() {
		if p := recover(); p != nil {
			w.log.ErrorContext(ctx, "job handler panicked", "job", r.Job.ID, "panic", p, "stack", string(debug.Stack()))
			err = jobs.Permanent(fmt.Errorf("handler panicked: %v", p))
		}
	}()
	return h(ctx, r)
}

// saveProgress records the progress of job, held by this queue's worker.
func (q *Queue) saveProgress(ctx context.Context, job doc, v any) (jobs.Data, error) {
	raw, err := bson.Marshal(v)
	if err != nil {
		return jobs.Data{}, fmt.Errorf("encode %s progress: %w", job.Kind, err)
	}
	d, err := toDoc(v)
	if err != nil {
		return jobs.Data{}, fmt.Errorf("encode %s progress: %w", job.Kind, err)
	}
	ok, err := q.cas(ctx, job.ID, q.mine(job.ID), bson.M{"$set": bson.M{"progress": d, "updatedAt": q.clock()}})
	if err != nil {
		return jobs.Data{}, err
	}
	if !ok {
		return jobs.Data{}, jobs.ErrLeaseLost
	}
	return data(raw), nil
}
