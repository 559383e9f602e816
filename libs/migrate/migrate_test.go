package migrate_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docspub/platform/libs/migrate"
	"github.com/docspub/platform/libs/mongotest"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

// counted is a step that counts its runs.
func counted(v int, n *atomic.Int32) migrate.Step {
	return migrate.Step{Version: v, Name: fmt.Sprintf("step %d", v), Run: func(context.Context, *mongo.Database) error {
		n.Add(1)
		return nil
	}}
}

// Each step runs once, is recorded with who ran it and when, and a second
// run applies nothing.
func TestApplyOnce(t *testing.T) {
	ctx := context.Background()
	db := mongotest.Database(t)
	var a, b atomic.Int32
	r := migrate.Runner{DB: db, Service: "test", By: "me", Steps: []migrate.Step{counted(1, &a), counted(2, &b)}}
	if err := migrate.Check(ctx, db, "test", r.Steps); err == nil {
		t.Fatal("Check on a database with steps pending: nil")
	}
	if got, err := r.Apply(ctx); err != nil || !slices.Equal(got, []int{1, 2}) {
		t.Fatalf("Apply = %v, %v", got, err)
	}
	if got, err := r.Apply(ctx); err != nil || len(got) != 0 {
		t.Fatalf("second Apply = %v, %v; want nothing", got, err)
	}
	if a.Load() != 1 || b.Load() != 1 {
		t.Fatalf("runs %d, %d; want once each", a.Load(), b.Load())
	}
	recs, err := migrate.Records(ctx, db)
	if err != nil || len(recs) != 2 {
		t.Fatalf("records %+v, %v", recs, err)
	}
	for _, rec := range recs {
		if !rec.Done() || rec.By != "me" || rec.StartedAt.IsZero() || rec.Name == "" {
			t.Errorf("record %+v", rec)
		}
	}
	if err := migrate.Check(ctx, db, "test", r.Steps); err != nil {
		t.Fatalf("Check once applied: %v", err)
	}
	if n, _ := db.Collection(migrate.Collection).CountDocuments(ctx, bson.M{"_id": "lease"}); n != 0 {
		t.Fatal("the lease is left after Apply")
	}
}

// Runners started together (replicas, init containers) apply each step
// once: one holds the lease, the others wait for it and find the work done.
func TestApplyConcurrent(t *testing.T) {
	ctx := context.Background()
	db := mongotest.Database(t)
	var a, b atomic.Int32
	steps := []migrate.Step{counted(1, &a), counted(2, &b)}
	var wg sync.WaitGroup
	errs := make([]error, 4)
	applied := make([][]int, 4)
	for i := range errs {
		wg.Go(func() {
			r := migrate.Runner{DB: db, Service: "test", By: fmt.Sprint("runner ", i), Steps: steps, Lease: time.Second}
			applied[i], errs[i] = r.Apply(ctx)
		})
	}
	wg.Wait()
	total := 0
	for i, err := range errs {
		if err != nil {
			t.Fatalf("runner %d: %v", i, err)
		}
		total += len(applied[i])
	}
	if a.Load() != 1 || b.Load() != 1 || total != 2 {
		t.Fatalf("runs %d, %d, applied %v; want each step once", a.Load(), b.Load(), applied)
	}
}

// A step that failed midway is recorded started, not finished; the next
// run resumes it (the step picks up where it stopped) and goes on.
func TestApplyResumesFailedStep(t *testing.T) {
	ctx := context.Background()
	db := mongotest.Database(t)
	var first, last atomic.Int32
	fail := true
	resumable := migrate.Step{Version: 2, Name: "copy items", Run: func(ctx context.Context, db *mongo.Database) error {
		for i := range 10 {
			if n, err := db.Collection("copied").CountDocuments(ctx, bson.M{"_id": i}); err != nil || n > 0 {
				if err != nil {
					return err
				}
				continue
			}
			if i == 5 && fail {
				return errors.New("stopped midway")
			}
			if _, err := db.Collection("copied").InsertOne(ctx, bson.M{"_id": i}); err != nil {
				return err
			}
		}
		return nil
	}}
	r := migrate.Runner{DB: db, Service: "test", Steps: []migrate.Step{counted(1, &first), resumable, counted(3, &last)}}
	if got, err := r.Apply(ctx); err == nil || !slices.Equal(got, []int{1}) {
		t.Fatalf("Apply with a failing step = %v, %v", got, err)
	}
	var pending *migrate.PendingError
	if err := migrate.Check(ctx, db, "test", r.Steps); !errors.As(err, &pending) || len(pending.Steps) != 2 {
		t.Fatalf("Check after the failure: %v", err)
	}
	fail = false
	if got, err := r.Apply(ctx); err != nil || !slices.Equal(got, []int{2, 3}) {
		t.Fatalf("Apply again = %v, %v; want 2 and 3", got, err)
	}
	if n, _ := db.Collection("copied").CountDocuments(ctx, bson.M{}); n != 10 || first.Load() != 1 || last.Load() != 1 {
		t.Fatalf("%d items copied, runs %d, %d", n, first.Load(), last.Load())
	}
}

// A binary older than the database's schema refuses it, serving or
// migrating, unless the newer steps were compatible or destructive.
func TestNewerSchemaRefused(t *testing.T) {
	ctx := context.Background()
	db := mongotest.Database(t)
	var n atomic.Int32
	newer := migrate.Runner{DB: db, Service: "test", Steps: []migrate.Step{counted(1, &n), counted(2, &n), counted(3, &n)}}
	if _, err := newer.Apply(ctx); err != nil {
		t.Fatal(err)
	}
	older := []migrate.Step{counted(1, &n), counted(2, &n)}
	const want = "database schema version 3 is newer than this binary's 2: roll forward, or restore"
	err := migrate.Check(ctx, db, "test", older)
	if err == nil || err.Error() != want || !migrate.IsNewer(err) {
		t.Fatalf("Check = %v; want %q", err, want)
	}
	if _, err := (migrate.Runner{DB: db, Service: "test", Steps: older}).Apply(ctx); !migrate.IsNewer(err) {
		t.Fatalf("Apply of the older binary = %v; want refused", err)
	}

	// A newer compatible or destructive step does not stop an older binary.
	db2 := mongotest.Database(t)
	steps := []migrate.Step{counted(1, &n), counted(2, &n), counted(3, &n), counted(4, &n)}
	steps[2].Compatible, steps[3].Destructive = true, true
	if _, err := (migrate.Runner{DB: db2, Service: "test", Steps: steps, Destructive: true}).Apply(ctx); err != nil {
		t.Fatal(err)
	}
	if err := migrate.Check(ctx, db2, "test", older); err != nil {
		t.Fatalf("Check of the older binary after compatible and destructive steps: %v", err)
	}
}

// Destructive steps wait for --destructive; pending compatible and
// destructive steps let a serving process start, others do not.
func TestDestructiveAndCompatible(t *testing.T) {
	ctx := context.Background()
	db := mongotest.Database(t)
	var n atomic.Int32
	steps := []migrate.Step{counted(1, &n), counted(2, &n), counted(3, &n)}
	steps[1].Destructive = true
	steps[2].Compatible = true
	r := migrate.Runner{DB: db, Service: "test", Steps: steps}
	var pending *migrate.PendingError
	if err := migrate.Check(ctx, db, "test", steps); !errors.As(err, &pending) || len(pending.Steps) != 1 ||
		err.Error() != "database schema has steps pending that this binary needs: 1 (step 1); run `test migrate` first" {
		t.Fatalf("Check = %v", err)
	}
	if got, err := r.Apply(ctx); err != nil || !slices.Equal(got, []int{1, 3}) {
		t.Fatalf("Apply = %v, %v; want the destructive step left", got, err)
	}
	if err := migrate.Check(ctx, db, "test", steps); err != nil {
		t.Fatalf("Check with the destructive step pending: %v", err)
	}
	r.Destructive = true
	if got, err := r.Apply(ctx); err != nil || !slices.Equal(got, []int{2}) {
		t.Fatalf("Apply --destructive = %v, %v", got, err)
	}
	if err := migrate.Validate([]migrate.Step{counted(2, &n), counted(1, &n)}); err == nil {
		t.Fatal("Validate of steps out of order: nil")
	}
}

// The lease of a runner that died is taken over once past its time.
func TestExpiredLeaseTakenOver(t *testing.T) {
	ctx := context.Background()
	db := mongotest.Database(t)
	if _, err := db.Collection(migrate.Collection).InsertOne(ctx, bson.M{"_id": "lease", "holder": "dead",
		"until": time.Now().Add(-time.Second).UTC()}); err != nil {
		t.Fatal(err)
	}
	var n atomic.Int32
	r := migrate.Runner{DB: db, Service: "test", Steps: []migrate.Step{counted(1, &n)}, Wait: time.Second}
	if got, err := r.Apply(ctx); err != nil || len(got) != 1 {
		t.Fatalf("Apply past a dead runner's lease = %v, %v", got, err)
	}
	if _, err := db.Collection(migrate.Collection).InsertOne(ctx, bson.M{"_id": "lease", "holder": "alive",
		"until": time.Now().Add(time.Hour).UTC()}); err != nil {
		t.Fatal(err)
	}
	r.Wait = 100 * time.Millisecond
	if _, err := r.Apply(ctx); err == nil {
		t.Fatal("Apply while another runner holds the lease past Wait: nil")
	}
}
