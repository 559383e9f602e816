package jobsmongo

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docspub/platform/libs/jobs"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/libs/waittest"
	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

type payload struct {
	Items int `bson:"items"`
}

type progress struct {
	Done int `bson:"done"`
}

func newQueue(t *testing.T, db mongox.DB, opts ...Option) *Queue {
	t.Helper()
	if err := mongox.EnsureIndexes(context.Background(), db.Database, Indexes("jobs")...); err != nil {
		t.Fatal(err)
	}
	return NewQueue(db, "jobs", opts...)
}

func startWorker(t *testing.T, q *Queue, h map[string]jobs.Handler) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w := q.NewWorker(h, 2, logx.Discard())
	w.SetPoll(20 * time.Millisecond)
	done := make(chan struct{})
	go func() { defer close(done); _ = w.Run(ctx) }()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); <-done }) }
	t.Cleanup(stop)
	return stop
}

func TestJobRunsDetachedAndKeyJoins(t *testing.T) {
	db := mongox.NewDB(mongotest.Database(t))
	q := newQueue(t, db)
	release := make(chan struct{})
	startWorker(t, q, map[string]jobs.Handler{"count": func(ctx context.Context, r *jobs.Run) error {
		var p payload
		if err := r.Payload(&p); err != nil {
			return err
		}
		select {
		case <-release:
		case <-ctx.Done():
			return ctx.Err()
		}
		r.SetResult(progress{Done: p.Items})
		return nil
	}})
	ctx := context.Background()
	j1, created, err := q.Enqueue(ctx, "count", "thing-1", payload{Items: 7})
	if err != nil || !created {
		t.Fatalf("Enqueue = %v, created %v", err, created)
	}
	j2, created, err := q.Enqueue(ctx, "count", "thing-1", payload{Items: 9})
	if err != nil || created || j2.ID != j1.ID {
		t.Fatalf("second Enqueue of the key = %s created %v err %v, want to join %s", j2.ID, created, err, j1.ID)
	}
	// The enqueuer gives up waiting; the job goes on.
	wctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	if _, err := q.Wait(wctx, j1.ID, 10*time.Millisecond); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait = %v, want the deadline", err)
	}
	cancel()
	close(release)
	done, err := q.Wait(ctx, j1.ID, 10*time.Millisecond)
	if err != nil || done.State != jobs.Done {
		t.Fatalf("job = %+v, %v; want done", done, err)
	}
	var res progress
	if err := done.Result.Decode(&res); err != nil || res.Done != 7 {
		t.Fatalf("result = %+v, %v", res, err)
	}
	// The key is free again: a new job starts.
	j3, created, err := q.Enqueue(ctx, "count", "thing-1", payload{Items: 1})
	if err != nil || !created || j3.ID == j1.ID {
		t.Fatalf("Enqueue after the end = %s created %v err %v", j3.ID, created, err)
	}
}

// A worker that dies holding a job (no hand-back, no renewal) loses it when
// its lease lapses; another takes it and resumes from the saved progress.
func TestDeadWorkersJobResumes(t *testing.T) {
	db := mongox.NewDB(mongotest.Database(t))
	dead := newQueue(t, db, WithLease(200*time.Millisecond))
	ctx := context.Background()
	job, _, err := dead.Enqueue(ctx, "steps", "", payload{Items: 10})
	if err != nil {
		t.Fatal(err)
	}
	claimed, ok, _, err := dead.claim(ctx, []string{"steps"}, 0, false)
	if err != nil || !ok || claimed.ID != job.ID {
		t.Fatalf("claim = %+v %v %v", claimed, ok, err)
	}
	if err := saveProgress(dead, claimed, progress{Done: 4}); err != nil {
		t.Fatal(err)
	}
	// The dead worker stops here. A live one (another replica) takes over.
	live := newQueue(t, db, WithLease(200*time.Millisecond))
	var resumedAt atomic.Int64
	resumedAt.Store(-1)
	startWorker(t, live, map[string]jobs.Handler{"steps": func(ctx context.Context, r *jobs.Run) error {
		var p progress
		if err := r.Progress(&p); err != nil {
			return err
		}
		resumedAt.Store(int64(p.Done))
		for p.Done < 10 {
			p.Done++
			if err := r.SaveProgress(ctx, p); err != nil {
				return err
			}
		}
		return nil
	}})
	got, err := live.Wait(ctx, job.ID, 20*time.Millisecond)
	if err != nil || got.State != jobs.Done || resumedAt.Load() != 4 || got.Attempts != 2 {
		t.Fatalf("job = %+v err %v resumed at %d; want done, resumed at 4, 2 attempts", got, err, resumedAt.Load())
	}
	// The dead worker, should it wake, can no longer write.
	if err := saveProgress(dead, claimed, progress{Done: 0}); !errors.Is(err, jobs.ErrLeaseLost) {
		t.Errorf("late write of the old owner = %v, want jobs.ErrLeaseLost", err)
	}
}

// A clean stop hands the job back at once: a restarted worker resumes it
// without waiting for the lease, and the interrupted run does not count.
func TestStopHandsBack(t *testing.T) {
	db := mongox.NewDB(mongotest.Database(t))
	q := newQueue(t, db, WithLease(time.Hour))
	started := make(chan struct{}, 1)
	blocking := map[string]jobs.Handler{"long": func(ctx context.Context, r *jobs.Run) error {
		if err := r.SaveProgress(ctx, progress{Done: 1}); err != nil {
			return err
		}
		started <- struct{}{}
		<-ctx.Done()
		return ctx.Err()
	}}
	stop := startWorker(t, q, blocking)
	ctx := context.Background()
	job, _, err := q.Enqueue(ctx, "long", "k", payload{})
	if err != nil {
		t.Fatal(err)
	}
	<-started
	stop()
	back, err := q.Get(ctx, job.ID)
	if err != nil || back.State != jobs.Pending || back.Owner != "" || back.Attempts != 0 {
		t.Fatalf("after stop = %+v %v; want pending, no owner, 0 attempts", back, err)
	}
	restarted := newQueue(t, db, WithLease(time.Hour))
	startWorker(t, restarted, map[string]jobs.Handler{"long": func(ctx context.Context, r *jobs.Run) error {
		var p progress
		if err := r.Progress(&p); err != nil || p.Done != 1 {
			return jobs.Permanent(errors.New("progress lost"))
		}
		return nil
	}})
	within, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	got, err := restarted.Wait(within, job.ID, 20*time.Millisecond)
	if err != nil || got.State != jobs.Done {
		t.Fatalf("after restart = %+v %v; want done", got, err)
	}
}

// A job handed back by a stopping worker leaves its tenant no rest: it
// resumes at once elsewhere (a rest as long as it ran would hold a long
// import back through a rolling deploy).
func TestStopLeavesNoRest(t *testing.T) {
	db := mongox.NewDB(mongotest.Database(t))
	q := newQueue(t, db)
	started := make(chan struct{}, 1)
	ctx, cancel := context.WithCancel(context.Background())
	w := q.NewWorker(map[string]jobs.Handler{"long": func(ctx context.Context, r *jobs.Run) error {
		started <- struct{}{}
		<-ctx.Done()
		return ctx.Err()
	}}, 1, logx.Discard())
	w.SetTenantRest(10)
	done := make(chan struct{})
	go func() { defer close(done); _ = w.Run(ctx) }()
	if _, _, err := q.Enqueue(context.Background(), "long", "", payload{}, jobs.Tenant("orgA")); err != nil {
		t.Fatal(err)
	}
	<-started
	cancel()
	<-done
	if n, err := q.rests.CountDocuments(context.Background(), bson.M{}); err != nil || n != 0 {
		t.Fatalf("rests after a stop = %d %v; want none", n, err)
	}
}

func TestRetriesThenFails(t *testing.T) {
	db := mongox.NewDB(mongotest.Database(t))
	now := time.Now()
	var clock atomic.Int64
	clock.Store(now.UnixNano())
	// The lease outlasts every step of the clock below: a step during an
	// attempt must not expire it and let a second worker loop take the job.
	q := newQueue(t, db, WithMaxAttempts(3), WithLease(24*time.Hour), WithClock(func() time.Time { return time.Unix(0, clock.Load()) }))
	var calls atomic.Int32
	startWorker(t, q, map[string]jobs.Handler{
		"flaky":  func(context.Context, *jobs.Run) error { calls.Add(1); return errors.New("upstream down") },
		"broken": func(context.Context, *jobs.Run) error { return jobs.Permanent(errors.New("bad input")) },
		"panics": func(context.Context, *jobs.Run) error { panic("boom") },
	})
	ctx := context.Background()
	flaky, _, _ := q.Enqueue(ctx, "flaky", "", payload{})
	broken, _, _ := q.Enqueue(ctx, "broken", "", payload{})
	panics, _, _ := q.Enqueue(ctx, "panics", "", payload{})
	waittest.Until(t, "three attempts of the flaky job", 10*time.Second, func() bool {
		clock.Add(int64(2 * time.Minute)) // past every retry wait
		q.Notify()
		j, err := q.Get(ctx, flaky.ID)
		return err == nil && j.State == jobs.Failed
	})
	if calls.Load() != 3 {
		t.Errorf("flaky ran %d times, want 3", calls.Load())
	}
	for _, id := range []string{broken.ID, panics.ID} {
		j, err := q.Wait(ctx, id, 10*time.Millisecond)
		if err != nil || j.State != jobs.Failed || j.Attempts != 1 || j.Error == "" {
			t.Errorf("job %s = %+v %v; want failed after one attempt with its error", id, j, err)
		}
	}
}

// Many workers (as on several replicas sharing the service's locks) never
// run one job twice at once.
func TestConcurrentWorkersRunEachJobOnce(t *testing.T) {
	db := mongox.NewDB(mongotest.Database(t))
	var runs sync.Map
	var dup atomic.Bool
	h := map[string]jobs.Handler{"once": func(ctx context.Context, r *jobs.Run) error {
		if _, loaded := runs.LoadOrStore(r.Job.ID, true); loaded {
			dup.Store(true)
		}
		return nil
	}}
	var queues []*Queue
	for range 3 {
		q := newQueue(t, db)
		queues = append(queues, q)
		startWorker(t, q, h)
	}
	ctx := context.Background()
	var ids []string
	for i := range 30 {
		j, _, err := queues[i%3].Enqueue(ctx, "once", "", payload{Items: i})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, j.ID)
	}
	for _, id := range ids {
		if j, err := queues[0].Wait(ctx, id, 10*time.Millisecond); err != nil || j.State != jobs.Done || j.Attempts != 1 {
			t.Fatalf("job %s = %+v %v", id, j, err)
		}
	}
	if dup.Load() {
		t.Error("a job ran twice")
	}
}

// TestTenantsRunningNothingGoFirst: a tenant with many jobs queued holds
// both workers; another tenant's job, queued after all of them, runs as soon
// as a worker is free, before the first tenant's next one.
func TestTenantsRunningNothingGoFirst(t *testing.T) {
	db := mongox.NewDB(mongotest.Database(t))
	q := newQueue(t, db)
	release := make(chan struct{})
	var aStarted atomic.Int32
	bSawA := make(chan int32, 1)
	startWorker(t, q, map[string]jobs.Handler{
		"a": func(ctx context.Context, r *jobs.Run) error {
			aStarted.Add(1)
			select {
			case <-release:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		},
		"b": func(ctx context.Context, r *jobs.Run) error {
			bSawA <- aStarted.Load()
			return nil
		},
	})
	ctx := context.Background()
	for range 10 {
		if _, _, err := q.Enqueue(ctx, "a", "", payload{}, jobs.Tenant("orgA")); err != nil {
			t.Fatal(err)
		}
	}
	waittest.Until(t, "both workers busy with orgA", 10*time.Second, func() bool { return aStarted.Load() == 2 })
	if _, _, err := q.Enqueue(ctx, "b", "", payload{}, jobs.Tenant("orgB")); err != nil {
		t.Fatal(err)
	}
	release <- struct{}{} // one of orgA's jobs ends: a worker is free
	select {
	case n := <-bSawA:
		if n != 2 {
			t.Fatalf("orgB's job started after %d of orgA's, want 2 (the ones running when it was queued)", n)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("orgB's job did not start")
	}
	close(release)
}

// TestTenantLimitPerKind: with a worker per kind and a tenant limit of one,
// a tenant runs at most one job of a kind even while no other tenant waits;
// its job of the other kind runs meanwhile in that kind's worker, and its
// next job starts as soon as the first ends.
func TestTenantLimitPerKind(t *testing.T) {
	db := mongox.NewDB(mongotest.Database(t))
	q := newQueue(t, db)
	release := make(chan struct{})
	var running, most atomic.Int32
	var fastDone atomic.Int32
	slow := func(ctx context.Context, r *jobs.Run) error {
		n := running.Add(1)
		defer running.Add(-1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		select {
		case <-release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, h := range []map[string]jobs.Handler{
		{"slow": slow},
		{"fast": func(ctx context.Context, r *jobs.Run) error { fastDone.Add(1); return nil }},
	} {
		w := q.NewWorker(h, 3, logx.Discard())
		w.SetPoll(time.Hour) // only Notify wakes it: a claim never waits for a poll
		w.SetTenantLimit(1)
		wg.Add(1)
		go func() { defer wg.Done(); _ = w.Run(ctx) }()
	}
	t.Cleanup(func() { cancel(); wg.Wait() })
	for range 3 {
		if _, _, err := q.Enqueue(ctx, "slow", "", payload{}, jobs.Tenant("orgA")); err != nil {
			t.Fatal(err)
		}
	}
	waittest.Until(t, "orgA's first slow job running", 10*time.Second, func() bool { return running.Load() == 1 })
	if _, _, err := q.Enqueue(ctx, "fast", "", payload{}, jobs.Tenant("orgA")); err != nil {
		t.Fatal(err)
	}
	waittest.Until(t, "orgA's fast job done while its slow one runs", 10*time.Second, func() bool { return fastDone.Load() == 1 })
	if _, _, err := q.Enqueue(ctx, "slow", "", payload{}, jobs.Tenant("orgB")); err != nil {
		t.Fatal(err)
	}
	waittest.Until(t, "orgB's slow job running beside orgA's", 10*time.Second, func() bool { return running.Load() == 2 })
	release <- struct{}{}
	release <- struct{}{}
	// orgA's second job starts on the Notify of the first one's end.
	waittest.Until(t, "orgA's second slow job running", 10*time.Second, func() bool { return running.Load() == 1 })
	release <- struct{}{}
	waittest.Until(t, "orgA's third slow job running", 10*time.Second, func() bool { return running.Load() == 1 })
	release <- struct{}{}
	waittest.Until(t, "all done", 10*time.Second, func() bool { return running.Load() == 0 })
	if m := most.Load(); m != 2 {
		t.Fatalf("at most %d slow jobs ran at once, want 2 (one per tenant)", m)
	}
}

// saveProgress is the write of the worker of q holding job.
func saveProgress(q *Queue, job doc, v any) error {
	_, err := q.saveProgress(context.Background(), job, v)
	return err
}

// TestTenantRest: with a rest of 1, a tenant's next job starts no sooner
// than its last one ran after that one's end, in either of two replicas'
// workers, and another tenant's job runs meanwhile.
func TestTenantRest(t *testing.T) {
	db := mongox.NewDB(mongotest.Database(t))
	q := newQueue(t, db)
	const ran = 300 * time.Millisecond
	var mu sync.Mutex
	type span struct {
		tenant     string
		start, end time.Time
	}
	var spans []span
	h := func(ctx context.Context, r *jobs.Run) error {
		s := span{tenant: r.Job.Tenant, start: time.Now()}
		if r.Job.Tenant == "orgA" {
			select { // orgA's jobs are costly
			case <-time.After(ran):
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		s.end = time.Now()
		mu.Lock()
		spans = append(spans, s)
		mu.Unlock()
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	var running sync.WaitGroup
	t.Cleanup(func() { cancel(); running.Wait() })
	for _, replica := range []*Queue{q, newQueue(t, db)} {
		w := replica.NewWorker(map[string]jobs.Handler{"parse": h}, 2, logx.Discard())
		w.SetPoll(20 * time.Millisecond) // each replica looks often
		w.SetTenantLimit(1)
		w.SetTenantRest(1)
		running.Go(func() { _ = w.Run(ctx) })
	}
	enqueue := func(tenant string) {
		if _, _, err := q.Enqueue(ctx, "parse", "", payload{}, jobs.Tenant(tenant)); err != nil {
			t.Fatal(err)
		}
	}
	enqueue("orgA")
	count := func(tenant string) int {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, s := range spans {
			if s.tenant == tenant {
				n++
			}
		}
		return n
	}
	waittest.Until(t, "orgA's first job done", 10*time.Second, func() bool { return count("orgA") == 1 })
	// Both enqueued after it ran: two replicas claiming at one instant
	// may each take one of a tenant's jobs (SetTenantLimit).
	enqueue("orgA")
	enqueue("orgB")
	waittest.Until(t, "orgB's job done while orgA rests", 10*time.Second, func() bool { return count("orgB") == 1 })
	waittest.Until(t, "orgA's second job done", 10*time.Second, func() bool { return count("orgA") == 2 })
	mu.Lock()
	defer mu.Unlock()
	var a []span
	for _, s := range spans {
		if s.tenant == "orgA" {
			a = append(a, s)
		}
	}
	if gap := a[1].start.Sub(a[0].end); gap < ran {
		t.Errorf("orgA's second job started %s after its first ended, which ran %s: want at least that", gap, a[0].end.Sub(a[0].start))
	}
}

// A job enqueued with jobs.Home waits for the workers of its own queue while
// that queue lives, even when they are busy; once its queue stops renewing
// the claim (its process died), another queue's worker takes it.
func TestHomeJobWaitsForItsQueue(t *testing.T) {
	db := mongox.NewDB(mongotest.Database(t))
	const lease = 300 * time.Millisecond
	home, other, gone := newQueue(t, db, WithLease(lease)), newQueue(t, db, WithLease(lease)), newQueue(t, db, WithLease(lease))
	ran := make(chan string, 4)
	runs := func(name string) jobs.Handler {
		return func(ctx context.Context, r *jobs.Run) error { ran <- name + " " + r.Job.ID; return nil }
	}
	release := make(chan struct{})
	block := func(ctx context.Context, r *jobs.Run) error {
		select {
		case <-release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	stopHome := startWorker(t, home, map[string]jobs.Handler{"block": block, "secret": runs("home")})
	ctx := context.Background()
	var blocking []string
	for range 2 { // the home worker's two slots
		j, _, err := home.Enqueue(ctx, "block", "", payload{})
		if err != nil {
			t.Fatal(err)
		}
		blocking = append(blocking, j.ID)
	}
	waittest.Until(t, "the home worker busy", 10*time.Second, func() bool {
		for _, id := range blocking {
			if j, err := home.Get(ctx, id); err != nil || j.State != jobs.Running {
				return false
			}
		}
		return true
	})
	startWorker(t, other, map[string]jobs.Handler{"secret": runs("other")})

	j, _, err := home.Enqueue(ctx, "secret", "", payload{}, jobs.Home())
	if err != nil {
		t.Fatal(err)
	}
	// Past the first claim's end, renewed, still waiting for its home.
	waittest.Until(t, "the home claim renewed past a lease", 10*time.Second, func() bool {
		got, err := home.Get(ctx, j.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.State != jobs.Pending || got.Owner != "" {
			t.Fatalf("the job was taken (%s by %q) while its home lived", got.State, got.Owner)
		}
		return got.HomeUntil.After(got.CreatedAt.Add(2 * lease))
	})
	close(release)
	if got := <-ran; got != "home "+j.ID {
		t.Fatalf("ran %q, want the home's run of %s", got, j.ID)
	}

	waittest.Until(t, "the home forgotten", 10*time.Second, func() bool {
		home.mu.Lock()
		defer home.mu.Unlock()
		return len(home.homes) == 0
	})
	stopHome()

	// A home with no worker left: its claim lapses and another queue's worker takes the job.
	enqueued := time.Now()
	j, _, err = gone.Enqueue(ctx, "secret", "", payload{}, jobs.Home())
	if err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-ran:
		if got != "other "+j.ID {
			t.Fatalf("ran %q, want the other queue's run of %s", got, j.ID)
		}
		if waited := time.Since(enqueued); waited < lease {
			t.Fatalf("taken after %s, before its home's claim of %s lapsed", waited, lease)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the job of a dead home was never taken")
	}
}
