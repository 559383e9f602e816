package spacehttp_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/docspub/platform/libs/apitest"
	"github.com/docspub/platform/libs/racetest"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/content/internal/space"
	"github.com/docspub/platform/services/content/internal/spacemongo"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// The race suite of the tree: each test runs two conflicting requests at
// once, racetest.Count() times, and checks the tree's invariants: no cycle,
// no space or collection in a deleted collection, no setting that depends
// on a parent the space no longer has.

// reset empties the tree before a repetition. The embedded database looks
// documents up by _id only and scans for anything else, so a suite that
// kept every repetition's spaces and collections would slow down with each.
func (e *env) reset() {
	e.t.Helper()
	for _, coll := range []string{spacemongo.Spaces, spacemongo.Collections, spacemongo.Revisions, spacemongo.TreeLocks} {
		if _, err := e.db.Collection(coll).DeleteMany(context.Background(), bson.M{}); err != nil {
			e.t.Fatal(err)
		}
	}
}

// parentOf reads a collection's parent ("" at the top).
func (e *env) parentOf(u user, id string) string {
	e.t.Helper()
	var c collectionBody
	e.ok(u, "GET", "/v1/collections/"+id, "", "", 200).Decode(e.t, &c)
	return c.Parent
}

func (e *env) gone(u user, path string) bool {
	e.t.Helper()
	return e.do(u, "GET", path, "").Status == 404
}

// Moving P under Q while Q moves under P: at most one wins; never a cycle.
func TestRaceMoveCollectionsIntoEachOther(t *testing.T) {
	e := newEnv(t)
	admin := e.member("ada", "org1", roles.Admin)
	var p, q collectionBody
	var pq, qp apitest.Response
	racetest.Run(t, func(int) {
		e.reset()
		p = e.createCollection(admin, "org1", `{"title":"P"}`)
		q = e.createCollection(admin, "org1", `{"title":"Q"}`)
	}, func(int) {
		pq = e.do(admin, "POST", "/v1/collections/"+p.ID+"/move", `{"parent":"`+q.ID+`"}`)
	}, func(int) {
		qp = e.do(admin, "POST", "/v1/collections/"+q.ID+"/move", `{"parent":"`+p.ID+`"}`)
	}, func(int) {
		if pq.Status == 200 && qp.Status == 200 {
			t.Errorf("both moves answered 200")
		}
		for _, r := range []apitest.Response{pq, qp} {
			if r.Status != 200 && r.Status != 400 && r.Status != 409 {
				t.Errorf("move answered %d %s", r.Status, r.Body)
			}
		}
		if e.parentOf(admin, p.ID) == q.ID && e.parentOf(admin, q.ID) == p.ID {
			t.Errorf("cycle: P under Q and Q under P")
		}
	})
}

// Deleting a collection while a space or a sub-collection is created in
// it: the creation or the deletion fails; never an item in a deleted
// collection.
func TestRaceDeleteCollectionAndCreateIn(t *testing.T) {
	for _, kind := range []string{"spaces", "collections"} {
		t.Run(kind, func(t *testing.T) {
			e := newEnv(t)
			admin := e.member("ada", "org1", roles.Admin)
			var col collectionBody
			var del, create apitest.Response
			racetest.Run(t, func(i int) {
				e.reset()
				col = e.createCollection(admin, "org1", fmt.Sprintf(`{"title":"C%d"}`, i))
			}, func(int) {
				del = e.do(admin, "DELETE", "/v1/collections/"+col.ID, "")
			}, func(int) {
				create = e.do(admin, "POST", "/v1/orgs/org1/"+kind, `{"title":"In","parent":"`+col.ID+`"}`)
			}, func(int) {
				if create.Status == 201 && e.gone(admin, "/v1/collections/"+col.ID) {
					t.Errorf("created in a collection that is gone (delete: %d)", del.Status)
				}
			})
		})
	}
}

// Moving a space into a collection while the collection is deleted.
func TestRaceDeleteCollectionAndMoveSpaceIn(t *testing.T) {
	e := newEnv(t)
	admin := e.member("ada", "org1", roles.Admin)
	var sp spaceBody
	var col collectionBody
	var del, move apitest.Response
	racetest.Run(t, func(i int) {
		e.reset()
		sp = e.createSpace(admin, "org1", `{"title":"S"}`)
		col = e.createCollection(admin, "org1", fmt.Sprintf(`{"title":"C%d"}`, i))
	}, func(int) {
		del = e.do(admin, "DELETE", "/v1/collections/"+col.ID, "")
	}, func(int) {
		move = e.do(admin, "POST", "/v1/spaces/"+sp.ID+"/move", `{"parent":"`+col.ID+`"}`)
	}, func(int) {
		var now spaceBody
		e.ok(admin, "GET", "/v1/spaces/"+sp.ID, "", "", 200).Decode(t, &now)
		if now.Parent != "" && e.gone(admin, "/v1/collections/"+now.Parent) {
			t.Errorf("space moved into a collection that is gone (delete: %d, move: %d)", del.Status, move.Status)
		}
	})
}

// Restoring a space while its collection is deleted: the space comes back
// into its collection or at the top, never into a deleted collection.
func TestRaceRestoreSpaceAndDeleteCollection(t *testing.T) {
	e := newEnv(t)
	admin := e.member("ada", "org1", roles.Admin)
	var sp spaceBody
	var col collectionBody
	racetest.Run(t, func(i int) {
		e.reset()
		col = e.createCollection(admin, "org1", fmt.Sprintf(`{"title":"C%d"}`, i))
		sp = e.createSpace(admin, "org1", `{"title":"S","parent":"`+col.ID+`"}`)
		e.ok(admin, "DELETE", "/v1/spaces/"+sp.ID, "", "", 205)
	}, func(int) {
		e.do(admin, "DELETE", "/v1/collections/"+col.ID, "")
	}, func(int) {
		e.do(admin, "POST", "/v1/spaces/"+sp.ID+"/restore", "")
	}, func(int) {
		var now spaceBody
		e.ok(admin, "GET", "/v1/spaces/"+sp.ID, "", "", 200).Decode(t, &now)
		if now.DeletedAt == nil && now.Parent != "" && e.gone(admin, "/v1/collections/"+now.Parent) {
			t.Errorf("space restored into a collection that is gone")
		}
	})
}

// Setting in-collection visibility while the space moves to the top: the
// visibility is only ever in-collection for a space in a collection.
func TestRaceVisibilityAndMoveToTop(t *testing.T) {
	e := newEnv(t)
	admin := e.member("ada", "org1", roles.Admin)
	var sp spaceBody
	var patch, move apitest.Response
	racetest.Run(t, func(int) {
		e.reset()
		col := e.createCollection(admin, "org1", `{"title":"C"}`)
		sp = e.createSpace(admin, "org1", `{"title":"S","parent":"`+col.ID+`"}`)
	}, func(int) {
		patch = e.do(admin, "PATCH", "/v1/spaces/"+sp.ID, `{"visibility":"in-collection"}`)
	}, func(int) {
		move = e.do(admin, "POST", "/v1/spaces/"+sp.ID+"/move", `{"parent":null}`)
	}, func(int) {
		var now spaceBody
		e.ok(admin, "GET", "/v1/spaces/"+sp.ID, "", "", 200).Decode(t, &now)
		if now.Visibility == "in-collection" && now.Parent == "" {
			t.Errorf("space at the top with in-collection visibility (patch %d, move %d)", patch.Status, move.Status)
		}
		if patch.Status != 200 && patch.Status != 400 && patch.Status != 409 {
			t.Errorf("patch answered %d %s", patch.Status, patch.Body)
		}
		if move.Status != 200 && move.Status != 409 {
			t.Errorf("move answered %d %s", move.Status, move.Body)
		}
	})
}

// Two PATCHes of one space (or collection) at once, each changing another
// field: neither is lost. Each answers 200 with its field stored, or 409
// (it lost the race twice, the store's one retry spent) with nothing of it
// stored.
func TestRaceTwoPatchesLoseNoUpdate(t *testing.T) {
	for _, tc := range []struct {
		kind       string
		create     func(e *env, u user) string
		fieldA, a  string // the field a PATCH sets and its value
		fieldB, b  string
		bodyA, bdB string
	}{
		{kind: "spaces", create: func(e *env, u user) string { return e.createSpace(u, "org1", `{"title":"S"}`).ID },
			fieldA: "title", a: "Renamed", fieldB: "gitbookSpaceId", b: "gb1",
			bodyA: `{"title":"Renamed"}`, bdB: `{"gitbookSpaceId":"gb1"}`},
		{kind: "collections", create: func(e *env, u user) string { return e.createCollection(u, "org1", `{"title":"C"}`).ID },
			fieldA: "title", a: "Renamed", fieldB: "description", b: "Described",
			bodyA: `{"title":"Renamed"}`, bdB: `{"description":"Described"}`},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			e := newEnv(t)
			admin := e.member("ada", "org1", roles.Admin)
			var id string
			var ra, rb apitest.Response
			both := 0
			racetest.Run(t, func(int) {
				e.reset()
				id = tc.create(e, admin)
			}, func(int) {
				ra = e.do(admin, "PATCH", "/v1/"+tc.kind+"/"+id, tc.bodyA)
			}, func(int) {
				rb = e.do(admin, "PATCH", "/v1/"+tc.kind+"/"+id, tc.bdB)
			}, func(int) {
				var now map[string]any
				e.ok(admin, "GET", "/v1/"+tc.kind+"/"+id, "", "", 200).Decode(t, &now)
				for _, r := range []struct {
					res          apitest.Response
					field, value string
				}{{ra, tc.fieldA, tc.a}, {rb, tc.fieldB, tc.b}} {
					switch got := now[r.field]; {
					case r.res.Status == 200 && got != r.value:
						t.Errorf("%s is %v after its PATCH answered 200, want %q: an update was lost", r.field, got, r.value)
					case r.res.Status == 409 && got == r.value:
						t.Errorf("%s is %q after its PATCH answered 409", r.field, r.value)
					case r.res.Status != 200 && r.res.Status != 409:
						t.Errorf("PATCH %s answered %d %s", r.field, r.res.Status, r.res.Body)
					}
				}
				if ra.Status == 200 && rb.Status == 200 {
					both++
				}
			})
			t.Logf("both PATCHes applied in %d of %d repetitions", both, racetest.Count())
		})
	}
}

// writeFirst is the real store, whose next UpdateSpace (once armed) is
// preceded by another write: what a concurrent request would do between
// the service's read of the space and its write.
type writeFirst struct {
	*spacemongo.Store
	armed  atomic.Bool
	before func()
}

func (s *writeFirst) UpdateSpace(ctx context.Context, id string, change space.Change[space.Space]) (space.Space, error) {
	if s.armed.CompareAndSwap(true, false) {
		s.before()
	}
	return s.Store.UpdateSpace(ctx, id, change)
}

// A PATCH whose space's access moved between its read and its write (here
// its default level, changed by another request) is a 409 and writes
// nothing: the caller's level was checked on what was read.
func TestPatchAfterTheAccessMovedIsAConflict(t *testing.T) {
	st := &writeFirst{}
	e := newEnvWith(t, func(s *spacemongo.Store) space.Store { st.Store = s; return st })
	admin := e.member("ada", "org1", roles.Admin)
	id := e.createSpace(admin, "org1", `{"title":"S"}`).ID
	st.before = func() { e.ok(admin, "PATCH", "/v1/spaces/"+id, `{"defaultLevel":"comment"}`, "", 200) }
	st.armed.Store(true)

	if r := e.do(admin, "PATCH", "/v1/spaces/"+id, `{"title":"Renamed"}`); r.Status != 409 {
		t.Fatalf("PATCH after the default level moved: %d %s, want 409", r.Status, r.Body)
	}
	var now spaceBody
	e.ok(admin, "GET", "/v1/spaces/"+id, "", "", 200).Decode(t, &now)
	if now.Title != "S" || now.DefaultLevel == nil || *now.DefaultLevel != "comment" {
		t.Fatalf("after the 409: title %q, default level %v; want S and comment", now.Title, now.DefaultLevel)
	}
	e.ok(admin, "PATCH", "/v1/spaces/"+id, `{"title":"Renamed"}`, "", 200) // read again, it passes
}
