// Package migrate applies a service's schema migrations as versioned
// steps. A service declares an ordered list of Steps; Apply runs those its
// database has not recorded as done (in the Collection "_migrations"),
// one runner at a time (a lease document there), and Check tells a serving
// process whether it may serve on the database as it is.
//
// The rules (deployments/docs/operations/upgrades.md):
//
//   - A step is idempotent and resumable: stopped anywhere, running it
//     again finishes the work and changes nothing already done.
//   - A step that destroys data (drops what an older binary reads) is
//     Destructive and ships one release after the step that copied the
//     data: the previous image still works during a rolling upgrade and
//     after a rollback. Apply runs destructive steps only when told to
//     (`<service> migrate --destructive`).
//   - A step is Compatible when a binary serves correctly both while the
//     step is pending and after it ran (a backfill, a new index): a
//     serving process starts with compatible steps pending; with any other
//     step pending it refuses, asking for `<service> migrate`.
//   - A serving process refuses a database whose schema is newer than it
//     knows: a recorded step above its highest that is neither Compatible
//     nor Destructive.
package migrate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Collection is where a service's database records its applied steps
// (one document per version, _id the version) and the runners' lease
// (_id "lease").
const Collection = "_migrations"

// Step is one versioned migration.
type Step struct {
	// Version orders the steps: positive, strictly increasing in the list.
	Version int
	// Name says what the step does ("copy GridFS files to the blob store").
	Name string
	// Compatible: the service serves correctly while the step is pending
	// and after it ran, so a serving process starts with it pending.
	Compatible bool
	// Destructive: the step removes data the previous release read; Apply
	// runs it only with Options.Destructive (one release after the step
	// that copied that data). A pending destructive step never stops a
	// serving process, and one recorded never makes an older binary refuse.
	Destructive bool
	// Run does the work: idempotent, and resumable after a stop anywhere.
	Run func(ctx context.Context, db *mongo.Database) error
}

// Record is a step's document in Collection.
type Record struct {
	Version     int        `bson:"_id"`
	Name        string     `bson:"name"`
	StartedAt   time.Time  `bson:"startedAt"`
	FinishedAt  *time.Time `bson:"finishedAt,omitempty"`
	By          string     `bson:"by"`
	Compatible  bool       `bson:"compatible,omitempty"`
	Destructive bool       `bson:"destructive,omitempty"`
}

// Done reports whether the step finished.
func (r Record) Done() bool { return r.FinishedAt != nil }

// Validate reports a list of steps out of order, or one without a name or
// a function.
func Validate(steps []Step) error {
	last := 0
	for _, s := range steps {
		switch {
		case s.Version <= last:
			return fmt.Errorf("migrate: step %d (%s) after %d: versions must be positive and increasing", s.Version, s.Name, last)
		case s.Name == "":
			return fmt.Errorf("migrate: step %d has no name", s.Version)
		case s.Run == nil:
			return fmt.Errorf("migrate: step %d (%s) has no function", s.Version, s.Name)
		}
		last = s.Version
	}
	return nil
}

// Highest is the highest version of steps (0 without any).
func Highest(steps []Step) int {
	if len(steps) == 0 {
		return 0
	}
	return steps[len(steps)-1].Version
}

// Records returns the steps recorded in db, by version.
func Records(ctx context.Context, db *mongo.Database) ([]Record, error) {
	cur, err := db.Collection(Collection).Find(ctx, bson.M{"startedAt": bson.M{"$exists": true}},
		options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		return nil, fmt.Errorf("migrate: read %s: %w", Collection, err)
	}
	var out []Record
	if err := cur.All(ctx, &out); err != nil {
		return nil, fmt.Errorf("migrate: read %s: %w", Collection, err)
	}
	slices.SortFunc(out, func(a, b Record) int { return a.Version - b.Version })
	return out, nil
}

// NewerError is Check's answer on a database a newer binary migrated.
type NewerError struct{ Recorded, Known int }

func (e *NewerError) Error() string {
	return fmt.Sprintf("database schema version %d is newer than this binary's %d: roll forward, or restore", e.Recorded, e.Known)
}

// PendingError is Check's answer when steps this binary needs are pending.
type PendingError struct {
	Service string
	Steps   []Step
}

func (e *PendingError) Error() string {
	var names []string
	for _, s := range e.Steps {
		names = append(names, fmt.Sprintf("%d (%s)", s.Version, s.Name))
	}
	return fmt.Sprintf("database schema has steps pending that this binary needs: %s; run `%s migrate` first",
		strings.Join(names, ", "), e.Service)
}

// Pending returns the steps not done in records, in order; destructive
// ones only with destructive.
func Pending(steps []Step, records []Record, destructive bool) []Step {
	done := map[int]bool{}
	for _, r := range records {
		if r.Done() {
			done[r.Version] = true
		}
	}
	var out []Step
	for _, s := range steps {
		if !done[s.Version] && (destructive || !s.Destructive) {
			out = append(out, s)
		}
	}
	return out
}

// Check is what a serving process of service asks before it serves on db:
// a *NewerError when db holds a step above the binary's highest that is
// neither compatible nor destructive, a *PendingError when a step that is
// neither compatible nor destructive is pending, else nil.
func Check(ctx context.Context, db *mongo.Database, service string, steps []Step) error {
	if err := Validate(steps); err != nil {
		return err
	}
	records, err := Records(ctx, db)
	if err != nil {
		return err
	}
	if n := newest(records, Highest(steps)); n > 0 {
		return &NewerError{Recorded: n, Known: Highest(steps)}
	}
	var needed []Step
	for _, s := range Pending(steps, records, false) {
		if !s.Compatible {
			needed = append(needed, s)
		}
	}
	if len(needed) > 0 {
		return &PendingError{Service: service, Steps: needed}
	}
	return nil
}

// CheckNewer is the part of Check every serving process asks, steps or
// not (service.Open): a *NewerError when db holds a step above known, the
// binary's highest version, that is neither compatible nor destructive.
func CheckNewer(ctx context.Context, db *mongo.Database, known int) error {
	records, err := Records(ctx, db)
	if err != nil {
		return err
	}
	if n := newest(records, known); n > 0 {
		return &NewerError{Recorded: n, Known: known}
	}
	return nil
}

// IsNewer reports whether err is (or wraps) a *NewerError.
func IsNewer(err error) bool {
	var n *NewerError
	return errors.As(err, &n)
}
