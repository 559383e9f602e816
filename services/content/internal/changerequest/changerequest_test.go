package changerequest_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docspub/platform/libs/blob/blobtest"
	"github.com/docspub/platform/libs/paging"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/content/internal/access"
	"github.com/docspub/platform/services/content/internal/changerequest"
	"github.com/docspub/platform/services/content/internal/changerequestmongo"
	"github.com/docspub/platform/services/content/internal/links"
	"github.com/docspub/platform/services/content/internal/peoplemongo"
	"github.com/docspub/platform/services/content/internal/revision"
	"github.com/docspub/platform/services/content/internal/revisionmongo"
	"github.com/docspub/platform/services/content/internal/space"
	"github.com/docspub/platform/services/content/internal/spacemongo"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

// pagesImporter stands in for the website importer: each import sets the
// markdown of pages by slug (adding missing ones at the top).
type pagesImporter struct {
	mu   sync.Mutex
	next map[string]string // slug → markdown of the next import
}

func (p *pagesImporter) Import(_ context.Context, base revision.Revision, _, _ string) ([]revision.Page, []revision.File, int, int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pages := append([]revision.Page(nil), base.Pages...)
	for slug, md := range p.next {
		found := false
		for i := range pages {
			if pages[i].Slug == slug {
				pages[i].Markdown, found = md, true
			}
		}
		if !found {
			pages = append(pages, revision.Page{ID: "p-" + slug, Kind: revision.KindDocument, Title: slug, Slug: slug, Markdown: md, Pages: []revision.Page{}})
		}
	}
	return pages, base.Files, len(p.next), len(p.next), nil
}

type env struct {
	t      *testing.T
	spaces *space.Service
	crs    *changerequest.Service
	imp    *pagesImporter
	revs   *revisionmongo.Store
	store  *changerequestmongo.Store
	db     *mongo.Database
	caller access.Caller
	space  string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	db := mongotest.Database(t)
	ctx := context.Background()
	indexes := append(spacemongo.Indexes(), changerequestmongo.Indexes()...)
	if err := mongox.EnsureIndexes(ctx, db, append(indexes, revisionmongo.Indexes()...)...); err != nil {
		t.Fatal(err)
	}
	urls := links.New("http://gw.test", "http://gw.test/app")
	mdb := mongox.NewDB(db)
	people := peoplemongo.NewStore(db, urls)
	if err := people.Put(ctx, "org1", "ada", "Ada", "ada@acme.test", roles.Admin); err != nil {
		t.Fatal(err)
	}
	crStore := changerequestmongo.NewStore(mdb, nil)
	spaces := space.New(space.Deps{Store: spacemongo.NewStore(mdb, nil), People: people, URLs: urls})
	imp := &pagesImporter{}
	revs := revisionmongo.NewStore(db, blobtest.Open(t, blobtest.Dir(t)))
	crs := changerequest.New(changerequest.Deps{Store: crStore, Revisions: revs,
		Spaces: spaces, People: people, Importer: imp, URLs: urls, Now: time.Now})
	caller := access.Caller{UserID: "ada", Roles: map[string]string{"org1": "admin"}}
	sp, err := spaces.CreateSpace(ctx, caller, "org1", space.CreateSpaceInput{})
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, spaces: spaces, crs: crs, imp: imp, revs: revs, store: crStore, db: db, caller: caller, space: sp.ID}
}

func (e *env) grant() access.Grant {
	e.t.Helper()
	g, err := e.spaces.Enter(context.Background(), e.caller, e.space, access.View)
	if err != nil {
		e.t.Fatal(err)
	}
	return g
}

func (e *env) create(subject string) changerequest.View {
	e.t.Helper()
	v, err := e.crs.Create(context.Background(), e.grant(), subject)
	if err != nil {
		e.t.Fatal(err)
	}
	return v
}

func (e *env) importPages(cr string, pages map[string]string) {
	e.t.Helper()
	e.imp.mu.Lock()
	e.imp.next = pages
	e.imp.mu.Unlock()
	if _, err := e.crs.Import(context.Background(), e.grant(), cr, "website", "https://example.com/"); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) merge(cr string) changerequest.Outcome {
	e.t.Helper()
	out, err := e.crs.Merge(context.Background(), e.grant(), cr, func(context.Context) (access.Grant, error) { return e.grant(), nil })
	if err != nil {
		e.t.Fatal(err)
	}
	return out
}

func TestNumbersAreDistinctUnderConcurrency(t *testing.T) {
	e := newEnv(t)
	var wg sync.WaitGroup
	got := make(chan int, 20)
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := e.crs.Create(context.Background(), e.grant(), "c")
			if err != nil {
				t.Error(err)
				return
			}
			got <- v.Number
		}()
	}
	wg.Wait()
	close(got)
	seen := map[int]bool{}
	for n := range got {
		if seen[n] || n < 1 || n > 20 {
			t.Errorf("number %d repeated or out of 1..20", n)
		}
		seen[n] = true
	}
	if len(seen) != 20 {
		t.Errorf("%d distinct numbers, want 20", len(seen))
	}
}

func TestMergeFlows(t *testing.T) {
	e := newEnv(t)
	base := strings.Repeat("line\n", 5)
	first := e.create("base")
	e.importPages(first.ID, map[string]string{"a": "A1\n" + base, "b": "B1\n" + base})
	if out := e.merge(first.ID); out.Result != changerequest.ResultMerge {
		t.Fatalf("first merge %+v", out)
	}

	x, y, z := e.create("x"), e.create("y"), e.create("z")
	e.importPages(x.ID, map[string]string{"a": "A-x\n" + base})
	e.importPages(y.ID, map[string]string{"b": "B-y\n" + base})
	e.importPages(z.ID, map[string]string{"a": "A-z\n" + base})
	if out := e.merge(x.ID); out.Result != changerequest.ResultMerge {
		t.Fatalf("merge x %+v", out)
	}
	if v, _ := e.crs.Get(context.Background(), e.grant(), y.ID); !v.Outdated {
		t.Errorf("y is not outdated after x merged")
	}
	if out := e.merge(y.ID); out.Result != changerequest.ResultMerge {
		t.Fatalf("merge y (other page) %+v", out)
	}
	out := e.merge(z.ID)
	if out.Result != changerequest.ResultConflicts || len(out.Conflicts) == 0 {
		t.Fatalf("merge z (same line as x) %+v, want conflicts", out)
	}
	if _, err := e.crs.Merge(context.Background(), e.grant(), x.ID, nil); err == nil {
		t.Error("merging a merged change request again succeeded")
	}
	if v, err := e.crs.Get(context.Background(), e.grant(), "1"); err != nil || v.ID != first.ID {
		t.Errorf("by number: %+v, %v", v, err)
	}
	if _, err := e.crs.Get(context.Background(), e.grant(), "nope"); err == nil {
		t.Error("unknown change request found")
	}
	// Update brings the space into a change request and clears outdated.
	w := e.create("w")
	if v, _ := e.crs.Get(context.Background(), e.grant(), w.ID); v.Outdated {
		t.Errorf("a new change request is outdated")
	}
}

func TestSubjectRefusesInvisibleCharacters(t *testing.T) {
	e := newEnv(t)
	cr := e.create("fine")
	for _, subject := range []string{"a\x00b", "line\nbreak", "txt\u202eexe.pdf", strings.Repeat("s", changerequest.MaxSubject+1)} {
		_, err := e.crs.Create(context.Background(), e.grant(), subject)
		var ae *apierr.Error
		if !errors.As(err, &ae) || ae.Status != 400 || ae.Field != "subject" {
			t.Errorf("Create(%q) = %v, want a 400 naming subject", subject, err)
		}
		_, err = e.crs.Update(context.Background(), e.grant(), cr.ID, changerequest.Patch{Subject: &subject})
		if !errors.As(err, &ae) || ae.Status != 400 || ae.Field != "subject" {
			t.Errorf("Update(%q) = %v, want a 400 naming subject", subject, err)
		}
	}
}

func TestListPagesNewestFirst(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	var ids []string
	for _, s := range []string{"one", "two", "three"} {
		ids = append(ids, e.create(s).ID)
	}
	first, err := e.crs.List(ctx, e.grant(), changerequest.Query{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if first.Count != 3 || len(first.Items) != 2 || first.Next == nil {
		t.Fatalf("first page of 2 = %d items of %d, next %v; want 2 of 3 with a next page", len(first.Items), first.Count, first.Next)
	}
	q := changerequest.Query{Limit: 2}
	if err := (paging.Request{Page: first.Next.Page}).Keys(&q.AfterID); err != nil || q.AfterID != first.Items[1].ID {
		t.Fatalf("next cursor holds %q (%v), want the id of the page's last item %q", q.AfterID, err, first.Items[1].ID)
	}
	second, err := e.crs.List(ctx, e.grant(), q)
	if err != nil {
		t.Fatal(err)
	}
	if second.Count != 3 || len(second.Items) != 1 || second.Next != nil {
		t.Fatalf("second page = %d items of %d, next %v; want the last 1 of 3", len(second.Items), second.Count, second.Next)
	}
	var got []string
	for _, v := range append(first.Items, second.Items...) {
		got = append(got, v.ID)
	}
	slices.Reverse(ids)
	if !slices.Equal(got, ids) {
		t.Errorf("listed %v, want newest first %v", got, ids)
	}
}
