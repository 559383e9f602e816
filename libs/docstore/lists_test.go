package docstore_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/docspub/platform/libs/docstore"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/waittest"
	"go.mongodb.org/mongo-driver/v2/bson"
)

const owned = "owned"

// Owned is a document of a tenant.
type Owned struct {
	ID   string `bson:"_id"`
	Org  string `bson:"organization"`
	Rank int    `bson:"rank"`
}

// A tenant's kept pages are served until a write of one of its documents
// through the store (insert, update, Modify, removal, delete), which shows
// at once, or another instance's told by TenantChanged; another tenant's
// writes leave them kept; the TTL bounds what nothing told.
func TestPageCached(t *testing.T) {
	ctx := context.Background()
	s := docstore.New(mongotest.DB(t), map[string]string{owned: "owned"}, nil)
	s.CacheLists(owned, 100, 1<<20, time.Hour)
	for _, d := range []Owned{{"a1", "a", 1}, {"a2", "a", 2}, {"b1", "b", 1}} {
		if err := s.Insert(ctx, owned, d); err != nil {
			t.Fatal(err)
		}
	}
	page := func(org string) []int {
		t.Helper()
		items, n, err := docstore.PageCached[Owned](ctx, s, owned, bson.M{"organization": org},
			docstore.Keyset{Field: "rank", Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		ranks := []int{}
		for _, it := range items {
			ranks = append(ranks, it.Rank)
		}
		if n != len(items) {
			t.Fatalf("count %d of %d items", n, len(items))
		}
		return ranks
	}
	want := func(org string, ranks ...int) {
		t.Helper()
		if got := page(org); !slices.Equal(got, ranks) {
			t.Fatalf("%s's page %v, want %v", org, got, ranks)
		}
	}
	// Another instance's write, untold.
	behind := func(id string, rank int) {
		t.Helper()
		if _, err := s.C(owned).UpdateOne(ctx, bson.M{"_id": id}, bson.M{"$set": bson.M{"rank": rank}}); err != nil {
			t.Fatal(err)
		}
	}
	ev := func(org, id string) kafkax.Event { return kafkax.NewEvent("owned.updated", org, id, nil) }

	want("a", 1, 2)
	want("b", 1)
	behind("a1", 5)
	want("a", 1, 2) // kept
	if err := s.Insert(ctx, owned, Owned{"b2", "b", 2}); err != nil {
		t.Fatal(err)
	}
	want("a", 1, 2) // b's insert leaves a's page
	want("b", 1, 2) // and shows in b's at once
	if err := s.Set(ctx, owned, "b1", bson.M{"rank": 3}, ev("b", "b1")); err != nil {
		t.Fatal(err)
	}
	want("a", 1, 2)
	want("b", 2, 3)
	s.TenantChanged(owned, "a") // told of a1's change
	want("a", 2, 5)
	// A write without events whose condition names its tenant drops that
	// tenant's pages alone.
	behind("a2", 6)
	if err := s.Update(ctx, owned, "b1", bson.M{"organization": "b"}, bson.M{"$set": bson.M{"rank": 4}}); err != nil {
		t.Fatal(err)
	}
	want("a", 2, 5) // kept
	want("b", 2, 4)
	s.TenantChanged(owned, "a")
	want("a", 5, 6)
	if err := s.Set(ctx, owned, "b1", bson.M{"rank": 3}, ev("b", "b1")); err != nil {
		t.Fatal(err)
	}
	behind("a2", 2)
	s.TenantChanged(owned, "a")
	want("a", 2, 5)

	behind("a2", 9)
	if err := s.Insert(ctx, owned, Owned{"a3", "a", 3}); err != nil {
		t.Fatal(err)
	}
	want("a", 3, 5, 9)
	if _, err := docstore.Modify(ctx, s, owned, "a3", func(o *Owned) ([]kafkax.Event, error) {
		o.Rank = 4
		return nil, nil // no event: every tenant's pages go
	}); err != nil {
		t.Fatal(err)
	}
	behind("b2", 7)
	want("a", 4, 5, 9)
	want("b", 3, 7)
	if err := s.Remove(ctx, owned, "a3", nil, ev("a", "a3")); err != nil {
		t.Fatal(err)
	}
	want("a", 5, 9)
	if err := s.Delete(ctx, owned, bson.M{"organization": "a", "rank": 5}); err != nil {
		t.Fatal(err)
	}
	want("a", 9)
	// A document moving to another tenant, whose event names the new one.
	if _, err := docstore.Modify(ctx, s, owned, "b2", func(o *Owned) ([]kafkax.Event, error) {
		o.Org = "a"
		return []kafkax.Event{ev("a", "b2")}, nil
	}); err != nil {
		t.Fatal(err)
	}
	want("a", 7, 9)
	want("b", 3)
	if _, err := docstore.Modify(ctx, s, owned, "b2", func(o *Owned) ([]kafkax.Event, error) {
		o.Org = "b"
		return []kafkax.Event{ev("b", "b2")}, nil
	}); err != nil {
		t.Fatal(err)
	}

	// FindTenant keeps alike.
	all := func() int {
		got, err := docstore.FindTenant[Owned](ctx, s, owned, bson.M{"organization": "b"}, docstore.Keyset{})
		if err != nil {
			t.Fatal(err)
		}
		return len(got)
	}
	if n := all(); n != 2 {
		t.Fatalf("FindTenant: %d documents, want 2", n)
	}
	if _, err := s.C(owned).InsertOne(ctx, Owned{"b9", "b", 9}); err != nil {
		t.Fatal(err)
	}
	if n := all(); n != 2 {
		t.Fatalf("FindTenant: %d documents after an untold insert, want the 2 kept", n)
	}
	s.TenantChanged(owned, "")
	if n := all(); n != 3 {
		t.Fatalf("FindTenant: %d documents after every tenant changed, want 3", n)
	}
}

// What nothing told shows once the TTL's period ends.
func TestPageCachedTTL(t *testing.T) {
	ctx := context.Background()
	s := docstore.New(mongotest.DB(t), map[string]string{owned: "owned"}, nil)
	const ttl = 200 * time.Millisecond
	s.CacheLists(owned, 100, 1<<20, ttl)
	if err := s.Insert(ctx, owned, Owned{"a1", "a", 1}); err != nil {
		t.Fatal(err)
	}
	count := func() int {
		_, n, err := docstore.PageCached[Owned](ctx, s, owned, bson.M{"organization": "a"}, docstore.Keyset{})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(); n != 1 {
		t.Fatalf("count %d, want 1", n)
	}
	if _, err := s.C(owned).InsertOne(ctx, Owned{"a2", "a", 2}); err != nil {
		t.Fatal(err)
	}
	waittest.Until(t, "another instance's insert to show", 20*ttl, func() bool { return count() == 2 })
}
