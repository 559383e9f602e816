package embedded_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/embedded"
	"github.com/docspub/platform/libs/mongox"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// tenantDocs is a collection shaped as the services' are: an index led by
// organization (declared through mongox, as the stores declare theirs),
// one large tenant and small ones, and the values that could trip a
// comparison of JSON texts: escapes, non-ASCII, an organization held in an
// array (MongoDB's equality matches it) and one of another type.
func tenantDocs(t *testing.T, ctx context.Context) *mongo.Collection {
	t.Helper()
	client := connect(t, startServer(t, "").URI)
	db := client.Database("tenants")
	if err := mongox.EnsureIndexes(ctx, db, mongox.Keys("spaces", "organization", "deleted", "position", "_id"),
		mongox.Keys("spaces", "flag")); err != nil {
		t.Fatal(err)
	}
	coll := db.Collection("spaces")
	var docs []any
	for i := range 2000 {
		docs = append(docs, bson.M{"_id": fmt.Sprintf("big-%04d", i), "organization": "big", "deleted": i%10 == 0, "position": i, "version": 1})
	}
	for _, org := range []string{"small", `q"uo\te`, "<é&ü>", "emoji-🙂", "deleted"} {
		docs = append(docs, bson.M{"_id": "one-" + org, "organization": org, "deleted": false, "position": 1, "version": 1, "flag": org == "small"})
	}
	docs = append(docs,
		bson.M{"_id": "array", "organization": bson.A{"small", "other"}, "deleted": false, "position": 2, "version": 1, "flag": bson.A{false, true}},
		bson.M{"_id": "number", "organization": 7, "deleted": false, "position": 3, "version": 1, "flag": "true"},
		bson.M{"_id": "none", "deleted": false, "position": 4, "version": 1},
	)
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	return coll
}

// The embedded server answers equalities on indexed fields through the
// index, exactly as it answered them by reading every document: the same
// documents for each filter, arrays and escaped strings included.
func TestPushdownAnswersAsAScanDid(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	coll := tenantDocs(t, ctx)

	for _, tc := range []struct {
		name   string
		filter bson.M
		want   []string // ids, sorted
	}{
		{"a small tenant, its array member included", bson.M{"organization": "small"}, []string{"array", "one-small"}},
		{"quotes and backslashes", bson.M{"organization": `q"uo\te`}, []string{`one-q"uo\te`}},
		{"HTML characters and accents", bson.M{"organization": "<é&ü>"}, []string{"one-<é&ü>"}},
		{"emoji", bson.M{"organization": "emoji-🙂"}, []string{"one-emoji-🙂"}},
		{"no such tenant", bson.M{"organization": "nobody"}, nil},
		{"$eq", bson.M{"organization": bson.M{"$eq": "other"}}, []string{"array"}},
		{"$in", bson.M{"organization": bson.M{"$in": bson.A{"deleted", "other"}}}, []string{"array", "one-deleted"}},
		{"inside $and, with a keyset condition", bson.M{"$and": bson.A{
			bson.M{"organization": "big", "deleted": false},
			bson.M{"$or": bson.A{bson.M{"position": bson.M{"$gt": 1995}}, bson.M{"position": 1995, "_id": bson.M{"$gt": "big-1995"}}}},
		}}, []string{"big-1996", "big-1997", "big-1998", "big-1999"}},
		{"_id with a condition", bson.M{"_id": "big-0003", "version": 1}, []string{"big-0003"}},
		{"_id with a condition that fails", bson.M{"_id": "big-0003", "version": 2}, nil},
		{"_id $in", bson.M{"_id": bson.M{"$in": bson.A{"big-0001", "number", "nope"}}}, []string{"big-0001", "number"}},
		{"a number is not a string", bson.M{"organization": "7"}, nil},
		{"a number", bson.M{"organization": 7}, []string{"number"}},
		{"a missing field", bson.M{"organization": nil}, []string{"none"}},
		{"a boolean, held in an array too, not as a string", bson.M{"flag": true}, []string{"array", "one-small"}},
		{"$exists", bson.M{"flag": bson.M{"$exists": true}, "organization": bson.M{"$ne": "<é&ü>"}}, []string{"array", "number", "one-deleted", "one-emoji-🙂", `one-q"uo\te`, "one-small"}},
		{"$or of indexed fields", bson.M{"$or": bson.A{bson.M{"organization": "emoji-🙂"}, bson.M{"flag": true}}}, []string{"array", "one-emoji-🙂", "one-small"}},
		{"$or with a branch no index serves", bson.M{"$or": bson.A{bson.M{"organization": "emoji-🙂"}, bson.M{"position": 3}}}, []string{"big-0003", "number", "one-emoji-🙂"}},
		{"a tenant and a flag", bson.M{"organization": "small", "flag": false}, []string{"array"}},
		{"nested deeper than pushed down", deepAnd(12, bson.M{"organization": "small", "flag": true}), []string{"array", "one-small"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := findIDs(t, ctx, coll, tc.filter)
			if !slices.Equal(got, tc.want) {
				t.Errorf("find %v = %q, want %q", tc.filter, got, tc.want)
			}
			n, err := coll.CountDocuments(ctx, tc.filter)
			if err != nil || int(n) != len(tc.want) {
				t.Errorf("count %v = %d, %v; want %d", tc.filter, n, err, len(tc.want))
			}
		})
	}

	// Updates and deletes find their document through the same conditions.
	res, err := coll.UpdateOne(ctx, bson.M{"_id": "one-small", "version": 1}, bson.M{"$inc": bson.M{"version": 1}})
	if err != nil || res.ModifiedCount != 1 {
		t.Fatalf("compare-and-set update = %+v, %v; want one modified", res, err)
	}
	res, err = coll.UpdateOne(ctx, bson.M{"_id": "one-small", "version": 1}, bson.M{"$inc": bson.M{"version": 1}})
	if err != nil || res.MatchedCount != 0 {
		t.Fatalf("stale compare-and-set update = %+v, %v; want none matched", res, err)
	}
	del, err := coll.DeleteMany(ctx, bson.M{"organization": "small"})
	if err != nil || del.DeletedCount != 2 {
		t.Fatalf("delete the small tenant = %+v, %v; want 2 deleted (its array member too)", del, err)
	}
}

// A query by organization reads that tenant's rows through the index, and
// one by _id (with its compare-and-set condition) through the _id index:
// SQLite's plan, as the server's explain reports it, searches an index
// instead of scanning the table.
func TestPushdownUsesTheIndexes(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	coll := tenantDocs(t, ctx)
	for _, tc := range []struct {
		filter bson.M
		index  string
	}{
		{bson.M{"organization": "small", "deleted": false}, "organization_1_deleted_1_position_1__id_1"},
		{bson.M{"$and": bson.A{bson.M{"organization": "big"}, bson.M{"position": bson.M{"$gt": 5}}}}, "organization_1_deleted_1_position_1__id_1"},
		{bson.M{"organization": bson.M{"$in": bson.A{"a", "b"}}}, "organization_1_deleted_1_position_1__id_1"},
		{bson.M{"_id": "big-0001", "version": 1}, "_id_"},
		{bson.M{"flag": true}, "flag_1"},
		{bson.M{"$or": bson.A{bson.M{"organization": "a"}, bson.M{"flag": true}}}, "flag_1"},
		{bson.M{"$or": bson.A{bson.M{"organization": "a"}, bson.M{"flag": bson.M{"$exists": true}}}}, "organization_1"},
		// A tenant's index rather than a flag's.
		{bson.M{"organization": "small", "flag": true, "deleted": false}, "organization_1_deleted_1_position_1__id_1"},
	} {
		plan := explainPlan(t, ctx, coll, tc.filter)
		if !strings.Contains(plan, "USING INDEX") || !strings.Contains(plan, tc.index) || strings.Contains(plan, "SCAN") {
			t.Errorf("plan of %v = %s; want a search of index %s and no scan", tc.filter, plan, tc.index)
		}
	}
	// A field no index leads is filtered by the server, as before.
	if plan := explainPlan(t, ctx, coll, bson.M{"position": 3}); !strings.Contains(plan, "SCAN") {
		t.Errorf("plan of an unindexed field = %s; want a scan", plan)
	}
}

// An $or wider than SQLite's expression depth (1,000) is filtered by the
// server alone, not pushed down as SQL SQLite refuses.
func TestPushdownBoundsItsSQL(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db := connect(t, startServer(t, "").URI).Database("bounds")
	if err := mongox.EnsureIndexes(ctx, db, mongox.Keys("spaces", "organization")); err != nil {
		t.Fatal(err)
	}
	coll := db.Collection("spaces")
	if _, err := coll.InsertMany(ctx, []any{bson.M{"_id": "a", "organization": "x"}, bson.M{"_id": "b", "organization": "y"}}); err != nil {
		t.Fatal(err)
	}
	f := bson.M{"$or": wideOr(1500, bson.M{"organization": "y"})}
	if got := findIDs(t, ctx, coll, f); !slices.Equal(got, []string{"b"}) {
		t.Errorf("find of a 1,501-branch $or = %q, want [b]", got)
	}
}

// wideOr is n branches that match nothing, then last.
func wideOr(n int, last bson.M) bson.A {
	var or bson.A
	for i := range n {
		or = append(or, bson.M{"organization": fmt.Sprint("nobody-", i)})
	}
	return append(or, last)
}

// deepAnd nests f in n levels of $and and $or.
func deepAnd(n int, f bson.M) bson.M {
	for i := range n {
		if i%2 == 0 {
			f = bson.M{"$and": bson.A{f}}
		} else {
			f = bson.M{"$or": bson.A{f}}
		}
	}
	return f
}

// findIDs returns the sorted ids of the documents filter finds.
func findIDs(t *testing.T, ctx context.Context, coll *mongo.Collection, filter bson.M) []string {
	t.Helper()
	cur, err := coll.Find(ctx, filter, options.Find().SetProjection(bson.M{"_id": 1}))
	if err != nil {
		t.Fatal(err)
	}
	var docs []struct {
		ID string `bson:"_id"`
	}
	if err := cur.All(ctx, &docs); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range docs {
		ids = append(ids, d.ID)
	}
	slices.Sort(ids)
	return ids
}

// explainPlan is SQLite's plan of a find, as the server's explain gives it.
func explainPlan(t *testing.T, ctx context.Context, coll *mongo.Collection, filter bson.M) string {
	t.Helper()
	var out bson.M
	cmd := bson.D{{Key: "explain", Value: bson.D{{Key: "find", Value: coll.Name()}, {Key: "filter", Value: filter}}}}
	if err := coll.Database().RunCommand(ctx, cmd).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(out["queryPlanner"])
}

// startServer starts an embedded server of its own for a test, with its
// files in dir ("": a temporary one); it stops with the test.
func startServer(t *testing.T, dir string) *embedded.Mongo {
	t.Helper()
	srv, err := embedded.StartMongo(dir, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv
}

// connect returns a client of uri, disconnected when the test ends.
func connect(t *testing.T, uri string) *mongo.Client {
	t.Helper()
	client, err := mongox.Connect(context.Background(), uri)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Disconnect(context.Background()) })
	return client
}
