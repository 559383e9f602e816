package revisionmongo_test

import (
	"context"
	"fmt"
	"github.com/docspub/platform/libs/blob/blobtest"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/services/content/internal/contenttest"
	"github.com/docspub/platform/services/content/internal/revision"
	"github.com/docspub/platform/services/content/internal/revisionmongo"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// BenchmarkGet reads a revision of 500 pages of 4 KB each (2 MB of
// markdown) with its bodies in documents of their own, and the same
// revision stored the old way, inline in one document. It reports the
// median of each and their ratio: what reassembling the bodies costs.
func BenchmarkGet(b *testing.B) {
	ctx := context.Background()
	db := mongotest.Database(b)
	s := revisionmongo.NewStore(db, blobtest.Open(b, blobtest.Dir(b)))
	var pages []revision.Page
	for i := range 500 {
		md := fmt.Sprintf("# Page %d\n\n%s", i, strings.Repeat(fmt.Sprintf("Line %d of a page of text.\n", i), 150))
		pages = append(pages, revision.Page{ID: fmt.Sprint("p", i), Kind: revision.KindDocument, Title: "Page", Slug: fmt.Sprint("p", i),
			Markdown: md, CreatedAt: t0, UpdatedAt: t0})
	}
	r := revision.Revision{ID: "bodies", Space: "sp1", Organization: "org1", Type: revision.TypeEdits, Pages: pages, CreatedAt: t0}
	if err := s.Insert(ctx, r); err != nil {
		b.Fatal(err)
	}
	inline := bson.M{"_id": "inline", "space": "sp1", "organization": "org1", "type": "edits", "parents": bson.A{}, "createdAt": t0,
		"files": bson.A{}, "reusableContents": bson.A{}}
	var docs bson.A
	for _, p := range pages {
		docs = append(docs, bson.M{"id": p.ID, "kind": p.Kind, "title": p.Title, "slug": p.Slug, "markdown": p.Markdown,
			"pages": bson.A{}, "createdAt": t0, "updatedAt": t0})
	}
	inline["pages"] = docs
	if _, err := db.Collection(revisionmongo.Revisions).InsertOne(ctx, inline); err != nil {
		b.Fatal(err)
	}
	get := func(id string) time.Duration {
		t := time.Now()
		got, err := s.Get(ctx, id)
		if err != nil || len(got.Pages) != len(pages) || got.Pages[499].Markdown != pages[499].Markdown {
			b.Fatalf("Get(%s): %v", id, err)
		}
		return time.Since(t)
	}
	var split, whole []time.Duration
	for b.Loop() {
		split = append(split, get("bodies"))
		whole = append(whole, get("inline"))
	}
	ms, mw := contenttest.Median(split), contenttest.Median(whole)
	b.ReportMetric(float64(ms.Microseconds())/1000, "ms-bodies-p50")
	b.ReportMetric(float64(mw.Microseconds())/1000, "ms-inline-p50")
	b.ReportMetric(float64(ms)/float64(mw), "ratio-bodies/inline")
}
