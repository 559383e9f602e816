package searchmongo_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/paging"
	"github.com/docspub/platform/libs/waittest"
	"github.com/docspub/platform/services/content/internal/links"
	"github.com/docspub/platform/services/content/internal/revision"
	"github.com/docspub/platform/services/content/internal/search"
	"github.com/docspub/platform/services/content/internal/searchmongo"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

func newService(t *testing.T) (*search.Service, *searchmongo.Store) {
	t.Helper()
	db := mongotest.Database(t)
	if err := searchmongo.EnsureIndexes(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	st := searchmongo.NewStore(db)
	return search.New(st, links.New("http://gw.test", "http://app.test")), st
}

// named gives each of the spaces the title "Space <id>", as a caller's
// readable spaces are given to Search.
func named(spaces []string) map[string]string {
	out := map[string]string{}
	for _, id := range spaces {
		out[id] = "Space " + id
	}
	return out
}

func doc(id, title, slug, md string, children ...revision.Page) revision.Page {
	return revision.Page{ID: id, Kind: revision.KindDocument, Title: title, Slug: slug, Markdown: md, Pages: children, CreatedAt: time.Unix(0, 0)}
}

// hits flattens a result to "space/page#section" strings, in order.
func hits(res search.Result) []string {
	var out []string
	for _, sp := range res.Items {
		for _, p := range sp.Pages {
			for _, s := range p.Sections {
				out = append(out, sp.ID+"/"+s.ID)
			}
		}
	}
	return out
}

func mustSearch(t *testing.T, svc *search.Service, org string, spaces []string, q string) search.Result {
	t.Helper()
	res, err := svc.Search(context.Background(), org, named(spaces), q, 0, nil)
	if err != nil {
		t.Fatalf("search %q: %v", q, err)
	}
	return res
}

func TestSearch(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	acme := []revision.Page{
		doc("p1", "Getting started", "getting-started", "Install the CLI first.\n\n## Configure the gateway\n\nSet the gateway token in the config file.\n"),
		doc("p2", "Gateway", "gateway", "The gateway routes requests.\n",
			doc("p3", "Tokens", "tokens", "Bearer tokens reach the gateway.\n\n```\ngateway --token x\n```\n")),
	}
	other := []revision.Page{doc("q1", "Secret zebra", "zebra", "Zebra notes of another organization.\n")}
	if err := svc.IndexRevision(ctx, "acme", "s1", acme); err != nil {
		t.Fatal(err)
	}
	if err := svc.IndexRevision(ctx, "globex", "s9", other); err != nil {
		t.Fatal(err)
	}

	t.Run("a word is found in its section", func(t *testing.T) {
		res := mustSearch(t, svc, "acme", []string{"s1"}, "install")
		if diff := cmp.Diff(hits(res), []string{"s1/p1"}); diff != "" {
			t.Fatalf("hits (-got +want):\n%s", diff)
		}
		sp := res.Items[0]
		if sp.Title != "Space s1" || sp.Type != "space" || res.Count != 1 {
			t.Fatalf("space result %+v", sp)
		}
		pg := sp.Pages[0]
		if pg.Path != "getting-started" || pg.URLs.App != "http://app.test/s/s1/getting-started" || pg.Sections[0].Body != "Install the CLI first." {
			t.Fatalf("page result %+v", pg)
		}
	})
	t.Run("a heading section has its anchor", func(t *testing.T) {
		res := mustSearch(t, svc, "acme", []string{"s1"}, "config file")
		if diff := cmp.Diff(hits(res), []string{"s1/p1#configure-the-gateway"}); diff != "" {
			t.Fatalf("hits (-got +want):\n%s", diff)
		}
		if p := res.Items[0].Pages[0].Sections[0].Path; p != "getting-started#configure-the-gateway" {
			t.Fatalf("section path %q", p)
		}
	})
	t.Run("another organization's page is not found", func(t *testing.T) {
		if res := mustSearch(t, svc, "acme", []string{"s1", "s9"}, "zebra"); len(res.Items) != 0 {
			t.Fatalf("found %v", hits(res))
		}
		if res := mustSearch(t, svc, "globex", []string{"s9"}, "zebra"); len(res.Items) != 1 {
			t.Fatalf("own organization: found %v", hits(res))
		}
	})
	t.Run("a space the caller cannot read is not searched", func(t *testing.T) {
		if res := mustSearch(t, svc, "acme", []string{"s2"}, "gateway"); len(res.Items) != 0 {
			t.Fatalf("found %v", hits(res))
		}
	})
	t.Run("a title hit ranks before body hits", func(t *testing.T) {
		res := mustSearch(t, svc, "acme", []string{"s1"}, "gateway")
		var pages []string
		for _, p := range res.Items[0].Pages {
			pages = append(pages, p.ID)
		}
		if len(pages) != 3 || pages[0] != "p2" {
			t.Fatalf("pages in order %v, want p2 (titled Gateway) first", pages)
		}
		if a := res.Items[0].Pages[2].Ancestors; len(a) != 0 && a[0].Title != "Gateway" {
			t.Fatalf("ancestors %v", a)
		}
	})
	t.Run("pages with every term rank first", func(t *testing.T) {
		res := mustSearch(t, svc, "acme", []string{"s1"}, "bearer gateway")
		if got := res.Items[0].Pages[0].ID; got != "p3" {
			t.Fatalf("first page %s, want p3 (has both terms)", got)
		}
	})
	t.Run("stopwords alone find nothing", func(t *testing.T) {
		if res := mustSearch(t, svc, "acme", []string{"s1"}, "the of"); len(res.Items) != 0 {
			t.Fatalf("found %v", hits(res))
		}
	})
}

func TestSearchQueryValidation(t *testing.T) {
	svc, _ := newService(t)
	long := make([]byte, search.MaxQueryLength+1)
	for i := range long {
		long[i] = 'a'
	}
	for _, q := range []string{"", "   ", string(long)} {
		_, err := svc.Search(context.Background(), "acme", named([]string{"s1"}), q, 0, nil)
		var ae *apierr.Error
		if !apierr.IsInvalid(err) || !asField(err, &ae, "query") {
			t.Errorf("query of %d chars: err %v, want 400 naming query", len(q), err)
		}
	}
}

func asField(err error, ae **apierr.Error, field string) bool {
	e, ok := err.(*apierr.Error)
	*ae = e
	return ok && e.Field == field
}

func TestReindexReplacesOldText(t *testing.T) {
	ctx := context.Background()
	svc, st := newService(t)
	v1 := []revision.Page{doc("p1", "Alpha", "alpha", "Old walrus text.\n"), doc("p2", "Beta", "beta", "Stays here.\n")}
	v2 := []revision.Page{doc("p1", "Alpha", "alpha", "New narwhal text.\n")}
	for _, pages := range [][]revision.Page{v1, v1, v2, v2} { // each twice: idempotent
		if err := svc.IndexRevision(ctx, "acme", "s1", pages); err != nil {
			t.Fatal(err)
		}
	}
	if res := mustSearch(t, svc, "acme", []string{"s1"}, "walrus"); len(res.Items) != 0 {
		t.Fatalf("old text found: %v", hits(res))
	}
	if res := mustSearch(t, svc, "acme", []string{"s1"}, "stays"); len(res.Items) != 0 {
		t.Fatalf("removed page found: %v", hits(res))
	}
	if got := hits(mustSearch(t, svc, "acme", []string{"s1"}, "narwhal")); !cmp.Equal(got, []string{"s1/p1"}) {
		t.Fatalf("new text: %v", got)
	}
	p, err := st.Pages(ctx, "acme", []search.PageKey{{Space: "s1", Page: "p2"}})
	if err != nil || len(p) != 0 {
		t.Fatalf("removed page's metadata: %v %v", p, err)
	}
}

func TestRemoveSpace(t *testing.T) {
	ctx := context.Background()
	svc, st := newService(t)
	for _, sp := range []string{"s1", "s2"} {
		if err := svc.IndexRevision(ctx, "acme", sp, []revision.Page{doc("p-"+sp, "Otter", "otter", "Otters swim.\n")}); err != nil {
			t.Fatal(err)
		}
	}
	if err := svc.RemoveSpace(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if err := svc.RemoveSpace(ctx, "s1"); err != nil { // again: no error
		t.Fatal(err)
	}
	res := mustSearch(t, svc, "acme", []string{"s1", "s2"}, "otter")
	if diff := cmp.Diff(hits(res), []string{"s2/p-s2"}); diff != "" {
		t.Fatalf("hits (-got +want):\n%s", diff)
	}
	ps, err := st.Postings(ctx, "acme", []string{"s1", "s2"}, []string{"otter", "missing"})
	if err != nil || len(ps) != 1 || len(ps["otter"]) != 1 {
		t.Fatalf("postings of otter: %v %v", ps, err)
	}
}

func TestPagingOverSpaces(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	spaces := []string{"s1", "s2", "s3"}
	for i, sp := range spaces {
		md := "Heron.\n"
		for range i {
			md += "Heron again.\n"
		}
		if err := svc.IndexRevision(ctx, "acme", sp, []revision.Page{doc("p", "Page", "page", md)}); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	var after *search.Cursor
	for range 3 {
		res, err := svc.Search(ctx, "acme", named(spaces), "heron", 2, after)
		if err != nil {
			t.Fatal(err)
		}
		if res.Count != 3 {
			t.Fatalf("count %d", res.Count)
		}
		for _, it := range res.Items {
			got = append(got, it.ID)
		}
		if res.Next == nil {
			break
		}
		after = &search.Cursor{}
		if err := (paging.Request{Page: res.Next.Page}).Keys(&after.Matched, &after.Score, &after.Space); err != nil {
			t.Fatalf("next page's cursor: %v", err)
		}
	}
	if diff := cmp.Diff(got, []string{"s3", "s2", "s1"}); diff != "" {
		t.Fatalf("spaces over pages (-got +want):\n%s", diff)
	}
}

// A posting list is the postings of one term in one space: a common term
// of an organization with thousands of spaces makes as many small documents,
// not one that grows past MongoDB's 16 MiB.
func TestPostingListIsOneDocumentPerTermAndSpace(t *testing.T) {
	ctx := context.Background()
	db := mongotest.Database(t)
	st := searchmongo.NewStore(db)
	svc := search.New(st, links.New("", ""))
	for _, sp := range []string{"s1", "s2"} {
		if err := svc.IndexRevision(ctx, "acme", sp, []revision.Page{doc("p", "Lynx", "lynx", "")}); err != nil {
			t.Fatal(err)
		}
	}
	for _, sp := range []string{"s1", "s2"} {
		var d struct {
			Organization, Term, Space, Postings string
			Spaces                              map[string]string
		}
		if err := db.Collection(searchmongo.PostingsCollection("lynx")).FindOne(ctx, bson.M{"_id": "acme/lynx/" + sp}).Decode(&d); err != nil {
			t.Fatal(err)
		}
		if d.Space != sp || d.Term != "lynx" || d.Organization != "acme" || d.Postings != "p\t\t8\n" || d.Spaces != nil {
			t.Fatalf("posting list of %s: %+v", sp, d)
		}
	}
}

func TestIndexesCoverEveryShard(t *testing.T) {
	have := map[string]bool{}
	for _, ix := range searchmongo.Indexes() {
		have[ix.Collection] = true
	}
	for i := range searchmongo.Shards {
		for _, prefix := range []string{searchmongo.Postings, searchmongo.Pages} {
			if name := fmt.Sprintf("%s_%03d", prefix, i); !have[name] {
				t.Errorf("no index on %s", name)
			}
		}
	}
}

// spaceEntries counts the posting lists holding space (its own, and the
// shared lists of layout 0 naming it) and the pages of space over every shard.
func spaceEntries(t *testing.T, db *mongo.Database, space string) (postings, pages int64) {
	t.Helper()
	ctx := context.Background()
	for i := range searchmongo.Shards {
		n, err := db.Collection(fmt.Sprintf("%s_%03d", searchmongo.Postings, i)).CountDocuments(ctx,
			bson.M{"$or": bson.A{bson.M{"space": space}, bson.M{"spaces." + space: bson.M{"$exists": true}}}})
		if err != nil {
			t.Fatal(err)
		}
		postings += n
		if n, err = db.Collection(fmt.Sprintf("%s_%03d", searchmongo.Pages, i)).CountDocuments(ctx, bson.M{"space": space}); err != nil {
			t.Fatal(err)
		}
		pages += n
	}
	return postings, pages
}

// manyPages returns n pages, page i titled with the word "word<i>x".
func manyPages(n int) []revision.Page {
	out := make([]revision.Page, n)
	for i := range out {
		out[i] = doc(fmt.Sprintf("p%d", i), fmt.Sprintf("word%dx", i), fmt.Sprintf("page-%d", i), "")
	}
	return out
}

func TestShardedReindexAndRemove(t *testing.T) {
	ctx := context.Background()
	db := mongotest.Database(t)
	st := searchmongo.NewStore(db)
	svc := search.New(st, links.New("", ""))
	if err := svc.IndexRevision(ctx, "acme", "s1", manyPages(200)); err != nil {
		t.Fatal(err)
	}
	if err := svc.IndexRevision(ctx, "acme", "s2", manyPages(3)); err != nil {
		t.Fatal(err)
	}
	var rec struct {
		PostingShards []int `bson:"postingShards"`
		PageShards    []int `bson:"pageShards"`
		Pending       bool  `bson:"pending"`
	}
	if err := db.Collection(searchmongo.Spaces).FindOne(ctx, bson.M{"_id": "s1"}).Decode(&rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.PostingShards) < searchmongo.Shards/2 || len(rec.PageShards) < searchmongo.Shards/2 || rec.Pending {
		t.Fatalf("record of s1: %+v", rec)
	}
	if p, g := spaceEntries(t, db, "s1"); p != 200 || g != 200 {
		t.Fatalf("s1 has %d posting lists and %d pages, want 200 and 200", p, g)
	}

	// A query spanning many shards finds a page in each.
	q := ""
	for i := 0; i < 16; i++ {
		q += fmt.Sprintf(" word%dx", i*10)
	}
	if got := hits(mustSearch(t, svc, "acme", []string{"s1"}, q)); len(got) != 10 {
		t.Fatalf("hits %v, want 10 (a space's first pages)", got)
	}
	keys := []search.PageKey{}
	for i := range 200 {
		keys = append(keys, search.PageKey{Space: "s1", Page: fmt.Sprintf("p%d", i)})
	}
	if ps, err := st.Pages(ctx, "acme", append(keys, search.PageKey{Space: "s1", Page: "missing"})); err != nil || len(ps) != 200 {
		t.Fatalf("pages: %d %v", len(ps), err)
	}

	if err := svc.IndexRevision(ctx, "acme", "s1", manyPages(50)); err != nil {
		t.Fatal(err)
	}
	if p, g := spaceEntries(t, db, "s1"); p != 50 || g != 50 {
		t.Fatalf("after reindex s1 has %d posting lists and %d pages, want 50 and 50", p, g)
	}
	if res := mustSearch(t, svc, "acme", []string{"s1"}, "word150x"); len(res.Items) != 0 {
		t.Fatalf("removed page found: %v", hits(res))
	}
	if err := svc.RemoveSpace(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if p, g := spaceEntries(t, db, "s1"); p != 0 || g != 0 {
		t.Fatalf("after removal s1 has %d posting lists and %d pages", p, g)
	}
	if got := hits(mustSearch(t, svc, "acme", []string{"s1", "s2"}, "word1x")); !cmp.Equal(got, []string{"s2/p1"}) {
		t.Fatalf("other space: %v", got)
	}
}

func TestInterruptedReplaceLeavesNothingBehind(t *testing.T) {
	ctx := context.Background()
	db := mongotest.Database(t)
	st := searchmongo.NewStore(db)
	svc := search.New(st, links.New("", ""))
	for _, remove := range []bool{false, true} {
		if err := svc.IndexRevision(ctx, "acme", "s1", manyPages(5)); err != nil {
			t.Fatal(err)
		}
		// A replace that wrote a posting list and a page, then stopped: the
		// record is pending and names their shards but not their keys.
		coll := searchmongo.PostingsCollection("orphan")
		var shard int
		fmt.Sscanf(coll[len(searchmongo.Postings)+1:], "%d", &shard)
		if _, err := db.Collection(coll).UpdateOne(ctx, bson.M{"_id": "acme/orphan/s1"}, bson.M{"$set": bson.M{"organization": "acme", "term": "orphan", "space": "s1", "postings": "px\t\t1\n"}}, options.UpdateOne().SetUpsert(true)); err != nil {
			t.Fatal(err)
		}
		pcoll := searchmongo.PagesCollection("s1", "px")
		var pshard int
		fmt.Sscanf(pcoll[len(searchmongo.Pages)+1:], "%d", &pshard)
		if _, err := db.Collection(pcoll).InsertOne(ctx, bson.M{"_id": "s1/px", "organization": "acme", "space": "s1", "page": "px", "data": "{}"}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Collection(searchmongo.Spaces).UpdateOne(ctx, bson.M{"_id": "s1"}, bson.M{"$set": bson.M{"pending": true},
			"$addToSet": bson.M{"postingShards": shard, "pageShards": pshard}}); err != nil {
			t.Fatal(err)
		}
		if remove {
			if err := svc.RemoveSpace(ctx, "s1"); err != nil {
				t.Fatal(err)
			}
			if p, g := spaceEntries(t, db, "s1"); p != 0 || g != 0 {
				t.Fatalf("after removal s1 has %d posting lists and %d pages", p, g)
			}
			continue
		}
		if err := svc.IndexRevision(ctx, "acme", "s1", manyPages(5)); err != nil {
			t.Fatal(err)
		}
		if p, g := spaceEntries(t, db, "s1"); p != 5 || g != 5 {
			t.Fatalf("after replace s1 has %d posting lists and %d pages, want 5 and 5", p, g)
		}
		if res := mustSearch(t, svc, "acme", []string{"s1"}, "orphan"); len(res.Items) != 0 {
			t.Fatalf("orphan found: %v", hits(res))
		}
	}
}

// Spaces indexed with the shared lists of layout 0 are still found, and
// leave those lists when they are next indexed or removed.
func TestLayoutZeroListsAreReadAndLeft(t *testing.T) {
	ctx := context.Background()
	db := mongotest.Database(t)
	st := searchmongo.NewStore(db)
	svc := search.New(st, links.New("", ""))
	// Index s1 and s9, then rewrite what was stored as layout 0 would have
	// been: one list per term holding both, records without a layout.
	for _, sp := range []string{"s1", "s9"} {
		if err := svc.IndexRevision(ctx, "acme", sp, []revision.Page{doc("p", "Lynx", "lynx", "")}); err != nil {
			t.Fatal(err)
		}
	}
	coll := db.Collection(searchmongo.PostingsCollection("lynx"))
	if _, err := coll.DeleteMany(ctx, bson.M{"term": "lynx"}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.InsertOne(ctx, bson.M{"_id": "acme/lynx", "organization": "acme", "term": "lynx",
		"spaces": bson.M{"s1": "p\t\t8\n", "s9": "p\t\t8\n"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Collection(searchmongo.Spaces).UpdateMany(ctx, bson.M{}, bson.M{"$unset": bson.M{"layout": ""}}); err != nil {
		t.Fatal(err)
	}
	both := []string{"s1", "s9"}
	if got := hits(mustSearch(t, svc, "acme", both, "lynx")); !cmp.Equal(got, []string{"s1/p", "s9/p"}) {
		t.Fatalf("layout 0 lists: hits %v", got)
	}
	// Indexed again, s1 leaves the shared list for a list of its own.
	if err := svc.IndexRevision(ctx, "acme", "s1", []revision.Page{doc("p", "Lynx", "lynx", "")}); err != nil {
		t.Fatal(err)
	}
	var shared struct{ Spaces map[string]string }
	if err := coll.FindOne(ctx, bson.M{"_id": "acme/lynx"}).Decode(&shared); err != nil {
		t.Fatal(err)
	}
	if _, ok := shared.Spaces["s1"]; ok || len(shared.Spaces) != 1 {
		t.Fatalf("shared list after s1 was indexed again: %v", shared.Spaces)
	}
	if n, err := coll.CountDocuments(ctx, bson.M{"_id": "acme/lynx/s1"}); err != nil || n != 1 {
		t.Fatalf("s1's own list: %d %v", n, err)
	}
	if got := hits(mustSearch(t, svc, "acme", both, "lynx")); !cmp.Equal(got, []string{"s1/p", "s9/p"}) {
		t.Fatalf("after reindex: hits %v", got)
	}
	// Removed, s9 leaves the shared list too.
	if err := svc.RemoveSpace(ctx, "s9"); err != nil {
		t.Fatal(err)
	}
	if p, _ := spaceEntries(t, db, "s9"); p != 0 {
		t.Fatalf("s9 still in %d lists", p)
	}
}

// Two replicas share the index: what one caches of an organization is not
// read again once the other has changed the organization's entries (a
// reindex, a removal, a space moved to another organization), within
// generationsTTL.
func TestCachedReadsFollowOtherReplicasWrites(t *testing.T) {
	ctx := context.Background()
	db := mongotest.Database(t)
	if err := searchmongo.EnsureIndexes(ctx, db); err != nil {
		t.Fatal(err)
	}
	links := links.New("http://gw.test", "http://app.test")
	a := search.New(searchmongo.NewStore(db), links)
	b := search.New(searchmongo.NewStore(db), links)
	// seen waits until a's search of query in org's spaces finds want.
	seen := func(what, org string, spaces []string, query string, want ...string) search.Result {
		t.Helper()
		var res search.Result
		waittest.Until(t, what, 5*time.Second, func() bool {
			res = mustSearch(t, a, org, spaces, query)
			got := hits(res)
			return len(got) == len(want) && (len(want) == 0 || cmp.Equal(got, want))
		})
		return res
	}
	if err := b.IndexRevision(ctx, "acme", "s1", []revision.Page{doc("p1", "Alpha", "alpha", "Old walrus text.\n")}); err != nil {
		t.Fatal(err)
	}
	seen("walrus", "acme", []string{"s1"}, "walrus", "s1/p1")
	if got := hits(mustSearch(t, a, "acme", []string{"s1"}, "walrus")); !cmp.Equal(got, []string{"s1/p1"}) {
		t.Fatalf("walrus from a's cache: %v", got)
	}
	if got := hits(mustSearch(t, a, "acme", []string{"s1"}, "narwhal")); len(got) != 0 {
		t.Fatalf("narwhal before it is written: %v", got)
	}

	if err := b.IndexRevision(ctx, "acme", "s1", []revision.Page{doc("p1", "Renamed", "alpha", "New narwhal text.\n")}); err != nil {
		t.Fatal(err)
	}
	seen("walrus gone after the reindex", "acme", []string{"s1"}, "walrus")
	if res := seen("narwhal after the reindex", "acme", []string{"s1"}, "narwhal", "s1/p1"); res.Items[0].Pages[0].Title != "Renamed" {
		t.Fatalf("narwhal after the reindex: %+v", res.Items)
	}

	// Another space changes: found with s1, whose entries a had cached.
	if err := b.IndexRevision(ctx, "acme", "s2", []revision.Page{doc("q1", "Other", "other", "Narwhal again.\n")}); err != nil {
		t.Fatal(err)
	}
	seen("narwhal in two spaces", "acme", []string{"s1", "s2"}, "narwhal", "s1/p1", "s2/q1")

	// The space moves to another organization: gone from acme's results,
	// found in globex's.
	if err := b.IndexRevision(ctx, "globex", "s1", []revision.Page{doc("p1", "Renamed", "alpha", "New narwhal text.\n")}); err != nil {
		t.Fatal(err)
	}
	seen("the moved space gone from acme", "acme", []string{"s1"}, "narwhal")
	seen("the moved space in globex", "globex", []string{"s1"}, "narwhal", "s1/p1")
	if err := b.RemoveSpace(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	seen("the removed space gone", "globex", []string{"s1"}, "narwhal")
}

// A replica's own index changes show in its next search at once: the
// word indexed before is gone, though its postings were kept.
func TestOwnWritesShowAtOnce(t *testing.T) {
	ctx := context.Background()
	db := mongotest.Database(t)
	if err := searchmongo.EnsureIndexes(ctx, db); err != nil {
		t.Fatal(err)
	}
	a := search.New(searchmongo.NewStore(db).KeepingGenerations(time.Hour), links.New("", ""))
	words := []string{"walrus", "narwhal", "dugong"}
	for i, word := range words {
		if err := a.IndexRevision(ctx, "acme", "s1", []revision.Page{doc("p1", "Alpha", "alpha", word+" text.\n")}); err != nil {
			t.Fatal(err)
		}
		if got := hits(mustSearch(t, a, "acme", []string{"s1"}, word)); !cmp.Equal(got, []string{"s1/p1"}) {
			t.Fatalf("write %d: %s not found at once: %v", i, word, got)
		}
		if i > 0 {
			if got := hits(mustSearch(t, a, "acme", []string{"s1"}, words[i-1])); len(got) != 0 {
				t.Fatalf("write %d: %s still found: %v", i, words[i-1], got)
			}
		}
	}
}

// A phrase's and a whole title's lists are in the shard of their first
// term: a query reads them with its terms, no shard more.
func TestPhraseListsShareTheirFirstTermsShard(t *testing.T) {
	ctx := context.Background()
	db := mongotest.Database(t)
	svc := search.New(searchmongo.NewStore(db), links.New("", ""))
	if err := svc.IndexRevision(ctx, "acme", "s1", []revision.Page{doc("p", "Merge rules", "merge", "")}); err != nil {
		t.Fatal(err)
	}
	for _, term := range []string{search.Phrase("merge", "rules"), search.Exact("Merge rules")} {
		if c := searchmongo.PostingsCollection(term); c != searchmongo.PostingsCollection("merge") {
			t.Errorf("%s is in %s, merge in %s", term, c, searchmongo.PostingsCollection("merge"))
		}
		n, err := db.Collection(searchmongo.PostingsCollection("merge")).CountDocuments(ctx, bson.M{"_id": "acme/" + term + "/s1"})
		if err != nil || n != 1 {
			t.Errorf("list of %s: %d, %v", term, n, err)
		}
	}
}

// countingStore counts the postings reads of the real store's readers: a
// result page kept by the service reads none.
type countingStore struct {
	*searchmongo.Store
	reads atomic.Int64
}

func (s *countingStore) Reader(ctx context.Context, org string) (search.Reader, error) {
	r, err := s.Store.Reader(ctx, org)
	return countingReader{Reader: r, reads: &s.reads}, err
}

type countingReader struct {
	search.Reader
	reads *atomic.Int64
}

func (r countingReader) Postings(ctx context.Context, spaces, terms []string) (map[string]map[string][]search.Posting, error) {
	r.reads.Add(1)
	return r.Reader.Postings(ctx, spaces, terms)
}

// A query asked again is answered from the result kept, unless anything
// it was made from differs: the readable spaces, their titles, the page
// asked for, the organization, or a space's entries written since.
func TestResultsKeptUnderWhatTheyAreMadeOf(t *testing.T) {
	ctx := context.Background()
	db := mongotest.Database(t)
	if err := searchmongo.EnsureIndexes(ctx, db); err != nil {
		t.Fatal(err)
	}
	st := &countingStore{Store: searchmongo.NewStore(db).KeepingGenerations(time.Hour)}
	svc := search.New(st, links.New("", ""))
	for _, sp := range []string{"s1", "s2"} {
		if err := svc.IndexRevision(ctx, "acme", sp, []revision.Page{doc("p"+sp, "Alpha", "alpha", "Walrus text.\n")}); err != nil {
			t.Fatal(err)
		}
	}
	search := func(what, org string, spaces map[string]string, limit int, read bool, want ...string) search.Result {
		t.Helper()
		before := st.reads.Load()
		res, err := svc.Search(ctx, org, spaces, "walrus", limit, nil)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if got := hits(res); !cmp.Equal(got, want, cmpopts.EquateEmpty()) {
			t.Fatalf("%s: %v, want %v", what, got, want)
		}
		if didRead := st.reads.Load() > before; didRead != read {
			t.Fatalf("%s: read the postings %v, want %v", what, didRead, read)
		}
		return res
	}
	one := map[string]string{"s1": "One"}
	search("first", "acme", one, 0, true, "s1/ps1")
	search("asked again", "acme", one, 0, false, "s1/ps1")
	if res := search("another title", "acme", map[string]string{"s1": "Renamed"}, 0, true, "s1/ps1"); res.Items[0].Title != "Renamed" {
		t.Fatalf("another title: %q", res.Items[0].Title)
	}
	both := map[string]string{"s1": "One", "s2": "Two"}
	search("another space readable", "acme", both, 0, true, "s1/ps1", "s2/ps2")
	search("another page size", "acme", both, 1, true, "s1/ps1")
	search("another organization", "globex", one, 0, true)
	search("both again", "acme", both, 0, false, "s1/ps1", "s2/ps2")

	if err := svc.IndexRevision(ctx, "acme", "s2", []revision.Page{doc("q2", "Beta", "beta", "Walrus again.\n")}); err != nil {
		t.Fatal(err)
	}
	search("after a space's entries changed", "acme", both, 0, true, "s1/ps1", "s2/q2")
	search("the space unchanged alone", "acme", one, 0, false, "s1/ps1")

	// A result page heavier than the service keeps is answered each time
	// from the postings, and pushes out no other result kept.
	svc.KeepingResultsUpTo(1)
	search("too large to keep", "acme", map[string]string{"s2": "Two"}, 0, true, "s2/q2")
	search("too large, asked again", "acme", map[string]string{"s2": "Two"}, 0, true, "s2/q2")
	search("a smaller page kept before", "acme", one, 0, false, "s1/ps1")
}
