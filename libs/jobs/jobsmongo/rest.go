package jobsmongo

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// restDoc is a tenant's rest from jobs of one kind (Worker.SetTenantRest),
// kept in the queue's collection+"_rests" so that every replica's workers
// honour it: a rest each worker kept to itself let the tenant's next job
// start at once in another replica, and a tenant replacing a costly spec
// in a loop held a worker all the time.
type restDoc struct {
	ID     string    `bson:"_id"` // kind + "/" + tenant
	Kind   string    `bson:"kind"`
	Tenant string    `bson:"tenant"`
	Until  time.Time `bson:"until"`
}

// rest makes tenant rest from jobs of kind until until (or later, when a
// rest recorded by another worker ends later).
func (q *Queue) rest(ctx context.Context, kind, tenant string, until time.Time) error {
	_, err := q.rests.UpdateOne(ctx, bson.M{"_id": kind + "/" + tenant},
		bson.M{"$set": bson.M{"kind": kind, "tenant": tenant}, "$max": bson.M{"until": until}}, options.UpdateOne().SetUpsert(true))
	if err != nil {
		return fmt.Errorf("record the rest of %s from %s jobs: %w", tenant, kind, err)
	}
	return nil
}

// resting returns the tenants resting at now from jobs of kinds and when
// the first of those rests ends (zero when none does). It deletes the
// rests that ended, so that the collection holds only the tenants whose
// jobs ended lately.
func (q *Queue) resting(ctx context.Context, kinds []string, now time.Time) (tenants []string, next time.Time, err error) {
	cur, err := q.rests.Find(ctx, bson.M{"kind": bson.M{"$in": kinds}})
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("find resting tenants: %w", err)
	}
	var rests []restDoc
	if err := cur.All(ctx, &rests); err != nil {
		return nil, time.Time{}, fmt.Errorf("read resting tenants: %w", err)
	}
	var ended bson.A
	for _, r := range rests {
		if !r.Until.After(now) {
			ended = append(ended, r.ID)
			continue
		}
		tenants = append(tenants, r.Tenant)
		if next.IsZero() || r.Until.Before(next) {
			next = r.Until
		}
	}
	if len(ended) > 0 {
		// Only the rests still ended: one renewed meanwhile stays.
		if _, err := q.rests.DeleteMany(ctx, bson.M{"_id": bson.M{"$in": ended}, "until": bson.M{"$lte": now}}); err != nil {
			return nil, time.Time{}, fmt.Errorf("delete ended rests: %w", err)
		}
	}
	return tenants, next, nil
}
