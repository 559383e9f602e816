package kafkax

import (
	"context"
	"testing"

	"github.com/docspub/platform/libs/mongotest"
	"github.com/google/go-cmp/cmp"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// An event pushed after the relay read a document must survive the removal
// of the published ones, and keep a tombstone alive until it is published.
func TestRelayRemovesOnlyWhatItRead(t *testing.T) {
	db := mongotest.Database(t)
	coll := db.Collection("things")
	ctx := context.Background()
	r := NewRelay(db, nil, "things.events", []string{"things"}, nil)

	read := NewEvent("thing.deleted", "org1", "a", nil)
	if _, err := coll.InsertOne(ctx, bson.M{"_id": "a", "name": "a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.UpdateOne(ctx, bson.M{"_id": "a"}, Tombstone(read)); err != nil {
		t.Fatal(err)
	}
	var d pendingDoc
	if err := coll.FindOne(ctx, pendingFilter).Decode(&d); err != nil {
		t.Fatal(err)
	}

	late := NewEvent("thing.deleted", "org1", "a", nil)
	if _, err := coll.UpdateOne(ctx, bson.M{"_id": "a"}, bson.M{"$push": Push(late)}); err != nil {
		t.Fatal(err)
	}
	if err := r.remove(ctx, coll, d, 1); err != nil {
		t.Fatal(err)
	}
	if err := r.deleteTombstone(ctx, coll, d); err != nil {
		t.Fatal(err)
	}

	var got struct {
		Pending `bson:",inline"`
	}
	if err := coll.FindOne(ctx, bson.M{"_id": "a"}).Decode(&got); err != nil {
		t.Fatalf("tombstone with a pending event was deleted: %v", err)
	}
	var pending []string
	for _, ev := range got.Outbox {
		pending = append(pending, ev.ID)
	}
	if diff := cmp.Diff(pending, []string{late.ID}); diff != "" {
		t.Errorf("pending events (-got +want):\n%s", diff)
	}
}

func TestBackoff(t *testing.T) {
	for _, tc := range []struct {
		attempt int
		want    string
	}{{1, "50ms"}, {2, "100ms"}, {3, "200ms"}, {6, "1.6s"}, {7, "2s"}, {50, "2s"}} {
		if got := backoff(tc.attempt, minRelayBackoff, maxRelayBackoff).String(); got != tc.want {
			t.Errorf("backoff(%d) = %s, want %s", tc.attempt, got, tc.want)
		}
	}
}

func TestLockID(t *testing.T) {
	oid := bson.NewObjectID()
	for _, tc := range []struct {
		id   any
		want any
	}{{"a", "a"}, {oid, oid}, {int32(7), int64(7)}, {int64(8), int64(8)}} {
		typ, raw, err := bson.MarshalValue(tc.id)
		if err != nil {
			t.Fatal(err)
		}
		got := lockID(bson.RawValue{Type: typ, Value: raw})
		if got != tc.want {
			t.Errorf("lockID(%v) = %#v, want %#v", tc.id, got, tc.want)
		}
	}
}
