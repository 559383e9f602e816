package sitehttp_test

import (
	"net"
	"strings"
	"testing"

	"github.com/docspub/platform/libs/apitest"
	"github.com/docspub/platform/libs/discovery"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/libs/paging"
	"github.com/docspub/platform/services/sites/internal/contentclient"
	"github.com/docspub/platform/services/sites/internal/site"
	"github.com/docspub/platform/services/sites/internal/sitecontentclient"
	"github.com/docspub/platform/services/sites/internal/sitehttp"
	"github.com/docspub/platform/services/sites/internal/sitemongo"
	"github.com/docspub/platform/services/sites/internal/spaceviewmongo"
)

func siteSpacePaths(t *testing.T, e *env, user, path string) []string {
	t.Helper()
	l := listSiteSpaces(t, e, user, path)
	if l.Count != len(l.Items) {
		t.Errorf("count %d for %d items", l.Count, len(l.Items))
	}
	return paths(l.Items)
}

func publishedPaths(t *testing.T, e *env, user, path string) []string {
	t.Helper()
	got := apitest.Decode[publishedBody](t, e.ok(user, "GET", path, "", 200, "getPublishedContentSite").Body)
	return paths(got.Structure.Structure)
}

// TestMembersSeeWhatContentLetsThemSee: a member is shown only the spaces
// content lets them view, with content's level as their permissions; the
// site role never widens it. Content is asked once per request.
func TestMembersSeeWhatContentLetsThemSee(t *testing.T) {
	e := newEnv(t)
	e.content.add("s1", "org1", "Guide")
	e.content.add("s2", "org1", "Secret plans")
	st := e.createSite("ada", "org1", `{"spaces":["s1","s2"]}`)
	p := sitePath("org1", st.ID)
	e.content.hide("s2", "rex")
	e.content.hide("s2", "cid")

	before := e.content.questions()
	if got := siteSpacePaths(t, e, "rex", p+"/site-spaces"); strings.Join(got, ",") != "guide" {
		t.Errorf("reader's site spaces: %v, want only guide", got)
	}
	if n := e.content.questions() - before; n != 1 {
		t.Errorf("a list asked content %d times, want once", n)
	}
	if got := siteSpacePaths(t, e, "ada", p+"/site-spaces"); strings.Join(got, ",") != "guide,secret-plans" {
		t.Errorf("admin's site spaces: %v", got)
	}
	if got := publishedPaths(t, e, "rex", p+"/published"); strings.Join(got, ",") != "guide" {
		t.Errorf("reader's published view: %v, want only guide", got)
	}
	if body := string(e.ok("rex", "GET", p+"/published", "", 200, "").Body); strings.Contains(body, "Secret plans") {
		t.Errorf("the hidden space's title reaches the reader: %s", body)
	}

	// A direct change of the hidden site space is a 404, and changes nothing.
	all := apitest.Decode[paging.List[siteSpaceBody]](t, e.ok("ada", "GET", p+"/site-spaces", "", 200, "").Body).Items
	secret := all[1].ID
	e.api.Run(t, as, []apitest.Row{
		{Name: "patch a site space of a space content hides", User: "cid", Method: "PATCH", Path: p + "/site-spaces/" + secret, Body: `{"path":"x"}`, Want: 404},
		{Name: "delete a site space of a space content hides", User: "cid", Method: "DELETE", Path: p + "/site-spaces/" + secret, Want: 404},
		{Name: "make it the default", User: "cid", Method: "PATCH", Path: p, Body: `{"defaultSiteSpace":"` + secret + `"}`, Want: 400, Field: "defaultSiteSpace:"},
	})
	if got := siteSpacePaths(t, e, "ada", p+"/site-spaces"); strings.Join(got, ",") != "guide,secret-plans" {
		t.Errorf("site spaces after the refused changes: %v", got)
	}

	// Permissions are content's level, not the site role.
	rex := apitest.Decode[paging.List[siteSpaceBody]](t, e.ok("rex", "GET", p+"/site-spaces", "", 200, "").Body).Items
	cid := apitest.Decode[paging.List[siteSpaceBody]](t, e.ok("cid", "GET", p+"/site-spaces", "", 200, "").Body).Items
	if rex[0].Space.Permissions["edit"] || !cid[0].Space.Permissions["edit"] || cid[0].Space.Permissions["admin"] {
		t.Errorf("permissions: reader %v, creator %v", rex[0].Space.Permissions, cid[0].Space.Permissions)
	}
}

// TestTransferredSpaceLeavesTheSite: once the projection says a space is in
// another organization, nobody sees it on the old organization's site, not
// even a visitor; it comes back if the space does.
func TestTransferredSpaceLeavesTheSite(t *testing.T) {
	e := newEnv(t)
	e.content.add("s1", "org1", "Guide")
	e.content.add("s2", "org1", "Moving")
	st := e.createSite("ada", "org1", `{"spaces":["s1","s2"]}`)
	p := sitePath("org1", st.ID)
	e.ok("ada", "POST", p+"/publish", "", 200, "")
	e.putSpace("s2", "org2", "Moved away", false)
	for _, user := range []string{"ada", "both", "eve"} {
		if got := publishedPaths(t, e, user, p+"/published"); strings.Join(got, ",") != "guide" {
			t.Errorf("%s's published view after the transfer: %v", user, got)
		}
	}
	if got := siteSpacePaths(t, e, "both", p+"/site-spaces"); strings.Join(got, ",") != "guide" {
		t.Errorf("site spaces after the transfer, for an admin of both organizations: %v", got)
	}
	e.putSpace("s2", "org1", "Back home", false)
	if got := publishedPaths(t, e, "eve", p+"/published"); strings.Join(got, ",") != "guide,moving" {
		t.Errorf("published view after the transfer back: %v", got)
	}
}

// TestContentDownFailsClosed: when content does not answer, members get a
// 503 with Retry-After, never more than content would show; visitors of a
// published site are served from the projection.
func TestContentDownFailsClosed(t *testing.T) {
	e := newEnv(t)
	e.content.add("s1", "org1", "Guide")
	st := e.createSite("ada", "org1", `{"spaces":["s1"]}`)
	p := sitePath("org1", st.ID)
	e.ok("ada", "POST", p+"/publish", "", 200, "")
	e.content.setDown(true)
	for _, path := range []string{p + "/site-spaces", p + "/published"} {
		r := e.do("rex", "GET", path, "")
		if r.Status != 503 || r.Header.Get("Retry-After") == "" || strings.Contains(string(r.Body), "Guide") {
			t.Errorf("GET %s with content down: %d %v %s", path, r.Status, r.Header, r.Body)
		}
	}
	if got := publishedPaths(t, e, "eve", p+"/published"); strings.Join(got, ",") != "guide" {
		t.Errorf("visitor's published view with content down: %v", got)
	}

	// Content not listening at all: the same.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	_ = ln.Close()
	db := mongotest.Database(t)
	mdb := mongox.NewDB(db)
	signer := apitest.Signer(t)
	svc := site.New(site.Deps{Store: sitemongo.NewStore(mdb, nil), Spaces: spaceviewmongo.NewStore(mdb),
		Content: sitecontentclient.New(contentclient.New(discovery.Static{"content": closed}, signer)), URLs: site.URLs{Public: "http://gw.test"}})
	eng := httpx.NewEngine(logx.Discard(), "sites")
	sitehttp.Register(eng.Group("/v1", internaltoken.Require(signer), internaltoken.RequireUser), svc)
	if r := apitest.New(t, eng, signer).Do(as("ada"), "POST", "/v1/orgs/org1/sites", `{"spaces":["s1"]}`); r.Status != 503 {
		t.Errorf("create a site with a space while content is unreachable: %d %s", r.Status, r.Body)
	}
}
