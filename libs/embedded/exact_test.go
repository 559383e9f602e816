package embedded_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
	"github.com/docspub/platform/libs/mongox"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// exactCase is a find (its filter, sort and limit) and a count of its
// filter, and how many of the two the exact pushdown answers while the
// documents' fields each hold one kind of scalar (clean) and after other
// kinds arrived (mixed).
type exactCase struct {
	name         string
	filter       bson.M
	sort         bson.D
	limit        int64
	clean, mixed int64
}

var exactCases = []exactCase{
	{"a tenant's live first page by position", bson.M{"_tombstone": bson.M{"$ne": true}, "organization": "big", "deleted": false},
		bson.D{{Key: "position", Value: 1}, {Key: "_id", Value: 1}}, 21, 2, 0},
	{"the same, descending", bson.M{"_tombstone": bson.M{"$ne": true}, "organization": "big", "deleted": false},
		bson.D{{Key: "position", Value: -1}, {Key: "_id", Value: -1}}, 5, 2, 0},
	{"by id, descending", bson.M{"organization": "big"}, bson.D{{Key: "_id", Value: -1}}, 10, 2, 0},
	{"a keyset page by id", bson.M{"$and": bson.A{bson.M{"organization": "big", "deleted": false}, bson.M{"_id": bson.M{"$gt": "big-0100"}}}},
		bson.D{{Key: "_id", Value: 1}}, 7, 2, 0},
	{"$in", bson.M{"organization": bson.M{"$in": bson.A{"small", "big"}}}, bson.D{{Key: "_id", Value: 1}}, 0, 2, 0},
	{"$eq and a flag", bson.M{"organization": bson.M{"$eq": "small"}, "deleted": true}, nil, 0, 2, 0},
	{"no such tenant", bson.M{"organization": "nobody"}, bson.D{{Key: "_id", Value: 1}}, 3, 2, 0},
	{"the whole collection", bson.M{}, bson.D{{Key: "position", Value: 1}, {Key: "_id", Value: 1}}, 3, 2, 1},
	{"tombstones alone: no index seeks them", bson.M{"_tombstone": bson.M{"$ne": true}}, nil, 0, 0, 0},
	{"a tombstone: its index of one field has no twin", bson.M{"_tombstone": true}, nil, 0, 0, 0},
	{"by title: strings sort by their bytes", bson.M{"organization": "big"}, bson.D{{Key: "title", Value: 1}, {Key: "_id", Value: 1}}, 4, 2, 0},
	{"a range of numbers", bson.M{"organization": "big", "position": bson.M{"$gt": int64(1_700_000_000_000_000_050)}}, bson.D{{Key: "_id", Value: 1}}, 0, 2, 0},
	{"a number", bson.M{"organization": "small", "position": int32(3)}, nil, 0, 2, 0},
	{"an unindexed field", bson.M{"organization": "big", "version": int64(1)}, bson.D{{Key: "_id", Value: 1}}, 2, 0, 0},
	{"an $or", bson.M{"$or": bson.A{bson.M{"organization": "small"}, bson.M{"deleted": true}}}, bson.D{{Key: "_id", Value: 1}}, 0, 0, 0},
	{"a keyset page after the first", bson.M{"organization": "big", "deleted": false, "$or": bson.A{
		bson.M{"position": bson.M{"$gt": int64(1_700_000_000_000_000_033)}},
		bson.M{"position": int64(1_700_000_000_000_000_033), "_id": bson.M{"$gt": "big-0100"}}}},
		bson.D{{Key: "position", Value: 1}, {Key: "_id", Value: 1}}, 7, 2, 0},
	{"the same, descending", bson.M{"organization": "big", "deleted": false, "$or": bson.A{
		bson.M{"position": bson.M{"$lt": int64(1_700_000_000_000_000_033)}},
		bson.M{"position": int64(1_700_000_000_000_000_033), "_id": bson.M{"$lt": "big-0100"}}}},
		bson.D{{Key: "position", Value: -1}, {Key: "_id", Value: -1}}, 7, 2, 0},
	{"an $or holding an $and and an $in", bson.M{"organization": "big", "$or": bson.A{
		bson.M{"$and": bson.A{bson.M{"deleted": true}, bson.M{"title": bson.M{"$gte": "Space 2"}}}},
		bson.M{"_id": bson.M{"$in": bson.A{"big-0001", "big-0002"}}}}}, bson.D{{Key: "_id", Value: 1}}, 0, 2, 0},
	{"an $or holding a {$ne: boolean}", bson.M{"organization": "big", "$or": bson.A{
		bson.M{"_tombstone": bson.M{"$ne": true}}, bson.M{"deleted": true}}}, nil, 0, 0, 0},
}

// exactDocs are a large tenant, a small one, deleted and tombstoned
// documents and equal positions (the _id decides), each field holding one
// kind of scalar.
func exactDocs() []any {
	var docs []any
	for i := range 300 {
		d := bson.M{"_id": fmt.Sprintf("big-%04d", i), "organization": "big", "deleted": i%7 == 0,
			"position": int64(1_700_000_000_000_000_000 + i/3), "title": fmt.Sprintf("Space %d", 300-i), "version": int64(1)}
		if i%50 == 0 {
			d["_tombstone"] = true
		}
		docs = append(docs, d)
	}
	for i := range 5 {
		docs = append(docs, bson.M{"_id": fmt.Sprintf("small-%d", i), "organization": "small", "deleted": i == 2,
			"position": int64(1_700_000_000_000_000_000 + i), "title": fmt.Sprintf("<T %d>", i), "version": int64(1)})
	}
	docs[301].(bson.M)["position"], docs[302].(bson.M)["position"] = int64(3), int64(-5) // numbers, not texts, sort
	return append(docs, bson.M{"_id": "no-position", "organization": "big", "deleted": false, "title": "T", "version": int64(1)})
}

// The exact pushdown (the count, sort and limit of a filter SQLite
// answers exactly) answers as the handler does alone: the same documents in
// the same order and the same counts, for filters it translates and for
// those it leaves to the handler, before and after documents holding
// arrays and other types arrive (which turn it off for those fields: an
// array's equality matches its elements).
func TestExactPushdownAnswersAsTheHandler(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	db := connect(t, startServer(t, "").URI).Database("exact")
	if err := mongox.EnsureIndexes(ctx, db, mongox.Keys("spaces", "organization", "deleted", "position", "_id"),
		mongox.Keys("spaces", "organization", "title"), mongox.Keys("spaces", "_tombstone")); err != nil {
		t.Fatal(err)
	}
	coll := db.Collection("spaces")
	if _, err := coll.InsertMany(ctx, exactDocs()); err != nil {
		t.Fatal(err)
	}
	for _, tc := range exactCases {
		compareExact(t, ctx, coll, tc, tc.clean)
	}

	// Other kinds arrive: an array and a number as organizations (one by
	// an update), a string as deleted, a double as position.
	if _, err := coll.InsertMany(ctx, []any{
		bson.M{"_id": "array", "organization": bson.A{"big", "x"}, "deleted": false, "position": int64(5), "title": "T"},
		bson.M{"_id": "number", "organization": 7, "deleted": "false", "position": 1.5, "title": "T"},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.UpdateOne(ctx, bson.M{"_id": "small-1"}, bson.M{"$set": bson.M{"organization": bson.A{"small"}}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range exactCases {
		compareExact(t, ctx, coll, tc, tc.mixed)
	}
}

// compareExact runs tc with the exact pushdown and without, and checks
// that both answer the same and that the pushdown answered want of them.
func compareExact(t *testing.T, ctx context.Context, coll *mongo.Collection, tc exactCase, want int64) {
	t.Helper()
	before := ferretdb.ExactPushdowns()
	ids, n := findAndCount(t, ctx, coll, tc)
	answered := ferretdb.ExactPushdowns() - before
	ferretdb.SetExactPushdown(false)
	wantIDs, wantN := findAndCount(t, ctx, coll, tc)
	ferretdb.SetExactPushdown(true)
	if !slices.Equal(ids, wantIDs) || n != wantN {
		t.Errorf("%s: exact pushdown finds %q and counts %d; the handler %q and %d", tc.name, ids, n, wantIDs, wantN)
	}
	if answered != want {
		t.Errorf("%s: the exact pushdown answered %d of the find and the count, want %d", tc.name, answered, want)
	}
}

// findAndCount returns the ids tc's find returns (sorted when tc has no
// sort) and tc's count.
func findAndCount(t *testing.T, ctx context.Context, coll *mongo.Collection, tc exactCase) ([]string, int64) {
	t.Helper()
	opts := options.Find().SetProjection(bson.M{"_id": 1})
	if tc.sort != nil {
		opts.SetSort(tc.sort)
	}
	if tc.limit > 0 {
		opts.SetLimit(tc.limit)
	}
	cur, err := coll.Find(ctx, tc.filter, opts)
	if err != nil {
		t.Fatal(err)
	}
	var docs []struct {
		ID any `bson:"_id"`
	}
	if err := cur.All(ctx, &docs); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range docs {
		ids = append(ids, fmt.Sprint(d.ID))
	}
	if tc.sort == nil {
		slices.Sort(ids)
	}
	n, err := coll.CountDocuments(ctx, tc.filter)
	if err != nil {
		t.Fatal(err)
	}
	return ids, n
}

// A delete whose filter is {_id: a string or an ObjectID} removes the
// document without reading it, and deletes what the usual path deletes:
// one document or none. Other filters take the usual path.
func TestDeleteByID(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	coll := connect(t, startServer(t, "").URI).Database("deletes").Collection("chunks")
	oid := bson.NewObjectID()
	if _, err := coll.InsertMany(ctx, []any{bson.M{"_id": "a", "data": make([]byte, 1<<20)}, bson.M{"_id": "b"},
		bson.M{"_id": oid}, bson.M{"_id": int32(1)}, bson.M{"_id": "c", "n": 1}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		filter bson.M
		many   bool
		n      int64
		byID   bool
	}{
		{"a string id", bson.M{"_id": "a"}, false, 1, true},
		{"the same again", bson.M{"_id": "a"}, false, 0, true},
		{"an ObjectID, many", bson.M{"_id": oid}, true, 1, true},
		{"a number: equal across kinds", bson.M{"_id": int64(1)}, false, 1, false},
		{"an operator", bson.M{"_id": bson.M{"$eq": "b"}}, false, 1, false},
		{"an id and another condition", bson.M{"_id": "c", "n": 2}, false, 0, false},
	} {
		before := ferretdb.DeletesByID()
		var res *mongo.DeleteResult
		var err error
		if tc.many {
			res, err = coll.DeleteMany(ctx, tc.filter)
		} else {
			res, err = coll.DeleteOne(ctx, tc.filter)
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if byID := ferretdb.DeletesByID() > before; res.DeletedCount != tc.n || byID != tc.byID {
			t.Errorf("%s: deleted %d (by id: %v), want %d (%v)", tc.name, res.DeletedCount, byID, tc.n, tc.byID)
		}
	}
	var left []bson.M
	cur, err := coll.Find(ctx, bson.M{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err == nil {
		err = cur.All(ctx, &left)
	}
	if err != nil || len(left) != 1 || left[0]["_id"] != "c" {
		t.Fatalf("left %v, %v; want c alone", left, err)
	}
}
