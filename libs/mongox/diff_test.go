package mongox_test

import (
	"testing"
	"time"

	"github.com/docspub/platform/libs/mongox"
	"github.com/google/go-cmp/cmp"
	"go.mongodb.org/mongo-driver/v2/bson"
)

type doc struct {
	ID      string     `bson:"_id"`
	Title   string     `bson:"title"`
	Tags    []string   `bson:"tags"`
	At      *time.Time `bson:"at,omitempty"`
	Mark    string     `bson:"mark,omitempty"`
	Version int64      `bson:"version"`
}

func TestDiff(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	base := doc{ID: "d1", Title: "A", Tags: []string{"x"}, At: &at, Version: 3}
	for _, tc := range []struct {
		name   string
		change func(*doc)
		want   bson.M // field -> new value, "" for unset
	}{
		{"nothing", func(*doc) {}, bson.M{}},
		{"one field", func(d *doc) { d.Title = "B" }, bson.M{"$set": bson.M{"title": "B"}}},
		{"a slice", func(d *doc) { d.Tags = []string{"x", "y"} }, bson.M{"$set": bson.M{"tags": bson.A{"x", "y"}}}},
		{"an omitted field appears", func(d *doc) { d.Mark = "m" }, bson.M{"$set": bson.M{"mark": "m"}}},
		{"an omitted field goes", func(d *doc) { d.At = nil }, bson.M{"$unset": bson.M{"at": ""}}},
		{"id and version are kept", func(d *doc) { d.ID, d.Version = "d2", 9 }, bson.M{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			after := base
			tc.change(&after)
			upd, err := mongox.Diff(base, after, "_id", "version")
			if err != nil {
				t.Fatal(err)
			}
			// Compare through a round trip: the values are raw BSON.
			raw, err := bson.Marshal(upd)
			if err != nil {
				t.Fatal(err)
			}
			var got bson.M
			if err := bson.Unmarshal(raw, &got); err != nil {
				t.Fatal(err)
			}
			wantRaw, _ := bson.Marshal(tc.want)
			var want bson.M
			_ = bson.Unmarshal(wantRaw, &want)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("update (-want +got):\n%s", d)
			}
		})
	}
}

// BenchmarkUpdate measures the diff of a small document with
// one change (what a space update costs on top of its write).
func BenchmarkUpdate(b *testing.B) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	before := doc{ID: "d1", Title: "A", Tags: []string{"x", "y", "z"}, At: &at, Mark: "m", Version: 3}
	after := before
	after.Title = "B"
	for b.Loop() {
		if _, err := mongox.Diff(before, after, "_id", "version"); err != nil {
			b.Fatal(err)
		}
	}
}
