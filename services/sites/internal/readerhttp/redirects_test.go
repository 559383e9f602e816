package readerhttp_test

import (
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/docspub/platform/services/sites/internal/contentclient"
	"github.com/docspub/platform/services/sites/internal/contentclient/contenttest"
)

// TestRedirects: in every site space of a site with sections and
// variants, a path no page has that a redirect of the space's revision
// names answers a 308 to its page's URL under the same site space
// (the space's home at the site space's root; a page's markdown to the
// page's markdown), with the query asked; the page is there. A page at a
// redirect's path is shown, not redirected; a redirect whose page the
// revision no longer has is a missing page.
func TestRedirects(t *testing.T) {
	e := newEnv(t)
	for _, id := range []string{"g1", "g2", "a1"} {
		home := contenttest.Doc(id+"-home", "Home of "+id, "home", "Text of "+id+".")
		more := contenttest.Doc(id+"-more", "More", "more", "More of "+id+".")
		group := contentclient.Page{ID: id + "-ref", Kind: "group", Title: "Reference", Slug: "reference", Pages: []contentclient.Page{}}
		e.content.AddSpace(id, "acme", "Space "+id, home, more, group)
		e.content.MergeRedirects(id, []contentclient.Redirect{
			{Path: "old/more", Page: id + "-more"}, {Path: "start", Page: id + "-home"}, {Path: "café/ü", Page: id + "-more"},
			{Path: "more", Page: id + "-home"}, {Path: "reference", Page: id + "-more"}, {Path: "gone", Page: "no-such-page"},
			{Path: "to-a-group", Page: id + "-ref"},
		}, home, more, group)
	}
	id, _ := e.site(`{"title":"Docs"}`)
	sitePath := "/v1/orgs/acme/sites/" + id
	guides := e.call("ada", "POST", sitePath+"/sections", `{"spaceId":"g1","title":"Guides"}`, 201)
	e.call("ada", "POST", sitePath+"/site-spaces", `{"spaceId":"g2","sectionId":"`+str(guides, "id")+`"}`, 201)
	e.call("ada", "POST", sitePath+"/sections", `{"spaceId":"a1","title":"API"}`, 201)
	e.call("ada", "PATCH", sitePath, `{"basename":"docs"}`, 200)

	urls := map[string]string{} // site space URL → its space
	for _, s := range e.call("ada", "GET", sitePath+"/sections", "", 200)["items"].([]any) {
		for _, v := range s.(map[string]any)["siteSpaces"].([]any) {
			ss := v.(map[string]any)
			urls[str(ss, "urls", "published")] = strings.TrimPrefix(str(ss, "title"), "Space ")
		}
	}
	if len(urls) != 3 {
		t.Fatalf("site spaces %v", urls)
	}
	var roots []string
	for u := range urls {
		roots = append(roots, u)
	}
	sort.Strings(roots)
	for _, u := range roots {
		space, path := urls[u], strings.TrimPrefix(u, "http://gw.test")
		for _, tc := range []struct{ from, to, shows string }{
			{u + "/old/more", path + "/more", "More of " + space + "."},
			{u + "/old/more.md", path + "/more.md", "More of " + space + "."},
			{u + "/old/more?utm_source=mail&b=2", path + "/more?b=2&utm_source=mail", "More of " + space + "."},
			{u + "/start", path, "Text of " + space + "."},
			{u + "/caf%C3%A9/%C3%BC", path + "/more", "More of " + space + "."},
			{u + "/reference", path + "/more", "More of " + space + "."},
		} {
			p := e.want(tc.from, http.StatusPermanentRedirect)
			if loc := p.header.Get("Location"); loc != tc.to {
				t.Errorf("GET %s: Location %q, want %q", tc.from, loc, tc.to)
				continue
			}
			if cc := p.header.Get("Cache-Control"); strings.HasPrefix(cc, "public") {
				t.Errorf("GET %s: a redirect cached publicly (%s)", tc.from, cc)
			}
			if got := e.want("http://gw.test"+tc.to, 200); !strings.Contains(got.body, tc.shows) {
				t.Errorf("%s (from %s) does not show %q", tc.to, tc.from, tc.shows)
			}
		}
		if p := e.want(u+"/more", 200); !strings.Contains(p.body, "More of "+space+".") {
			t.Errorf("%s/more: the page at a redirect's path is not shown", u)
		}
		e.want(u+"/gone", 404)
		e.want(u+"/to-a-group", 404)
		e.want(u+"/gone.md", 404)
	}
}
