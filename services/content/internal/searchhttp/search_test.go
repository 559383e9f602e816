package searchhttp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/apitest"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/services/content/internal/access"
	"github.com/docspub/platform/services/content/internal/links"
	"github.com/docspub/platform/services/content/internal/revision"
	"github.com/docspub/platform/services/content/internal/search"
	"github.com/docspub/platform/services/content/internal/searchhttp"
	"github.com/docspub/platform/services/content/internal/searchmongo"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

// readable lets members of an organization read its listed spaces (their
// titles by id).
type readable map[string]map[string]string

func (r readable) Readable(_ context.Context, c access.Caller, org string, limit int) (map[string]string, error) {
	if _, ok := c.Role(org); !ok {
		return nil, apierr.NotFound("organization not found")
	}
	if len(r[org]) > limit {
		return nil, fmt.Errorf("%d spaces, over the limit %d", len(r[org]), limit)
	}
	return r[org], nil
}

func TestSearchHandler(t *testing.T) {
	ctx := context.Background()
	db := mongotest.Database(t)
	if err := searchmongo.EnsureIndexes(ctx, db); err != nil {
		t.Fatal(err)
	}
	svc := search.New(searchmongo.NewStore(db), links.New("http://gw.test", "http://app.test"))
	for _, sp := range []string{"s1", "s2"} {
		pages := []revision.Page{{ID: "p1", Kind: revision.KindDocument, Title: "Onboarding", Slug: "onboarding",
			Markdown: "Welcome aboard.\n\n## Laptop\n\nPick up your laptop on day one.\n"}}
		if err := svc.IndexRevision(ctx, "acme", sp, pages); err != nil {
			t.Fatal(err)
		}
	}
	signer := apitest.Signer(t)
	e := httpx.NewEngine(logx.ForTest(t), "content")
	searchhttp.Register(e.Group("/v1", internaltoken.Require(signer), internaltoken.RequireUser), svc, readable{"acme": {"s1": "Handbook"}})
	api := apitest.New(t, e, signer)
	as := func(user string) internaltoken.Principal {
		if user == "ann" {
			return internaltoken.Principal{UserID: "ann", Roles: map[string]string{"acme": "read"}}
		}
		return internaltoken.Principal{UserID: user, Roles: map[string]string{"other": "admin"}}
	}
	path := func(q string) string { return "/v1/orgs/acme/search?query=" + url.QueryEscape(q) }

	api.Run(t, as, []apitest.Row{
		{Name: "member finds a word", User: "ann", Method: "GET", Path: path("laptop"), Want: http.StatusOK},
		{Name: "query is required", User: "ann", Method: "GET", Path: "/v1/orgs/acme/search", Want: http.StatusBadRequest, Field: "query"},
		{Name: "query over 512 characters", User: "ann", Method: "GET", Path: path(strings.Repeat("a", 513)), Want: http.StatusBadRequest, Field: "query"},
		{Name: "limit over 1000", User: "ann", Method: "GET", Path: path("laptop") + "&limit=1001", Want: http.StatusBadRequest, Field: "limit"},
		{Name: "bad cursor", User: "ann", Method: "GET", Path: path("laptop") + "&page=x", Want: http.StatusBadRequest, Field: "page"},
		{Name: "non-member", User: "bob", Method: "GET", Path: path("laptop"), Want: http.StatusNotFound},
	})

	r := api.Expect(t, as("ann"), "GET", path("laptop"), "", http.StatusOK, "searchOrganizationContent")
	type body struct {
		Next  *struct{ Page string }
		Count int
		Items []search.SpaceResult
	}
	got := apitest.Decode[body](t, r.Body)
	if got.Count != 1 || len(got.Items) != 1 || got.Items[0].ID != "s1" || got.Items[0].Title != "Handbook" {
		t.Fatalf("result %s: want only the readable space s1", r.Body)
	}
	sec := got.Items[0].Pages[0].Sections[0]
	if sec.ID != "p1#laptop" || sec.Path != "onboarding#laptop" || sec.URLs.App != "http://app.test/s/s1/onboarding#laptop" {
		t.Fatalf("section %+v", sec)
	}
	empty := api.Expect(t, as("ann"), "GET", path("unfindable"), "", http.StatusOK, "searchOrganizationContent")
	if b := apitest.Decode[body](t, empty.Body); b.Count != 0 || b.Items == nil || b.Next != nil {
		t.Fatalf("empty result %s", empty.Body)
	}
}
