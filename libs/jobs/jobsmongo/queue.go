// Package jobsmongo is the job queue of package jobs on MongoDB: one
// collection of jobs, one of the keys of unfinished jobs, and the workers
// that run them.
//
// Every change of a job is a compare-and-set on its owner and state, so a
// worker that lost its lease can never overwrite the job's new owner: its
// context is cancelled and its writes fail with jobs.ErrLeaseLost. On the
// embedded FerretDB, which applies an update by reading and rewriting the
// document, the queue also takes the document locks of its mongox.DB around
// each write (MongoDB itself is atomic per document).
package jobsmongo

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/docspub/platform/libs/jobs"
	"github.com/docspub/platform/libs/mongox"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// doc is a job as stored.
type doc struct {
	ID         string    `bson:"_id"`
	Kind       string    `bson:"kind"`
	Key        string    `bson:"key,omitempty"`
	Tenant     string    `bson:"tenant,omitempty"` // whose job it is (an organization): see claim
	State      string    `bson:"state"`
	Payload    bson.Raw  `bson:"payload,omitempty"`
	Progress   bson.Raw  `bson:"progress,omitempty"`
	Result     bson.Raw  `bson:"result,omitempty"`
	Error      string    `bson:"error,omitempty"`
	Attempts   int       `bson:"attempts"`
	Owner      string    `bson:"owner,omitempty"`
	Home       string    `bson:"home,omitempty"` // the queue whose workers alone take it until homeUntil
	HomeUntil  time.Time `bson:"homeUntil,omitzero"`
	LeaseUntil time.Time `bson:"leaseUntil"`
	NotBefore  time.Time `bson:"notBefore"`
	CreatedAt  time.Time `bson:"createdAt"`
	UpdatedAt  time.Time `bson:"updatedAt"`
	FinishedAt time.Time `bson:"finishedAt,omitzero"`
}

func (d doc) job() jobs.Job {
	return jobs.Job{ID: d.ID, Kind: d.Kind, Key: d.Key, Tenant: d.Tenant, State: d.State,
		Payload: data(d.Payload), Progress: data(d.Progress), Result: data(d.Result), Error: d.Error, Attempts: d.Attempts,
		Owner: d.Owner, Home: d.Home, HomeUntil: d.HomeUntil, LeaseUntil: d.LeaseUntil, NotBefore: d.NotBefore, CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt,
		FinishedAt: d.FinishedAt}
}

func data(raw bson.Raw) jobs.Data { return jobs.NewData(raw, bson.Unmarshal) }

// Queue is the jobs of one MongoDB collection.
type Queue struct {
	db          mongox.DB
	coll        *mongo.Collection
	keys        *mongo.Collection
	rests       *mongo.Collection
	owner       string
	lease       time.Duration
	maxAttempts int
	now         func() time.Time

	mu    sync.Mutex
	wakes []chan struct{}   // one per running worker: Notify wakes them all
	homes map[string]string // the unfinished jobs this queue enqueued with jobs.Home: kind by id
}

// Option tunes a Queue.
type Option func(*Queue)

// WithLease sets how long a worker holds a job without renewing (default
// jobs.DefaultLease); it renews every third of it. A dead worker's job is taken
// again after at most this long.
func WithLease(d time.Duration) Option {
	return func(q *Queue) {
		if d > 0 {
			q.lease = d
		}
	}
}

// WithMaxAttempts sets how many times a failing job is tried before it is
// failed for good (default jobs.DefaultMaxAttempts).
func WithMaxAttempts(n int) Option {
	return func(q *Queue) {
		if n > 0 {
			q.maxAttempts = n
		}
	}
}

// WithClock sets the queue's clock (tests).
func WithClock(now func() time.Time) Option { return func(q *Queue) { q.now = now } }

// Indexes are the indexes a queue on collection relies on.
func Indexes(collection string) []mongox.Index {
	return []mongox.Index{
		mongox.Keys(collection, "state", "notBefore"),
		mongox.Keys(collection, "state", "leaseUntil"),
		// A claim's read of the rests of its kinds (Queue.resting).
		mongox.Keys(collection+"_rests", "kind"),
	}
}

// NewQueue returns the queue of collection in db; its keys live in
// collection+"_keys" and its tenants' rests in collection+"_rests".
func NewQueue(db mongox.DB, collection string, opts ...Option) *Queue {
	q := &Queue{
		db:          db,
		coll:        db.Collection(collection),
		keys:        db.Collection(collection + "_keys"),
		rests:       db.Collection(collection + "_rests"),
		owner:       newID(),
		lease:       jobs.DefaultLease,
		maxAttempts: jobs.DefaultMaxAttempts,
		now:         time.Now,
	}
	for _, o := range opts {
		o(q)
	}
	return q
}

func (q *Queue) clock() time.Time { return q.now().UTC().Truncate(time.Millisecond) }

var _ jobs.Queue = (*Queue)(nil)

// Enqueue writes a new pending job of kind with payload and returns it. With
// a key that already has an unfinished job, it writes nothing and returns
// that job with created false: the caller joins it (and may compare its
// payload). Workers are woken at once.
func (q *Queue) Enqueue(ctx context.Context, kind, key string, payload any, opts ...jobs.EnqueueOption) (job jobs.Job, created bool, err error) {
	raw, err := bson.Marshal(payload)
	if err != nil {
		return jobs.Job{}, false, fmt.Errorf("encode %s payload: %w", kind, err)
	}
	var o jobs.EnqueueOptions
	for _, opt := range opts {
		opt(&o)
	}
	now := q.clock()
	d := doc{ID: newID(), Kind: kind, Key: key, Tenant: o.Tenant, State: jobs.Pending, Payload: raw, NotBefore: now, CreatedAt: now, UpdatedAt: now}
	if o.Home {
		d.Home, d.HomeUntil = q.owner, now.Add(q.lease)
	}
	if key != "" {
		claimed := false
		for range 3 {
			holder, ok, err := q.claimKey(ctx, key, d.ID, now)
			if err != nil {
				return jobs.Job{}, false, err
			}
			if holder != nil {
				return *holder, false, nil
			}
			if claimed = ok; claimed {
				break
			}
		}
		if !claimed {
			return jobs.Job{}, false, jobs.ErrStarting
		}
	}
	if _, err := q.coll.InsertOne(ctx, d); err != nil {
		return jobs.Job{}, false, fmt.Errorf("enqueue %s: %w", kind, err)
	}
	if o.Home {
		q.keepHome(d.ID, kind)
	}
	q.Notify()
	return d.job(), true, nil
}

// staleKey is how long a key may name a job that does not exist (its
// Enqueue died between claiming the key and writing the job) before another
// Enqueue takes the key over.
const staleKey = time.Minute

// claimKey makes jobID the unfinished job of key. When another unfinished
// job holds the key it returns that job; a key left by a finished job (its
// worker died between finishing and freeing the key) or by a job that was
// never written is taken over.
func (q *Queue) claimKey(ctx context.Context, key, jobID string, now time.Time) (holder *jobs.Job, claimed bool, err error) {
	_, err = q.keys.InsertOne(ctx, bson.M{"_id": key, "job": jobID, "at": now})
	if err == nil {
		return nil, true, nil
	}
	if !mongo.IsDuplicateKeyError(err) {
		return nil, false, fmt.Errorf("claim job key: %w", err)
	}
	var k struct {
		Job string    `bson:"job"`
		At  time.Time `bson:"at"`
	}
	if err := q.keys.FindOne(ctx, bson.M{"_id": key}).Decode(&k); err != nil {
		if errors.Is(err, mongo.ErrNoDocuments) {
			return nil, false, nil // freed meanwhile: try again
		}
		return nil, false, fmt.Errorf("read job key: %w", err)
	}
	j, err := q.Get(ctx, k.Job)
	switch {
	case err == nil && !j.Finished():
		return &j, false, nil
	case errors.Is(err, jobs.ErrNotFound) && now.Sub(k.At) < staleKey:
		return nil, false, jobs.ErrStarting
	case err != nil && !errors.Is(err, jobs.ErrNotFound):
		return nil, false, err
	}
	// A stale key: free it if it still names that job, then try again.
	_, err = q.keys.DeleteOne(ctx, bson.M{"_id": key, "job": k.Job})
	if err != nil {
		return nil, false, fmt.Errorf("free stale job key: %w", err)
	}
	return nil, false, nil
}

// Get returns a job.
func (q *Queue) Get(ctx context.Context, id string) (jobs.Job, error) {
	var d doc
	err := q.coll.FindOne(ctx, bson.M{"_id": id}).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return jobs.Job{}, jobs.ErrNotFound
	}
	if err != nil {
		return jobs.Job{}, fmt.Errorf("read job %s: %w", id, err)
	}
	return d.job(), nil
}

// Active returns the unfinished job of key, if any.
func (q *Queue) Active(ctx context.Context, key string) (jobs.Job, bool, error) {
	var k struct {
		Job string `bson:"job"`
	}
	err := q.keys.FindOne(ctx, bson.M{"_id": key}).Decode(&k)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return jobs.Job{}, false, nil
	}
	if err != nil {
		return jobs.Job{}, false, fmt.Errorf("read job key: %w", err)
	}
	j, err := q.Get(ctx, k.Job)
	if errors.Is(err, jobs.ErrNotFound) {
		return jobs.Job{}, false, nil
	}
	if err != nil || j.Finished() {
		return jobs.Job{}, false, err
	}
	return j, true, nil
}

// Wait polls the job until it is finished or ctx ends, and returns it.
func (q *Queue) Wait(ctx context.Context, id string, every time.Duration) (jobs.Job, error) {
	if every <= 0 {
		every = 50 * time.Millisecond
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		j, err := q.Get(ctx, id)
		if err != nil || j.Finished() {
			return j, err
		}
		select {
		case <-ctx.Done():
			return j, ctx.Err()
		case <-t.C:
		}
	}
}

// Notify wakes every worker of the queue (in this process) at once. It
// never blocks.
func (q *Queue) Notify() {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, w := range q.wakes {
		select {
		case w <- struct{}{}:
		default:
		}
	}
}

// subscribe returns a channel Notify signals, until cancel is called.
func (q *Queue) subscribe() (wake <-chan struct{}, cancel func()) {
	ch := make(chan struct{}, 1)
	q.mu.Lock()
	q.wakes = append(q.wakes, ch)
	q.mu.Unlock()
	return ch, func() {
		q.mu.Lock()
		defer q.mu.Unlock()
		for i, c := range q.wakes {
			if c == ch {
				q.wakes = append(q.wakes[:i], q.wakes[i+1:]...)
				return
			}
		}
	}
}

// claim takes one job of kinds that is pending and due, or running under a
// lapsed lease, oldest first; but first of a tenant running no job of kinds
// (in any worker), so that a tenant with many jobs queued takes every worker
// only while no other tenant waits. With perTenant > 0 a tenant already
// running that many jobs of kinds gets none, even when no other tenant
// waits. With rests, the resting tenants get none either
// (Worker.SetTenantRest); the rests are read after the running jobs,
// because a job's rest is recorded before its end: a job that ended
// between the two reads is seen resting. It returns false when there is
// none, and when the first rest ends (zero when none does).
func (q *Queue) claim(ctx context.Context, kinds []string, perTenant int, rests bool) (job doc, ok bool, restEnds time.Time, err error) {
	now := q.clock()
	running, err := q.runningByTenant(ctx, kinds, now)
	if err != nil {
		return doc{}, false, time.Time{}, err
	}
	var resting []string
	if rests {
		if resting, restEnds, err = q.resting(ctx, kinds, now); err != nil {
			return doc{}, false, time.Time{}, err
		}
	}
	job, ok, err = q.claimFrom(ctx, kinds, perTenant, running, resting, now)
	return job, ok, restEnds, err
}

// claimFrom is claim's choice, given the jobs running by tenant and the
// resting tenants.
func (q *Queue) claimFrom(ctx context.Context, kinds []string, perTenant int, running map[string]int, resting []string, now time.Time) (doc, bool, error) {
	busy, full := slices.Clone(resting), slices.Clone(resting)
	for t, n := range running {
		if slices.Contains(resting, t) {
			continue
		}
		busy = append(busy, t)
		if perTenant > 0 && n >= perTenant {
			full = append(full, t)
		}
	}
	if len(busy) > 0 {
		j, ok, err := q.claimDue(ctx, kinds, now, bson.M{"tenant": bson.M{"$nin": busy}})
		if err != nil || ok {
			return j, ok, err
		}
	}
	switch {
	case len(full) == 0:
		return q.claimDue(ctx, kinds, now, nil)
	case len(full) < len(busy):
		return q.claimDue(ctx, kinds, now, bson.M{"tenant": bson.M{"$nin": full}})
	}
	return doc{}, false, nil // every busy tenant is at its limit
}

// runningByTenant counts the jobs of kinds running under a live lease, by
// tenant.
func (q *Queue) runningByTenant(ctx context.Context, kinds []string, now time.Time) (map[string]int, error) {
	cur, err := q.coll.Find(ctx, bson.M{"state": jobs.Running, "kind": bson.M{"$in": kinds}, "leaseUntil": bson.M{"$gte": now},
		"tenant": bson.M{"$gt": ""}}, options.Find().SetProjection(bson.M{"tenant": 1}))
	if err != nil {
		return nil, fmt.Errorf("find running jobs: %w", err)
	}
	var running []doc
	if err := cur.All(ctx, &running); err != nil {
		return nil, fmt.Errorf("read running jobs: %w", err)
	}
	out := map[string]int{}
	for _, j := range running {
		out[j.Tenant]++
	}
	return out, nil
}

// claimDue takes the oldest due job of kinds that also matches extra: a
// job with a home only when this queue is its home or the home's claim
// lapsed.
func (q *Queue) claimDue(ctx context.Context, kinds []string, now time.Time, extra bson.M) (doc, bool, error) {
	f := bson.M{"kind": bson.M{"$in": kinds}, "$and": bson.A{
		bson.M{"$or": bson.A{
			bson.M{"state": jobs.Pending, "notBefore": bson.M{"$lte": now}},
			bson.M{"state": jobs.Running, "leaseUntil": bson.M{"$lt": now}},
		}},
		bson.M{"$or": bson.A{
			bson.M{"home": bson.M{"$in": bson.A{"", nil}}},
			bson.M{"home": q.owner},
			bson.M{"homeUntil": bson.M{"$lt": now}},
		}},
	}}
	for k, v := range extra {
		f[k] = v
	}
	cur, err := q.coll.Find(ctx, f, options.Find().SetSort(bson.D{{Key: "createdAt", Value: 1}}).SetLimit(8).
		SetProjection(bson.M{"payload": 0, "progress": 0, "result": 0}))
	if err != nil {
		return doc{}, false, fmt.Errorf("find due jobs: %w", err)
	}
	var due []doc
	if err := cur.All(ctx, &due); err != nil {
		return doc{}, false, fmt.Errorf("read due jobs: %w", err)
	}
	for _, d := range due {
		// Compare-and-set on what was read: exactly one worker wins the job.
		cond := bson.M{"_id": d.ID, "state": d.State, "owner": d.Owner, "leaseUntil": d.LeaseUntil}
		if d.Owner == "" {
			cond["owner"] = bson.M{"$in": bson.A{"", nil}}
		}
		set := bson.M{"state": jobs.Running, "owner": q.owner, "leaseUntil": now.Add(q.lease), "updatedAt": now}
		ok, err := q.cas(ctx, d.ID, cond, bson.M{"$set": set, "$inc": bson.M{"attempts": 1}})
		if err != nil {
			return doc{}, false, err
		}
		if !ok {
			continue // another worker was faster
		}
		var j doc
		if err := q.coll.FindOne(ctx, bson.M{"_id": d.ID}).Decode(&j); err != nil {
			return doc{}, false, fmt.Errorf("read job %s: %w", d.ID, err)
		}
		return j, true, nil
	}
	return doc{}, false, nil
}

// cas applies upd to job id when it matches cond; false when it does not.
func (q *Queue) cas(ctx context.Context, id string, cond, upd bson.M) (bool, error) {
	res, err := q.coll.UpdateOne(ctx, cond, upd)
	if err != nil {
		return false, fmt.Errorf("update job %s: %w", id, err)
	}
	return res.MatchedCount == 1, nil
}

// mine is the condition of a job this queue's worker holds.
func (q *Queue) mine(id string) bson.M {
	return bson.M{"_id": id, "owner": q.owner, "state": jobs.Running}
}

func (q *Queue) renew(ctx context.Context, id string) error {
	now := q.clock()
	ok, err := q.cas(ctx, id, q.mine(id), bson.M{"$set": bson.M{"leaseUntil": now.Add(q.lease), "updatedAt": now}})
	if err == nil && !ok {
		err = jobs.ErrLeaseLost
	}
	return err
}

// finish ends a job held by this worker: done with result, failed with err,
// or pending again (retry later, or handed back on shutdown).
// attempts is added to the job's attempts (-1: the run did not count).
func (q *Queue) finish(ctx context.Context, j doc, state string, result any, errText string, notBefore time.Time, attempts int) error {
	now := q.clock()
	set := bson.M{"state": state, "owner": "", "leaseUntil": time.Time{}, "updatedAt": now, "error": errText}
	if state == jobs.Pending {
		set["notBefore"] = notBefore
	} else {
		set["finishedAt"] = now
	}
	if result != nil {
		doc, err := toDoc(result)
		if err != nil {
			return fmt.Errorf("encode %s result: %w", j.Kind, err)
		}
		set["result"] = doc
	}
	upd := bson.M{"$set": set}
	if attempts != 0 {
		upd["$inc"] = bson.M{"attempts": attempts}
	}
	ok, err := q.cas(ctx, j.ID, q.mine(j.ID), upd)
	if err != nil {
		return err
	}
	if !ok {
		return jobs.ErrLeaseLost
	}
	// A worker may be waiting for this tenant's job to end.
	q.Notify()
	if state == jobs.Done || state == jobs.Failed {
		q.leaveHome(j.ID)
	}
	if (state == jobs.Done || state == jobs.Failed) && j.Key != "" {
		_, err = q.keys.DeleteOne(ctx, bson.M{"_id": j.Key, "job": j.ID})
		if err != nil {
			// Harmless: the next Enqueue of the key frees a key whose job finished.
			return fmt.Errorf("free job key %s: %w", j.Key, err)
		}
	}
	return nil
}

// keepHome records job id (of kind) as one whose home claim this queue's
// workers renew.
func (q *Queue) keepHome(id, kind string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.homes == nil {
		q.homes = map[string]string{}
	}
	q.homes[id] = kind
}

func (q *Queue) leaveHome(ids ...string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, id := range ids {
		delete(q.homes, id)
	}
}

// renewHomes extends the home claim of this queue's unfinished jobs of
// kinds by a lease, and forgets those that finished or moved on: one
// update, and a read only when it matched fewer than it named. It writes
// nothing when there are none.
func (q *Queue) renewHomes(ctx context.Context, kinds []string) error {
	q.mu.Lock()
	var ids []string
	for id, kind := range q.homes {
		if slices.Contains(kinds, kind) {
			ids = append(ids, id)
		}
	}
	q.mu.Unlock()
	if len(ids) == 0 {
		return nil
	}
	mine := bson.M{"_id": bson.M{"$in": ids}, "home": q.owner, "state": bson.M{"$in": bson.A{jobs.Pending, jobs.Running}}}
	res, err := q.coll.UpdateMany(ctx, mine, bson.M{"$set": bson.M{"homeUntil": q.clock().Add(q.lease)}})
	if err != nil {
		return fmt.Errorf("renew home jobs: %w", err)
	}
	if res.MatchedCount == int64(len(ids)) {
		return nil
	}
	// Some finished or moved on: read which are still here, forget the others.
	cur, err := q.coll.Find(ctx, mine, options.Find().SetProjection(bson.M{"_id": 1}))
	if err != nil {
		return fmt.Errorf("find home jobs: %w", err)
	}
	var live []doc
	if err := cur.All(ctx, &live); err != nil {
		return fmt.Errorf("read home jobs: %w", err)
	}
	var gone []string
	for _, id := range ids {
		if !slices.ContainsFunc(live, func(d doc) bool { return d.ID == id }) {
			gone = append(gone, id)
		}
	}
	q.leaveHome(gone...)
	return nil
}

func newID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// toDoc encodes v as a document to store in a field (a bson.Raw value in an
// update would be stored as binary).
func toDoc(v any) (bson.D, error) {
	raw, err := bson.Marshal(v)
	if err != nil {
		return nil, err
	}
	var d bson.D
	err = bson.Unmarshal(raw, &d)
	return d, err
}
