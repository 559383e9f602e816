package sitehttp_test

import (
	"strings"
	"testing"

	"github.com/docspub/platform/libs/apitest"
	"github.com/docspub/platform/libs/contracttest"
	"github.com/docspub/platform/libs/paging"
	"github.com/google/go-cmp/cmp"
)

func TestSiteLifecycle(t *testing.T) {
	e := newEnv(t)
	st := e.createSite("cid", "org1", "")
	if st.Title != "Untitled site" || st.Type != "basic" || st.Visibility != "public" || st.Published ||
		st.SiteSpaces != 0 || st.AgentsContext != "included" || !st.Permissions["edit"] || st.Permissions["admin"] {
		t.Errorf("created with defaults: %+v", st)
	}
	if st.URLs.Location != "http://gw.test/v1/orgs/org1/sites/"+st.ID {
		t.Errorf("urls.location = %q", st.URLs.Location)
	}
	path := sitePath("org1", st.ID)
	e.ok("rex", "GET", path, "", 200, "getSiteById")

	got := apitest.Decode[siteBody](t, e.ok("cid", "PATCH", path, `{"title":"Developer Docs","visibility":"unlisted",
		"basename":"dev","adaptiveContent":{"enabled":true},"agentsContext":"excluded",
		"proxy":"docs.acme.com/help"}`, 200, "updateSiteById").Body)
	if got.Title != "Developer Docs" || got.Visibility != "unlisted" || got.Basename != "dev" || !got.AdaptiveContent.Enabled ||
		got.AgentsContext != "excluded" || got.Proxy == nil || got.Proxy.Origin != "docs.acme.com/help" {
		t.Errorf("patched: %+v", got)
	}
	if got.URLs.Published != "http://gw.test/sites/org1/dev" {
		t.Errorf("urls.published = %q", got.URLs.Published)
	}
	got = apitest.Decode[siteBody](t, e.ok("cid", "PATCH", path, `{"proxy":null}`, 200, "updateSiteById").Body)
	if got.Proxy != nil || got.Title != "Developer Docs" {
		t.Errorf("proxy null removes only the proxy: %+v", got)
	}

	// Basenames are unique in an organization.
	other := e.createSite("cid", "org1", `{"title":"Other"}`)
	if r := e.do("cid", "PATCH", sitePath("org1", other.ID), `{"basename":"dev"}`); r.Status != 409 {
		t.Errorf("taken basename: %d %s", r.Status, r.Body)
	}

	r := e.ok("cid", "POST", path+"/publish", "", 200, "")
	contracttest.Validate(t, "Site", r.Body)
	if !apitest.Decode[siteBody](t, r.Body).Published {
		t.Error("publish did not publish")
	}
	e.ok("cid", "POST", path+"/publish", "", 200, "") // idempotent

	var l paging.List[siteBody]
	for _, tc := range []struct {
		name  string
		query string
		want  []string
	}{
		{"all", "", []string{st.ID, other.ID}},
		{"published", "?published=true", []string{st.ID}},
		{"unpublished", "?published=false", []string{other.ID}},
		{"title contains, any case", "?title=DEVELOPER", []string{st.ID}},
		{"title matches nothing", "?title=zzz", []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l = apitest.Decode[paging.List[siteBody]](t, e.ok("rex", "GET", "/v1/orgs/org1/sites"+tc.query, "", 200, "listSites").Body)
			if diff := cmp.Diff(ids(l.Items), tc.want); diff != "" || l.Count != len(tc.want) {
				t.Errorf("list%s (-got +want):\n%s count %d", tc.query, diff, l.Count)
			}
		})
	}

	r = e.ok("cid", "POST", path+"/unpublish", "", 200, "")
	contracttest.Validate(t, "Site", r.Body)
	if apitest.Decode[siteBody](t, r.Body).Published {
		t.Error("unpublish did not unpublish")
	}

	// Deleting needs the manage permission.
	if r := e.do("cid", "DELETE", path, ""); r.Status != 403 {
		t.Errorf("delete as creator: %d %s", r.Status, r.Body)
	}
	e.ok("ada", "DELETE", path, "", 205, "deleteSiteById")
	if r := e.do("ada", "GET", path, ""); r.Status != 404 {
		t.Errorf("deleted site: %d %s", r.Status, r.Body)
	}
	// Its basename is free again.
	e.ok("cid", "PATCH", sitePath("org1", other.ID), `{"basename":"dev"}`, 200, "updateSiteById")
}

func ids(items []siteBody) []string {
	out := []string{}
	for _, it := range items {
		out = append(out, it.ID)
	}
	return out
}

func TestListPages(t *testing.T) {
	e := newEnv(t)
	var want []string
	for i := 0; i < 5; i++ {
		want = append(want, e.createSite("ada", "org1", "").ID)
	}
	var got []string
	page := ""
	for n := 0; n < 10; n++ {
		l := apitest.Decode[paging.List[siteBody]](t, e.ok("ada", "GET", "/v1/orgs/org1/sites?limit=2&page="+page, "", 200, "listSites").Body)
		if l.Count != 5 {
			t.Errorf("count %d, want 5", l.Count)
		}
		got = append(got, ids(l.Items)...)
		if l.Next == nil {
			break
		}
		page = l.Next.Page
	}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("pages (-got +want):\n%s", diff)
	}
}

func TestAccessAndTenantIsolation(t *testing.T) {
	e := newEnv(t)
	st := e.createSite("ada", "org1", "")
	p := sitePath("org1", st.ID)
	e.api.Run(t, as, []apitest.Row{
		{Name: "reader views", User: "rex", Method: "GET", Path: p, Want: 200},
		{Name: "reader lists", User: "rex", Method: "GET", Path: "/v1/orgs/org1/sites", Want: 200},
		{Name: "reader cannot create", User: "rex", Method: "POST", Path: "/v1/orgs/org1/sites", Want: 403},
		{Name: "reader cannot patch", User: "rex", Method: "PATCH", Path: p, Body: `{"title":"Nope"}`, Want: 403},
		{Name: "reader cannot publish", User: "rex", Method: "POST", Path: p + "/publish", Want: 403},
		{Name: "reader cannot add spaces", User: "rex", Method: "POST", Path: p + "/site-spaces", Body: `{"spaceId":"s1"}`, Want: 403},
		{Name: "creator cannot set the adaptive schema", User: "cid", Method: "PUT", Path: p + "/adaptive-schema", Body: `{"jsonSchema":{}}`, Want: 403},
		{Name: "another org's member does not see it", User: "eve", Method: "GET", Path: p, Want: 404, Field: "site not found"},
		{Name: "another org's member cannot patch it", User: "eve", Method: "PATCH", Path: p, Body: `{"title":"Mine"}`, Want: 404},
		{Name: "another org's member cannot delete it", User: "eve", Method: "DELETE", Path: p, Want: 404},
		{Name: "another org's member cannot list org1", User: "eve", Method: "GET", Path: "/v1/orgs/org1/sites", Want: 404},
		{Name: "another org's member cannot read its schema", User: "eve", Method: "GET", Path: p + "/adaptive-schema", Want: 404},
		{Name: "another org's member cannot list its site spaces", User: "eve", Method: "GET", Path: p + "/site-spaces", Want: 404},
		{Name: "the site is not under another org", User: "both", Method: "GET", Path: sitePath("org2", st.ID), Want: 404},
		{Name: "a guest does not see it", User: "guest", Method: "GET", Path: p, Want: 404},
		{Name: "an unknown site", User: "ada", Method: "GET", Path: sitePath("org1", "nope"), Want: 404},
	})
}

func TestLimits(t *testing.T) {
	e := newEnv(t)
	e.content.add("s1", "org1", "Guide")
	st := e.createSite("ada", "org1", `{"spaces":["s1"]}`)
	p := sitePath("org1", st.ID)
	long := func(n int) string { return strings.Repeat("x", n) }
	e.api.Run(t, as, []apitest.Row{
		{Name: "title too short", User: "ada", Method: "POST", Path: "/v1/orgs/org1/sites", Body: `{"title":"x"}`, Want: 400, Field: "title:"},
		{Name: "title too long", User: "ada", Method: "POST", Path: "/v1/orgs/org1/sites", Body: `{"title":"` + long(129) + `"}`, Want: 400, Field: "title:"},
		{Name: "unknown type", User: "ada", Method: "POST", Path: "/v1/orgs/org1/sites", Body: `{"type":"gold"}`, Want: 400, Field: "type:"},
		{Name: "unknown visibility", User: "ada", Method: "POST", Path: "/v1/orgs/org1/sites", Body: `{"visibility":"secret"}`, Want: 400, Field: "visibility:"},
		{Name: "spaces not strings", User: "ada", Method: "POST", Path: "/v1/orgs/org1/sites", Body: `{"spaces":[1]}`, Want: 400, Field: "spaces"},
		{Name: "patch title too long", User: "ada", Method: "PATCH", Path: p, Body: `{"title":"` + long(129) + `"}`, Want: 400, Field: "title:"},
		{Name: "patch basename empty", User: "ada", Method: "PATCH", Path: p, Body: `{"basename":""}`, Want: 400, Field: "basename:"},
		{Name: "patch basename too long", User: "ada", Method: "PATCH", Path: p, Body: `{"basename":"` + long(101) + `"}`, Want: 400, Field: "basename:"},
		{Name: "patch visibility", User: "ada", Method: "PATCH", Path: p, Body: `{"visibility":"private"}`, Want: 400, Field: "visibility:"},
		{Name: "patch agentsContext", User: "ada", Method: "PATCH", Path: p, Body: `{"agentsContext":"maybe"}`, Want: 400, Field: "agentsContext:"},
		{Name: "patch proxy pattern", User: "ada", Method: "PATCH", Path: p, Body: `{"proxy":"docs.acme.com"}`, Want: 400, Field: "proxy:"},
		{Name: "patch proxy too long", User: "ada", Method: "PATCH", Path: p, Body: `{"proxy":"docs.acme.com/` + long(510) + `"}`, Want: 400, Field: "proxy:"},
		{Name: "patch adaptiveContent without enabled", User: "ada", Method: "PATCH", Path: p, Body: `{"adaptiveContent":{}}`, Want: 400, Field: "adaptiveContent.enabled:"},
		{Name: "patch unknown defaultSiteSpace", User: "ada", Method: "PATCH", Path: p, Body: `{"defaultSiteSpace":"nope"}`, Want: 400, Field: "defaultSiteSpace:"},
		{Name: "patch unknown defaultSiteSection", User: "ada", Method: "PATCH", Path: p, Body: `{"defaultSiteSection":"sec1"}`, Want: 400, Field: "defaultSiteSection:"},
		{Name: "title with a NUL", User: "ada", Method: "POST", Path: "/v1/orgs/org1/sites", Body: `{"title":"Docs\u0000"}`, Want: 400, Field: "title: must not contain NUL"},
		{Name: "title with a control character", User: "ada", Method: "PATCH", Path: p, Body: `{"title":"Docs\u001b[31m"}`, Want: 400, Field: "title: must not contain the control character U+001B"},
		{Name: "title with a bidi override", User: "ada", Method: "PATCH", Path: p, Body: `{"title":"Docs\u202egpj.exe"}`, Want: 400, Field: "title: must not contain the invisible format character U+202E"},
		{Name: "basename dot-dot", User: "ada", Method: "PATCH", Path: p, Body: `{"basename":".."}`, Want: 400, Field: "basename:"},
		{Name: "basename dot", User: "ada", Method: "PATCH", Path: p, Body: `{"basename":"."}`, Want: 400, Field: "basename:"},
		{Name: "basename slash", User: "ada", Method: "PATCH", Path: p, Body: `{"basename":"a/b"}`, Want: 400, Field: "basename:"},
		{Name: "basename backslash", User: "ada", Method: "PATCH", Path: p, Body: `{"basename":"a\\b"}`, Want: 400, Field: "basename:"},
		{Name: "basename bidi isolate", User: "ada", Method: "PATCH", Path: p, Body: `{"basename":"\u2066docs"}`, Want: 400, Field: "basename:"},
		{Name: "two problems at once", User: "ada", Method: "PATCH", Path: p, Body: `{"title":"x","basename":""}`, Want: 400, Field: "basename:"},
		{Name: "limit above 1000", User: "ada", Method: "GET", Path: "/v1/orgs/org1/sites?limit=1001", Want: 400, Field: "limit:"},
		{Name: "published not a boolean", User: "ada", Method: "GET", Path: "/v1/orgs/org1/sites?published=maybe", Want: 400, Field: "published:"},
		{Name: "bad page cursor", User: "ada", Method: "GET", Path: "/v1/orgs/org1/sites?page=zz", Want: 400, Field: "page:"},
		{Name: "site space without spaceId", User: "ada", Method: "POST", Path: p + "/site-spaces", Body: `{}`, Want: 400, Field: "spaceId:"},
		{Name: "site space of an unknown space", User: "ada", Method: "POST", Path: p + "/site-spaces", Body: `{"spaceId":"nope"}`, Want: 400, Field: "spaceId:"},
	})
}
