package gitsyncmongo_test

import (
	"context"
	"testing"
	"time"

	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/jobs"
	"github.com/docspub/platform/libs/jobs/jobsmongo"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/services/integrations/internal/access"
	"github.com/docspub/platform/services/integrations/internal/gitsync"
	"github.com/docspub/platform/services/integrations/internal/gitsyncmongo"
)

// TestAnEndedJobStillQueuedIsWaitedFor: a worker records a job's end on
// the space's state before the queue marks the job finished. A client
// that read the end on git/info and at once starts the next operation
// gets that operation started (after the queue lets the ended job go),
// not "another Git operation is running" (which a client reading git/info
// would take for the next operation's end).
func TestAnEndedJobStillQueuedIsWaitedFor(t *testing.T) {
	ctx := t.Context()
	db := mongotest.DB(t)
	reads := &signalingStore{Store: gitsyncmongo.NewStore(db, nil), read: make(chan struct{}, 1)}
	queue := jobsmongo.NewQueue(db, "jobs")
	svc := gitsync.New(reads, oneSpace{}, queue, gitsync.Config{}, nil)
	caller := access.Caller{UserID: "u1", Roles: map[string]string{"o1": "admin"}}
	url, ref := "https://git.example.com/docs.git", "refs/heads/main"
	now := time.Now().UTC()
	if err := svc.Import(ctx, caller, "sp1", gitsync.Request{URL: &url, Ref: &ref, Timestamp: &now}); err != nil {
		t.Fatal(err)
	}
	first, ok, err := queue.Active(ctx, "git/sp1")
	if err != nil || !ok {
		t.Fatalf("the first import's job: %v %v", ok, err)
	}

	// A worker takes the job, records its end on the state and is held
	// before it returns (the queue still holds the job).
	release := make(chan struct{})
	recorded := make(chan struct{})
	store := gitsyncmongo.NewStore(db, nil)
	worker := queue.NewWorker(map[string]jobs.Handler{gitsync.JobImport: func(ctx context.Context, r *jobs.Run) error {
		if r.Job.ID != first.ID { // the next import's job: left running
			<-ctx.Done()
			return ctx.Err()
		}
		if err := store.Update(ctx, "sp1", func(st *gitsync.State) (*kafkax.Event, error) {
			st.Operation.State = gitsync.OpSuccess
			return nil, nil
		}); err != nil {
			return err
		}
		close(recorded)
		select {
		case <-release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}}, 1, nil)
	wctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = worker.Run(wctx) }()
	defer func() { stop(); <-done }()
	waitFor(t, recorded, "the job's end on the state")

	older := now.Add(-time.Hour)
	result := make(chan error, 1)
	select { // forget the reads before this one
	case <-reads.read:
	default:
	}
	go func() {
		result <- svc.Import(ctx, caller, "sp1", gitsync.Request{URL: &url, Ref: &ref, Timestamp: &older})
	}()
	select {
	case err := <-result:
		t.Fatalf("the next import while the ended job was queued: %v, want it to wait for the job", err)
	case <-reads.read: // it read the state: it knows the job ended
	case <-time.After(10 * time.Second):
		t.Fatal("the next import neither returned nor read the state")
	}
	close(release)
	select {
	case err := <-result:
		if err != nil {
			t.Fatalf("the next import: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the next import did not start once the job left the queue")
	}
	next, ok, err := queue.Active(ctx, "git/sp1")
	if err != nil || !ok || next.ID == first.ID {
		t.Fatalf("the next import's job: %+v %v %v (first %s)", next, ok, err, first.ID)
	}
	if st, err := reads.Get(ctx, "sp1"); err != nil || st.Operation == nil || st.Operation.Job != next.ID || st.Operation.State != gitsync.OpRunning {
		t.Fatalf("the state after the next import: %+v %v", st.Operation, err)
	}
}

func waitFor(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("no %s within 10 s", what)
	}
}

// signalingStore is the real store telling the test each time a state
// is read.
type signalingStore struct {
	*gitsyncmongo.Store
	read chan struct{}
}

func (s *signalingStore) Get(ctx context.Context, space string) (gitsync.State, error) {
	st, err := s.Store.Get(ctx, space)
	select {
	case s.read <- struct{}{}:
	default:
	}
	return st, err
}

// oneSpace is content answering for one space its caller may sync.
type oneSpace struct{ contentPort }

type contentPort = gitsync.Content

func (oneSpace) Access(context.Context, access.Caller, string) (contentapi.GitAccess, error) {
	return contentapi.GitAccess{Space: "sp1", Organization: "o1", CanSync: true}, nil
}
