package revisionmongo_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/docspub/platform/libs/blob/blobtest"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/blob"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/services/content/internal/limits"
	"github.com/docspub/platform/services/content/internal/revision"
	"github.com/docspub/platform/services/content/internal/revisionmongo"
	"github.com/google/go-cmp/cmp"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

func page(id, md string) revision.Page {
	return revision.Page{ID: id, Kind: revision.KindDocument, Title: id, Slug: id, Markdown: md, CreatedAt: t0, UpdatedAt: t0}
}

// docSizes returns the BSON size of every document of a collection by _id.
func docSizes(t *testing.T, db *mongo.Database, coll string) map[string]int {
	t.Helper()
	cur, err := db.Collection(coll).Find(context.Background(), bson.M{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for cur.Next(context.Background()) {
		out[cur.Current.Lookup("_id").String()] = len(cur.Current)
	}
	if err := cur.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestPageBodiesLiveOutsideTheRevision(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := mongotest.Database(t)
	s := revisionmongo.NewStore(db, blobtest.Open(t, blobtest.Dir(t)))
	// A page longer than a body chunk, with multi-byte characters across
	// the chunk boundaries, and a page both revisions share.
	var lines strings.Builder
	for i := 0; lines.Len() < 2*limits.BodyChunk+limits.BodyChunk/2; i++ {
		fmt.Fprintf(&lines, "é€🎉 line %d of a long page\n", i)
	}
	long := lines.String()
	shared := "# Shared\n\nSame text in both revisions.\n"
	r1 := revision.Revision{ID: "r1", Space: "sp1", Organization: "org1", Type: revision.TypeEdits, Parents: []string{},
		Pages: []revision.Page{page("long", long), page("shared", shared)}, Files: []revision.File{},
		ReusableContents: []revision.ReusableContent{{ID: "rc", Title: "Note", Markdown: shared}}, CreatedAt: t0}
	r2 := r1
	r2.ID, r2.Pages = "r2", []revision.Page{page("shared", shared), page("empty", "")}
	for _, r := range []revision.Revision{r1, r2} {
		if err := s.Insert(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []revision.Revision{r1, r2} {
		got, err := s.Get(ctx, want.ID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(got, want); diff != "" {
			t.Errorf("Get(%s) (-got +want):\n%s", want.ID, diff)
		}
	}
	revs := docSizes(t, db, revisionmongo.Revisions)
	for id, n := range revs {
		if n > 8<<10 {
			t.Errorf("revision %s is %d bytes: its markdown is inline", id, n)
		}
	}
	bodies := docSizes(t, db, revisionmongo.Bodies)
	// long: 3 chunks (2.4 MiB), shared: 1 chunk used by both revisions and the reusable content.
	if len(bodies) != 4 {
		t.Errorf("%d body documents, want 4 (3 chunks of the long page and the shared text once)", len(bodies))
	}
	for id, n := range bodies {
		if n > limits.BodyChunk+1024 {
			t.Errorf("body %s is %d bytes, more than a chunk", id, n)
		}
	}
}

func TestInlineMarkdownStillReads(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := mongotest.Database(t)
	doc := bson.M{"_id": "old", "space": "sp1", "organization": "org1", "type": "edits", "parents": bson.A{}, "createdAt": t0,
		"pages": bson.A{bson.M{"id": "p", "kind": "document", "title": "P", "slug": "p", "markdown": "inline\n",
			"pages": bson.A{}, "createdAt": t0, "updatedAt": t0}},
		"files": bson.A{}, "reusableContents": bson.A{bson.M{"id": "rc", "title": "R", "markdown": "reused"}}}
	if _, err := db.Collection(revisionmongo.Revisions).InsertOne(ctx, doc); err != nil {
		t.Fatal(err)
	}
	got, err := revisionmongo.NewStore(db, blobtest.Open(t, blobtest.Dir(t))).Get(ctx, "old")
	if err != nil {
		t.Fatal(err)
	}
	if got.Pages[0].Markdown != "inline\n" || got.ReusableContents[0].Markdown != "reused" {
		t.Errorf("inline markdown read as %q and %q", got.Pages[0].Markdown, got.ReusableContents[0].Markdown)
	}
	tree, err := revisionmongo.NewStore(db, blobtest.Open(t, blobtest.Dir(t))).Tree(ctx, "old")
	if err != nil {
		t.Fatal(err)
	}
	if tree.Pages[0].Markdown != "inline\n" || tree.Pages[0].Body != nil {
		t.Errorf("Tree read inline markdown as %q (body %v)", tree.Pages[0].Markdown, tree.Pages[0].Body)
	}
}

func TestInsertRefusesARevisionOverTheLimits(t *testing.T) {
	t.Parallel()
	s, ctx := newStore(t)
	many := make([]revision.Page, limits.RevisionPages+1)
	for i := range many {
		many[i] = page("p"+strings.Repeat("x", i%7)+string(rune('a'+i%26)), "")
	}
	files := make([]revision.File, limits.RevisionFiles+1)
	huge := strings.Repeat("m", limits.PageMarkdown)
	var heavy []revision.Page
	for i := 0; i*limits.PageMarkdown <= limits.RevisionMarkdown; i++ {
		heavy = append(heavy, page("h"+string(rune('a'+i%26))+string(rune('a'+i/26)), huge))
	}
	tests := []struct {
		name string
		rev  revision.Revision
	}{
		{"pages", revision.Revision{ID: "pages", Space: "sp1", Pages: many}},
		{"files", revision.Revision{ID: "files", Space: "sp1", Files: files}},
		{"markdown", revision.Revision{ID: "markdown", Space: "sp1", Pages: heavy}},
		{"document", revision.Revision{ID: "document", Space: "sp1", Files: []revision.File{{ID: "f", Name: strings.Repeat("n", limits.RevisionDocument)}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := s.Insert(ctx, tc.rev)
			var ae *apierr.Error
			if !errors.As(err, &ae) || ae.Status != http.StatusRequestEntityTooLarge {
				t.Fatalf("Insert = %v, want a 413", err)
			}
			if _, err := s.Get(ctx, tc.rev.ID); !errors.Is(err, apierr.ErrNotFound) {
				t.Errorf("the refused revision was stored: %v", err)
			}
		})
	}
}

func TestHasPage(t *testing.T) {
	t.Parallel()
	s, ctx := newStore(t)
	parent := page("parent", "")
	parent.Pages = []revision.Page{page("child", "text")}
	if err := s.Insert(ctx, revision.Revision{ID: "r", Space: "sp1", Pages: []revision.Page{parent}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		rev, page string
		want      bool
	}{{"r", "parent", true}, {"r", "child", true}, {"r", "nope", false}, {"missing", "parent", false}} {
		got, err := s.HasPage(ctx, tc.rev, tc.page)
		if err != nil || got != tc.want {
			t.Errorf("HasPage(%s, %s) = %v, %v; want %v", tc.rev, tc.page, got, err, tc.want)
		}
	}
}

func TestCollect(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := mongotest.Database(t)
	blobs := blobtest.Open(t, blobtest.Dir(t))
	s := revisionmongo.NewStore(db, blobs)
	put := func(name string) string {
		t.Helper()
		id, _, err := s.PutBlob(ctx, revision.Owner{Space: "a", Organization: "org1"}, name, "image/png", bytes.NewReader([]byte(name)))
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	kept, purged, orphan := put("kept.png"), put("purged.png"), put("orphan.png")
	legacyBlob := put("legacy.png")
	// Space a keeps one revision; space b is purged; space c is a duplicate
	// of b (a copy of its revision document, sharing its bodies and files).
	keep := revision.Revision{ID: "a1", Space: "a", Pages: []revision.Page{page("p", "kept text")},
		Files: []revision.File{{ID: "f", Blob: kept}}}
	gone := revision.Revision{ID: "b1", Space: "b", Pages: []revision.Page{page("p", "purged text")},
		Files: []revision.File{{ID: "f", Blob: purged}}}
	copied := revision.Revision{ID: "b2", Space: "b", Pages: []revision.Page{page("p", "copied text")}}
	for _, r := range []revision.Revision{keep, gone, copied} {
		if err := s.Insert(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	var raw bson.M
	if err := db.Collection(revisionmongo.Revisions).FindOne(ctx, bson.M{"_id": "b2"}).Decode(&raw); err != nil {
		t.Fatal(err)
	}
	raw["_id"], raw["space"] = "c1", "c"
	if _, err := db.Collection(revisionmongo.Revisions).InsertOne(ctx, raw); err != nil {
		t.Fatal(err)
	}
	// A revision written before bodies moved out refers to its file only.
	legacy := bson.M{"_id": "old", "space": "d", "pages": bson.A{}, "files": bson.A{bson.M{"id": "f", "blob": legacyBlob}}}
	if _, err := db.Collection(revisionmongo.Revisions).InsertOne(ctx, legacy); err != nil {
		t.Fatal(err)
	}
	// An import that stopped after writing a body and a file, before its revision.
	if _, err := db.Collection(revisionmongo.Bodies).InsertOne(ctx, bson.M{"_id": "a/abandoned", "markdown": "x",
		"space": "a", "organization": "org1", "usedAt": time.Now()}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteSpace(ctx, "b"); err != nil {
		t.Fatal(err)
	}

	// Within the grace period nothing goes.
	got, err := s.Collect(ctx, time.Now().Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if got != (revisionmongo.Collected{}) {
		t.Errorf("collected %+v within the grace period", got)
	}
	// Past it, what no revision refers to goes.
	got, err = s.Collect(ctx, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if want := (revisionmongo.Collected{Bodies: 2, Files: 2}); got != want {
		t.Errorf("collected %+v, want %+v (the purged page's body and the abandoned one; the purged and orphan files)", got, want)
	}
	for _, id := range []string{kept, legacyBlob} {
		if _, err := s.OpenBlob(ctx, id, -1); err != nil {
			t.Errorf("referenced file %s: %v", id, err)
		}
	}
	for _, id := range []string{purged, orphan} {
		if _, err := s.OpenBlob(ctx, id, -1); !errors.Is(err, apierr.ErrNotFound) {
			t.Errorf("unreferenced file %s: %v, want it gone", id, err)
		}
	}
	if got, want := mongotest.IDs(t, db.Collection(revisionmongo.Blobs)), []string{kept, legacyBlob}; !slices.Equal(got, sorted(want)) {
		t.Errorf("blob records left %v, want those of the referenced files %v", got, want)
	}
	var stored []string
	if err := blobs.List(ctx, "", func(o blob.Object) error { stored = append(stored, o.Key); return nil }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(stored, sorted([]string{kept, legacyBlob})) {
		t.Errorf("blob store holds %v, want the referenced files' only", stored)
	}
	u, err := s.Usage(ctx, "org1")
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(len("kept.png") + len("legacy.png")); u.FileBytes != want {
		t.Errorf("org1 stores %d bytes of files after collecting, want %d", u.FileBytes, want)
	}
	for _, id := range []string{"a1", "c1"} {
		if _, err := s.Get(ctx, id); err != nil {
			t.Errorf("revision %s after collecting: %v", id, err)
		}
	}
}

// A revision whose bodies exist already (another revision's, or removed by
// the collector) marks them used now and stores the missing ones: the
// collector's grace counts from the last revision that used a body.
func TestInsertMarksExistingBodiesUsed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := mongotest.Database(t)
	s := revisionmongo.NewStore(db, blobtest.Open(t, blobtest.Dir(t)))
	var pages []revision.Page
	for i := range 600 { // more than one batch
		pages = append(pages, page(fmt.Sprint("p", i), fmt.Sprintf("# Page %d\n", i)))
	}
	r1 := revision.Revision{ID: "r1", Space: "sp1", Organization: "org1", Type: revision.TypeEdits, Parents: []string{},
		Pages: pages, Files: []revision.File{}, ReusableContents: []revision.ReusableContent{}, CreatedAt: t0}
	if err := s.Insert(ctx, r1); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-24 * time.Hour).UTC().Truncate(time.Millisecond)
	bodies := db.Collection(revisionmongo.Bodies)
	if _, err := bodies.UpdateMany(ctx, bson.M{}, bson.M{"$set": bson.M{"usedAt": old}}); err != nil {
		t.Fatal(err)
	}
	// The collector removed some meanwhile.
	if _, err := bodies.DeleteMany(ctx, bson.M{"markdown": bson.M{"$in": bson.A{"# Page 3\n", "# Page 599\n"}}}); err != nil {
		t.Fatal(err)
	}
	r2 := r1
	r2.ID = "r2"
	r2.Pages = append(slices.Clone(pages), page("new", "# New\n"))
	if err := s.Insert(ctx, r2); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, "r2")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(got, r2); diff != "" {
		t.Errorf("Get(r2) (-got +want):\n%s", diff)
	}
	if n, err := bodies.CountDocuments(ctx, bson.M{"usedAt": bson.M{"$lte": old}}); err != nil || n != 0 {
		t.Errorf("%d bodies (%v) still marked used only by the old revision", n, err)
	}
	if n, err := bodies.CountDocuments(ctx, bson.M{}); err != nil || n != 601 {
		t.Errorf("%d bodies (%v), want 601", n, err)
	}
}

// TestTreeReadsOnlyTheBodiesAsked: Tree reads no page body and Markdown
// reads those of the pages asked only: with another page's body gone, Get
// fails while a page read through Tree and Markdown still answers.
func TestTreeReadsOnlyTheBodiesAsked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := mongotest.Database(t)
	s := revisionmongo.NewStore(db, blobtest.Open(t, blobtest.Dir(t)))
	parent, child, other := page("a", "# A\n"), page("b", "# B\n"), page("c", "# C, whose body goes\n")
	parent.Pages = []revision.Page{child}
	r := revision.Revision{ID: "r1", Space: "sp1", Organization: "org1", Type: revision.TypeEdits, Parents: []string{},
		Pages: []revision.Page{parent, other}, Files: []revision.File{}, CreatedAt: t0}
	if err := s.Insert(ctx, r); err != nil {
		t.Fatal(err)
	}
	tree, err := s.Tree(ctx, "r1")
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(len("# A\n# B\n# C, whose body goes\n")); tree.MarkdownBytes != want {
		t.Errorf("Tree says %d bytes of markdown, want %d", tree.MarkdownBytes, want)
	}
	for _, p := range []revision.Page{tree.Pages[0], tree.Pages[0].Pages[0], tree.Pages[1]} {
		if p.Markdown != "" || len(p.Body) == 0 {
			t.Errorf("Tree page %s: markdown %q, body %v; want no markdown and its body ids", p.ID, p.Markdown, p.Body)
		}
	}
	if _, err := db.Collection(revisionmongo.Bodies).DeleteMany(ctx, bson.M{"_id": bson.M{"$in": tree.Pages[1].Body}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, "r1"); err == nil {
		t.Fatal("Get read a revision whose page body is gone")
	}
	a := &tree.Pages[0]
	if err := s.Markdown(ctx, []*revision.Page{a, &a.Pages[0]}); err != nil {
		t.Fatal(err)
	}
	if a.Markdown != "# A\n" || a.Pages[0].Markdown != "# B\n" || a.Body != nil {
		t.Errorf("Markdown read %q and %q (body %v)", a.Markdown, a.Pages[0].Markdown, a.Body)
	}
	if err := s.Markdown(ctx, []*revision.Page{&tree.Pages[1]}); err == nil {
		t.Error("Markdown of a page whose body is gone: no error")
	}
	// A revision stored before its markdown's size was recorded says at
	// most a chunk a body.
	if _, err := db.Collection(revisionmongo.Revisions).UpdateOne(ctx, bson.M{"_id": "r1"}, bson.M{"$unset": bson.M{"markdownBytes": ""}}); err != nil {
		t.Fatal(err)
	}
	old, err := revisionmongo.NewStore(db, blobtest.Open(t, blobtest.Dir(t))).Tree(ctx, "r1")
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(3 * limits.BodyChunk); old.MarkdownBytes != want {
		t.Errorf("Tree of an older revision says %d bytes of markdown, want %d", old.MarkdownBytes, want)
	}
}

// TestRevisionsAreKeptInMemory: a revision written or read once is read
// again from memory (here, after its document is gone from the database),
// callers changing what they got change nothing kept, and deleting the
// space's revisions drops them from memory too.
func TestRevisionsAreKeptInMemory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := mongotest.Database(t)
	s := revisionmongo.NewStore(db, blobtest.Open(t, blobtest.Dir(t)))
	r := revision.Revision{ID: "r1", Space: "sp1", Organization: "org1", Type: revision.TypeEdits, Parents: []string{"r0"},
		Pages: []revision.Page{page("a", "# A\n")}, Files: []revision.File{{ID: "f", Name: "f.png", Blob: "b"}},
		Git: &revision.Git{OID: "abc", Message: "m"}, CreatedAt: t0}
	if err := s.Insert(ctx, r); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Collection(revisionmongo.Revisions).DeleteOne(ctx, bson.M{"_id": "r1"}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Tree(ctx, "r1")
	if err != nil {
		t.Fatalf("Tree of a revision written here: %v", err)
	}
	got.Files[0].Name, got.Parents[0], got.Git.OID = "changed", "changed", "changed"
	again, err := s.Tree(ctx, "r1")
	if err != nil {
		t.Fatal(err)
	}
	if again.Files[0].Name != "f.png" || again.Parents[0] != "r0" || again.Git.OID != "abc" {
		t.Errorf("a caller's change reached the kept revision: %+v %v %+v", again.Files, again.Parents, again.Git)
	}
	if _, err := revisionmongo.NewStore(db, blobtest.Open(t, blobtest.Dir(t))).Tree(ctx, "r1"); !errors.Is(err, apierr.ErrNotFound) {
		t.Errorf("another store read a deleted revision: %v", err)
	}
	if err := s.DeleteSpace(ctx, "sp1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Tree(ctx, "r1"); !errors.Is(err, apierr.ErrNotFound) {
		t.Errorf("a revision of a deleted space is still read: %v", err)
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
