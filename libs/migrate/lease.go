package migrate

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// lease is the one document that lets a single runner apply steps. It is
// taken by inserting it (the unique _id makes one insert win),
// renewed by its holder, deleted when done; one past its time (its holder
// died) is deleted by the next runner, which then inserts its own.
type lease struct {
	coll   *mongo.Collection
	holder string
	ttl    time.Duration
}

type leaseDoc struct {
	ID     string    `bson:"_id"`
	Holder string    `bson:"holder"`
	Until  time.Time `bson:"until"`
}

// acquire takes the lease, polling while another holds it, for at most wait.
func (l *lease) acquire(ctx context.Context, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	poll := min(max(l.ttl/20, 20*time.Millisecond), time.Second)
	for {
		_, err := l.coll.InsertOne(ctx, leaseDoc{ID: leaseID, Holder: l.holder, Until: time.Now().Add(l.ttl).UTC()})
		if err == nil {
			return nil
		}
		if !mongo.IsDuplicateKeyError(err) {
			return fmt.Errorf("migrate: take the lease: %w", err)
		}
		var cur leaseDoc
		err = l.coll.FindOne(ctx, bson.M{"_id": leaseID}).Decode(&cur)
		switch {
		case errors.Is(err, mongo.ErrNoDocuments):
			continue
		case err != nil:
			return fmt.Errorf("migrate: read the lease: %w", err)
		case time.Now().After(cur.Until):
			// Its holder died: remove that very lease (not one taken since).
			if _, err := l.coll.DeleteOne(ctx, bson.M{"_id": leaseID, "holder": cur.Holder, "until": cur.Until}); err != nil {
				return fmt.Errorf("migrate: remove an expired lease: %w", err)
			}
			continue
		case time.Now().After(deadline):
			return fmt.Errorf("migrate: another runner (%s) still holds the lease after %s", cur.Holder, wait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(poll):
		}
	}
}

// keep renews the lease every third of its time until stop; the context
// it returns ends (cause ErrLeaseLost) when the lease was lost.
func (l *lease) keep(ctx context.Context) (context.Context, func()) {
	lctx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(l.ttl / 3)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-lctx.Done():
				return
			case <-t.C:
			}
			res, err := l.coll.UpdateOne(lctx, bson.M{"_id": leaseID, "holder": l.holder},
				bson.M{"$set": bson.M{"until": time.Now().Add(l.ttl).UTC()}})
			if err == nil && res.MatchedCount == 0 {
				cancel(ErrLeaseLost)
				return
			}
		}
	}()
	return lctx, func() { close(done); cancel(nil) }
}

// release deletes the lease if this runner still holds it.
func (l *lease) release(ctx context.Context) {
	_, _ = l.coll.DeleteOne(ctx, bson.M{"_id": leaseID, "holder": l.holder})
}
