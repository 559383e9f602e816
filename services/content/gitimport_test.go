package content_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/kafkatest"
	"github.com/docspub/platform/libs/waittest"
	"github.com/docspub/platform/services/content"
	"github.com/google/go-cmp/cmp"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// A Git import is one operation of content: the space moves to the
// revision built over the parent the importer read, takes its Git sync
// state in the same write (one space.updated event), at content's clock;
// pages keep their ids by path; a stale parent is a 409. Each internal
// route answers only the service its group names.
func TestGitImportIsOneChange(t *testing.T) {
	s := startService(t, time.Hour)
	s.clock.Add(48 * time.Hour) // content's clock, not the machine's
	g := newGitSpace(t, s)
	ada, sp, integrations, sites, identity := g.ada, g.id, g.integrations, g.sites, g.as("identity")
	git, reader := g.git, g.reader

	for _, tc := range []struct {
		name   string
		who    *caller
		path   string
		status int
	}{
		{"integrations on Git sync", integrations, git + "/current", 200},
		{"sites on Git sync", sites, git + "/current", 403},
		{"another service on Git sync", identity, git + "/content", 403},
		{"a user on Git sync", ada, git + "/current", 403},
		{"sites on the readers' routes", sites, reader + "/current", 200},
		{"integrations on the readers' routes", integrations, reader + "/content", 403},
		{"another service on the readers' routes", identity, reader + "/current", 403},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.who.must(tc.status, "GET", tc.path, nil) })
	}

	var cur contentapi.Current
	if err := json.Unmarshal(integrations.must(200, "GET", git+"/current", nil).body, &cur); err != nil || cur.Revision == "" {
		t.Fatalf("current %+v: %v", cur, err)
	}
	version := func() int64 {
		var d struct {
			Version int64 `bson:"version"`
		}
		if err := s.db().Collection("spaces").FindOne(context.Background(), bson.M{"_id": sp}).Decode(&d); err != nil {
			t.Fatal(err)
		}
		return d.Version
	}
	before := version()
	page := func(md string) []contentapi.Page {
		return []contentapi.Page{{Kind: "document", Title: "One", Slug: "one", Markdown: md, Pages: []contentapi.Page{}}}
	}
	sync := &contentapi.GitSync{InstallationID: "git", InstallationProvider: "github", InstallationStatus: "active",
		URL: "https://example.com/r.git", UpdatedAt: s.clock.Now()}
	var first contentapi.Imported
	body := integrations.must(201, "POST", git+"/revisions", contentapi.Import{Parent: cur.Revision, Pages: page("Hi\n"),
		Files: []contentapi.File{}, Git: &contentapi.Git{OID: "0123456789abcdef0123456789abcdef01234567", Message: "import"}, GitSync: sync}).body
	if err := json.Unmarshal(body, &first); err != nil || first.Revision == "" {
		t.Fatalf("import: %s", body)
	}
	if got := version() - before; got != 1 {
		t.Errorf("the import wrote the space %d times, want once", got)
	}
	integrations.must(409, "POST", git+"/revisions", contentapi.Import{Parent: cur.Revision, Pages: page("stale\n")})
	integrations.must(400, "POST", git+"/revisions", contentapi.Import{Pages: page("no parent\n")})

	// One space.updated after space.created, with the revision and the Git sync state.
	waittest.Until(t, "the outbox to drain", 30*time.Second, func() bool {
		n, err := s.db().Collection("spaces").CountDocuments(context.Background(), bson.M{"_outbox.0": bson.M{"$exists": true}})
		return err == nil && n == 0
	})
	evs := kafkatest.ReadN(t, s.brokers, content.Topic, 2, 30*time.Second)
	var view struct {
		Revision  string    `json:"revision"`
		UpdatedAt time.Time `json:"updatedAt"`
		GitSync   *struct {
			URL string `json:"url"`
		} `json:"gitSync"`
	}
	if err := json.Unmarshal(evs[1].Data, &view); err != nil || evs[1].Type != contentapi.SpaceUpdated {
		t.Fatalf("events %s, %s: %v", evs[0].Type, evs[1].Type, err)
	}
	if view.Revision != first.Revision || view.GitSync == nil || view.GitSync.URL != sync.URL {
		t.Errorf("space.updated carries %+v, want revision %s with the Git sync state", view, first.Revision)
	}
	if time.Until(view.UpdatedAt) < 47*time.Hour {
		t.Errorf("updatedAt %s is not content's clock", view.UpdatedAt)
	}

	// The next import over it keeps the page's id.
	content := func() contentapi.Content {
		var c contentapi.Content
		if err := json.Unmarshal(sites.must(200, "GET", reader+"/content", nil).body, &c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	was := content()
	integrations.must(201, "POST", git+"/revisions", contentapi.Import{Parent: first.Revision, Pages: page("Changed\n")})
	now := content()
	if len(was.Pages) != 1 || len(now.Pages) != 1 || now.Pages[0].ID != was.Pages[0].ID || now.Pages[0].Markdown != "Changed\n" {
		t.Errorf("pages before %+v, after %+v: want the same id, new markdown", was.Pages, now.Pages)
	}
}

// TestGitImportRedirects: a Git import's redirects, naming pages by their
// place in the import, are stored with the revision and answered to the
// readers' route with the pages' ids; an import without any (null) keeps
// them, one with an empty list removes them, one naming no document page
// is a 400 and stores nothing.
func TestGitImportRedirects(t *testing.T) {
	s := startService(t, time.Hour)
	g := newGitSpace(t, s)
	integrations, git := g.integrations, g.git
	content := func() contentapi.Content { return g.content(t) }
	pages := []contentapi.Page{
		{Kind: "document", Title: "Home", Slug: "home", Markdown: "Home\n", Pages: []contentapi.Page{}},
		{Kind: "group", Title: "Guides", Slug: "guides", Pages: []contentapi.Page{
			{Kind: "document", Title: "Page", Slug: "page", Markdown: "Page\n", Pages: []contentapi.Page{}}}},
	}
	imported := func(status int, redirects []contentapi.ImportRedirect) {
		t.Helper()
		body := integrations.must(status, "POST", git+"/revisions", contentapi.Import{Parent: content().Revision, Pages: pages,
			Files: []contentapi.File{}, Redirects: redirects}).body
		if status == 201 && !json.Valid(body) {
			t.Fatalf("import: %s", body)
		}
	}

	imported(201, []contentapi.ImportRedirect{{Path: "previous/page", Page: []int{1, 0}}, {Path: "start", Page: []int{0}}})
	c := content()
	want := []contentapi.Redirect{{Path: "previous/page", Page: c.Pages[1].Pages[0].ID}, {Path: "start", Page: c.Pages[0].ID}}
	if diff := cmp.Diff(want, c.Redirects); diff != "" {
		t.Fatalf("redirects answered (-want +got):\n%s", diff)
	}
	imported(201, nil)
	if diff := cmp.Diff(want, content().Redirects); diff != "" {
		t.Errorf("an import without redirects changed them (-want +got):\n%s", diff)
	}
	rev := content().Revision
	imported(400, []contentapi.ImportRedirect{{Path: "guides", Page: []int{1}}})
	if content().Revision != rev {
		t.Error("a refused import moved the space")
	}
	imported(201, []contentapi.ImportRedirect{})
	if got := content().Redirects; len(got) != 0 {
		t.Errorf("an import with no redirects kept %+v", got)
	}
}

// TestGitImportLinkPagesAndLayout: a Git import's link pages (SUMMARY.md
// entries that link) and a document's layout and cover are stored with
// the revision: readers get them back as imported, the API shows the
// link as a page of type link and the document's layout; a link without
// its destination, a layout of an unknown width or a cover of an
// impossible height is a 400 naming the field.
func TestGitImportLinkPagesAndLayout(t *testing.T) {
	s := startService(t, time.Hour)
	g := newGitSpace(t, s)
	ada, sp, integrations, git := g.ada, g.id, g.integrations, g.git
	content := func() contentapi.Content { return g.content(t) }
	layout := &contentapi.Layout{Width: "wide", Cover: true, CoverSize: "hero", Description: true, Pagination: true}
	cover := &contentapi.Cover{Src: "https://example.com/cover.png", YPos: -12, Height: 300}
	pages := []contentapi.Page{
		{Kind: "document", Title: "Home", Slug: "home", Markdown: "Home\n\n## Buttons\n", Layout: layout, Cover: cover, Pages: []contentapi.Page{}},
		{Kind: "link", Title: "Buttons", Slug: "buttons", Href: "home.md#buttons", Pages: []contentapi.Page{}},
		{Kind: "link", Title: "Website", Slug: "website", Href: "https://example.com/x", Pages: []contentapi.Page{}},
	}
	integrations.must(201, "POST", git+"/revisions", contentapi.Import{Parent: content().Revision, Pages: pages, Files: []contentapi.File{}})
	c := content()
	for i := range c.Pages {
		c.Pages[i].ID = ""
	}
	if diff := cmp.Diff(pages, c.Pages); diff != "" {
		t.Errorf("pages read back (-imported +read):\n%s", diff)
	}
	var rev struct {
		Pages []struct {
			Type, Href string
			Layout     *struct{ Width string }
			Target     map[string]string
			Cover      *struct {
				Ref    map[string]string
				YPos   float64
				Height int
			}
		}
	}
	if err := json.Unmarshal(ada.must(200, "GET", "/v1/spaces/"+sp+"/content", nil).body, &rev); err != nil {
		t.Fatal(err)
	}
	if len(rev.Pages) != 3 || rev.Pages[0].Layout == nil || rev.Pages[0].Layout.Width != "wide" ||
		rev.Pages[1].Type != "link" || rev.Pages[1].Href != "home.md#buttons" || rev.Pages[2].Type != "link" ||
		rev.Pages[1].Target["kind"] != "anchor" || rev.Pages[0].Cover == nil ||
		rev.Pages[0].Cover.Ref["url"] != "https://example.com/cover.png" || rev.Pages[0].Cover.YPos != -12 || rev.Pages[1].Target["anchor"] != "buttons" || rev.Pages[2].Target["url"] != "https://example.com/x" {
		t.Errorf("the API's pages: %+v", rev.Pages)
	}
	for field, bad := range map[string]contentapi.Page{
		"pages.href":   {Kind: "link", Title: "No destination", Pages: []contentapi.Page{}},
		"pages.layout": {Kind: "document", Title: "Odd", Layout: &contentapi.Layout{Width: "huge", CoverSize: "hero"}, Pages: []contentapi.Page{}},
		"pages.cover":  {Kind: "document", Title: "Tall", Cover: &contentapi.Cover{Src: "c.png", Height: 5000}, Pages: []contentapi.Page{}},
	} {
		body := integrations.must(400, "POST", git+"/revisions", contentapi.Import{Parent: content().Revision,
			Pages: []contentapi.Page{bad}, Files: []contentapi.File{}}).body
		if !strings.Contains(string(body), field) {
			t.Errorf("refusing %s: %s", field, body)
		}
	}
}

// gitSpace is a new space of org1 as the Git import tests use it: its
// admin, the integrations and sites services calling content, the space's
// Git sync and readers' routes.
type gitSpace struct {
	s                        *service
	ada, integrations, sites *caller
	id, git, reader          string
}

func newGitSpace(t *testing.T, s *service) gitSpace {
	t.Helper()
	g := gitSpace{s: s, ada: s.as("ada", "org1", "admin")}
	g.id = str(t, g.ada.must(201, "POST", "/v1/orgs/org1/spaces", map[string]any{"title": "Handbook"}).json(t), "id")
	g.integrations, g.sites = g.as("integrations"), g.as("sites")
	g.git, g.reader = contentapi.SpacePath(g.id, "/git"), contentapi.SpacePath(g.id, "")
	return g
}

// as is a call from another platform service.
func (g gitSpace) as(service string) *caller {
	tok, err := g.s.signer.Mint("content", internaltoken.Principal{Service: service})
	if err != nil {
		panic(err)
	}
	return &caller{s: g.s, org: "org1", tok: tok}
}

// content is the space's content as sites reads it.
func (g gitSpace) content(t *testing.T) contentapi.Content {
	t.Helper()
	var c contentapi.Content
	if err := json.Unmarshal(g.sites.must(200, "GET", g.reader+"/content", nil).body, &c); err != nil {
		t.Fatal(err)
	}
	return c
}
