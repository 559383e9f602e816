package migrate

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// leaseID is the _id of the runners' lease document in Collection.
const leaseID = "lease"

// Runner applies a service's steps to its database.
type Runner struct {
	DB    *mongo.Database
	Steps []Step
	// Service names the service in messages ("content").
	Service string
	// By says who runs, in the records (default: host name and process id).
	By string
	// Lease is how long the lease lasts unless renewed (default 1 minute):
	// how soon another runner takes over from one that died.
	Lease time.Duration
	// Wait bounds how long Apply waits for another runner's lease (default
	// 15 minutes); past it, Apply fails.
	Wait time.Duration
	Log  *slog.Logger
	// Destructive runs the destructive steps too.
	Destructive bool
}

// ErrLeaseLost is why a step stops when another runner took the lease
// over (this one stalled past its lease).
var ErrLeaseLost = errors.New("migrate: lease lost to another runner")

func (r Runner) withDefaults() Runner {
	if r.By == "" {
		host, _ := os.Hostname()
		r.By = fmt.Sprintf("%s/%d", host, os.Getpid())
	}
	if r.Lease <= 0 {
		r.Lease = time.Minute
	}
	if r.Wait <= 0 {
		r.Wait = 15 * time.Minute
	}
	if r.Log == nil {
		r.Log = slog.New(slog.DiscardHandler)
	}
	return r
}

// Apply runs the pending steps in order under the lease (waiting while
// another runner holds it) and returns the versions it applied. A runner
// that waited finds done what the other applied: it applies only what is
// still missing, often nothing. It refuses a database a newer binary
// migrated (a *NewerError).
func (r Runner) Apply(ctx context.Context) ([]int, error) {
	r = r.withDefaults()
	if err := Validate(r.Steps); err != nil {
		return nil, err
	}
	l := &lease{coll: r.DB.Collection(Collection), holder: r.By + "#" + token(), ttl: r.Lease}
	if err := l.acquire(ctx, r.Wait); err != nil {
		return nil, err
	}
	lctx, stop := l.keep(ctx)
	defer func() {
		stop()
		l.release(context.WithoutCancel(ctx))
	}()
	records, err := Records(lctx, r.DB)
	if err != nil {
		return nil, err
	}
	if n := newest(records, Highest(r.Steps)); n > 0 {
		return nil, &NewerError{Recorded: n, Known: Highest(r.Steps)}
	}
	var applied []int
	for _, s := range Pending(r.Steps, records, r.Destructive) {
		if err := r.apply(lctx, s); err != nil {
			if errors.Is(context.Cause(lctx), ErrLeaseLost) {
				err = ErrLeaseLost
			}
			return applied, fmt.Errorf("migrate %s: step %d (%s): %w", r.Service, s.Version, s.Name, err)
		}
		applied = append(applied, s.Version)
	}
	return applied, nil
}

// newest is the highest recorded version above known that is neither
// compatible nor destructive (0 without one).
func newest(records []Record, known int) int {
	n := 0
	for _, rec := range records {
		if rec.Version > known && !rec.Compatible && !rec.Destructive {
			n = rec.Version
		}
	}
	return n
}

// apply records the step started, runs it and records it finished.
func (r Runner) apply(ctx context.Context, s Step) error {
	coll := r.DB.Collection(Collection)
	start := time.Now().UTC()
	r.Log.InfoContext(ctx, "migration step", "service", r.Service, "version", s.Version, "name", s.Name)
	if _, err := coll.UpdateOne(ctx, bson.M{"_id": s.Version}, bson.M{"$set": bson.M{"name": s.Name, "startedAt": start,
		"by": r.By, "compatible": s.Compatible, "destructive": s.Destructive}}, options.UpdateOne().SetUpsert(true)); err != nil {
		return err
	}
	if err := s.Run(ctx, r.DB); err != nil {
		return err
	}
	if context.Cause(ctx) != nil {
		return context.Cause(ctx)
	}
	_, err := coll.UpdateOne(ctx, bson.M{"_id": s.Version}, bson.M{"$set": bson.M{"finishedAt": time.Now().UTC()}})
	if err == nil {
		r.Log.InfoContext(ctx, "migration step done", "service", r.Service, "version", s.Version, "took", time.Since(start).String())
	}
	return err
}

func token() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
