// Package jobs is the domain side of a job queue: work that must finish even
// when the process doing it stops (a tree transfer, a Git import, processing
// an OpenAPI spec) is first written as a job, then taken by one worker at a
// time under a lease, a deadline the worker keeps renewing. When the worker
// stops cleanly it hands the job back at once; when it dies, the lease
// lapses and any worker takes the job again and resumes from the progress
// the handler recorded. Handlers are therefore idempotent steps.
//
// A key (the resource a job works on) has at most one unfinished job:
// Enqueue of a key that has one returns it instead of starting a second, so
// that a repeated request joins the running operation.
//
// The package holds what the services' domains use: the Job, the Queue they
// enqueue to, the Run a Handler gets. It imports no database driver; the
// queue and its workers on MongoDB are jobs/jobsmongo.
package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/docspub/platform/libs/apierr"
)

// States of a job.
const (
	Pending = "pending" // waiting for a worker (new, handed back, or retrying later)
	Running = "running" // a worker holds its lease
	Done    = "done"
	Failed  = "failed"
)

// Defaults of a queue.
const (
	DefaultLease       = 30 * time.Second
	DefaultMaxAttempts = 5
)

// Errors.
var (
	// ErrLeaseLost: the job was taken by another worker (this one was too
	// slow to renew its lease) or finished meanwhile.
	ErrLeaseLost = errors.New("job lease lost")
	// ErrNotFound: no such job.
	ErrNotFound = apierr.NotFound("job not found")
	// ErrStarting: another operation on the same resource is being started.
	ErrStarting = apierr.Conflict("another operation on this resource is starting; retry shortly")
)

// Job is a stored job.
type Job struct {
	ID       string
	Kind     string
	Key      string
	Tenant   string // whose job it is (an organization): workers serve tenants running none first
	State    string
	Payload  Data
	Progress Data
	Result   Data
	Error    string
	Attempts int
	// Owner is the worker holding the job while it runs.
	Owner string
	// Home, when set, is the queue whose workers alone may take the job
	// until HomeUntil (see the option Home).
	Home       string
	HomeUntil  time.Time
	LeaseUntil time.Time
	NotBefore  time.Time
	CreatedAt  time.Time
	UpdatedAt  time.Time
	FinishedAt time.Time
}

// Finished reports whether the job is done or failed.
func (j Job) Finished() bool { return j.State == Done || j.State == Failed }

// Data is a job's payload, progress or result as the queue stored it.
type Data struct {
	raw    []byte
	decode func(raw []byte, v any) error
}

// NewData is raw, encoded as the queue stores data, decoded by decode.
func NewData(raw []byte, decode func(raw []byte, v any) error) Data {
	return Data{raw: raw, decode: decode}
}

// Decode decodes the data into v; empty data leaves v unchanged.
func (d Data) Decode(v any) error {
	if len(d.raw) == 0 {
		return nil
	}
	if err := d.decode(d.raw, v); err != nil {
		return fmt.Errorf("decode job data: %w", err)
	}
	return nil
}

// Bytes is the data as the queue encoded it: two payloads encoded by one
// queue are the same when their bytes are.
func (d Data) Bytes() []byte { return d.raw }

// EnqueueOptions are what the options of one Enqueue set.
type EnqueueOptions struct {
	Tenant string
	Home   bool
}

// EnqueueOption tunes one Enqueue.
type EnqueueOption func(*EnqueueOptions)

// Tenant names whose job it is (an organization): workers take the jobs of
// tenants running none before more of a tenant's, so one tenant's burst of
// jobs delays its own, not another's.
func Tenant(id string) EnqueueOption { return func(o *EnqueueOptions) { o.Tenant = id } }

// Home keeps the job for the workers of the process that enqueues it, as
// long as that process lives: for work whose inputs only its memory holds
// (credentials that are never stored). Its workers renew the claim like a
// lease; when the process dies the claim lapses (after a lease) and any
// worker takes the job, which then finds those inputs gone.
func Home() EnqueueOption { return func(o *EnqueueOptions) { o.Home = true } }

// Queue is what a domain needs of a job queue.
type Queue interface {
	// Enqueue writes a new pending job of kind with payload and returns it.
	// With a key that already has an unfinished job, it writes nothing and
	// returns that job with created false: the caller joins it (and may
	// compare its payload). ErrStarting when another Enqueue of the key is
	// under way.
	Enqueue(ctx context.Context, kind, key string, payload any, opts ...EnqueueOption) (job Job, created bool, err error)
	// Get returns a job; ErrNotFound when there is none.
	Get(ctx context.Context, id string) (Job, error)
}

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
	save   func(ctx context.Context, progress any) (Data, error)
	result any
}

// NewRun is a run of job whose progress is saved by save (the worker's
// compare-and-set on the job it holds, ErrLeaseLost when it no longer does).
func NewRun(job Job, save func(ctx context.Context, progress any) (Data, error)) *Run {
	return &Run{Job: job, save: save}
}

// Payload decodes the job's payload into v.
func (r *Run) Payload(v any) error { return r.Job.Payload.Decode(v) }

// Progress decodes the progress saved by an earlier run into v (unchanged
// when none was saved).
func (r *Run) Progress(v any) error { return r.Job.Progress.Decode(v) }

// SaveProgress records how far the job got, so that a later run resumes
// there; ErrLeaseLost when this worker no longer holds the job.
func (r *Run) SaveProgress(ctx context.Context, v any) error {
	d, err := r.save(ctx, v)
	if err != nil {
		return err
	}
	r.Job.Progress = d
	return nil
}

// SetResult sets what the job stores as its result when the handler returns nil.
func (r *Run) SetResult(v any) { r.result = v }

// Result is what SetResult set (nil: none).
func (r *Run) Result() any { return r.result }

// permanent marks an error that retrying cannot cure.
type permanent struct{ err error }

func (p permanent) Error() string { return p.err.Error() }
func (p permanent) Unwrap() error { return p.err }

// Permanent wraps err so that the job fails at once, without retries.
func Permanent(err error) error { return permanent{err: err} }

// IsPermanent reports whether err was made by Permanent.
func IsPermanent(err error) bool {
	var p permanent
	return errors.As(err, &p)
}
