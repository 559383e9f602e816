package mongox_test

import (
	"context"
	"errors"
	"testing"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/google/go-cmp/cmp"
	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

func TestIndexes(t *testing.T) {
	ix := mongox.Keys("things", "organization", "position", "_id")
	want := bson.D{{Key: "organization", Value: 1}, {Key: "position", Value: 1}, {Key: "_id", Value: 1}}
	if ix.Collection != "things" || ix.Model.Options != nil {
		t.Errorf("Keys = %+v", ix)
	}
	if diff := cmp.Diff(ix.Model.Keys, want); diff != "" {
		t.Errorf("Keys keys (-got +want):\n%s", diff)
	}

	ctx := context.Background()
	db := mongotest.Database(t)
	if err := mongox.EnsureIndexes(ctx, db, mongox.Unique("users", "org", "email"), mongox.Keys("teams", "org")); err != nil {
		t.Fatal(err)
	}
	insert := func(coll, id, email string) error {
		_, err := db.Collection(coll).InsertOne(ctx, bson.M{"_id": id, "org": "o1", "email": email})
		return mongox.Err(err, coll)
	}
	for _, tc := range []struct {
		name, coll, id, email string
		want                  error
	}{
		{"first", "users", "u1", "a@x", nil},
		{"same keys in a unique index", "users", "u2", "a@x", apierr.ErrConflict},
		{"other keys in a unique index", "users", "u3", "b@x", nil},
		{"same keys in a plain index", "teams", "t1", "", nil},
		{"same keys again in a plain index", "teams", "t2", "", nil},
	} {
		if err := insert(tc.coll, tc.id, tc.email); !errors.Is(err, tc.want) {
			t.Errorf("%s: insert error %v, want %v", tc.name, err, tc.want)
		}
	}
}
