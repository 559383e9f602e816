package sitehttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apitest"
	"github.com/docspub/platform/libs/contracttest"
	"github.com/docspub/platform/libs/docstore"
	"github.com/docspub/platform/libs/paging"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/sites/internal/access"
	"github.com/docspub/platform/services/sites/internal/limits"
	"github.com/docspub/platform/services/sites/internal/site"
	"github.com/docspub/platform/services/sites/internal/sitemongo"
	"github.com/google/go-cmp/cmp"
	"go.mongodb.org/mongo-driver/v2/bson"
)

func listSiteSpaces(t *testing.T, e *env, user, path string) paging.List[siteSpaceBody] {
	t.Helper()
	r := e.ok(user, "GET", path, "", 200, "")
	var raw paging.List[json.RawMessage]
	r.Decode(t, &raw)
	for _, it := range raw.Items {
		contracttest.Validate(t, "SiteSpace", it)
	}
	return apitest.Decode[paging.List[siteSpaceBody]](t, r.Body)
}

func paths(l []siteSpaceBody) []string {
	out := []string{}
	for _, ss := range l {
		out = append(out, ss.Path)
	}
	return out
}

func TestCreateWithSpaces(t *testing.T) {
	e := newEnv(t)
	e.content.add("s1", "org1", "Getting Started")
	e.content.add("s2", "org1", "Getting Started")
	e.content.add("x1", "org2", "Theirs")
	e.api.Run(t, as, []apitest.Row{
		{Name: "unknown space", User: "both", Method: "POST", Path: "/v1/orgs/org1/sites", Body: `{"spaces":["s1","nope"]}`, Want: 400, Field: "spaces[1]:"},
		{Name: "another org's space", User: "both", Method: "POST", Path: "/v1/orgs/org1/sites", Body: `{"spaces":["x1"]}`, Want: 400, Field: "spaces[0]:"},
		{Name: "a space twice", User: "both", Method: "POST", Path: "/v1/orgs/org1/sites", Body: `{"spaces":["s1","s1"]}`, Want: 400, Field: "spaces[1]:"},
	})
	// Nothing was created by the refused requests.
	if l := apitest.Decode[paging.List[siteBody]](t, e.ok("ada", "GET", "/v1/orgs/org1/sites", "", 200, "listSites").Body); l.Count != 0 {
		t.Errorf("refused creations left %d sites", l.Count)
	}

	st := e.createSite("ada", "org1", `{"title":"Docs","visibility":"share-link","spaces":["s1","s2"]}`)
	if st.SiteSpaces != 2 || st.Visibility != "share-link" {
		t.Errorf("created %+v", st)
	}
	l := listSiteSpaces(t, e, "rex", sitePath("org1", st.ID)+"/site-spaces")
	if diff := cmp.Diff(paths(l.Items), []string{"getting-started", "getting-started-2"}); diff != "" {
		t.Errorf("paths (-got +want):\n%s", diff)
	}
	if !l.Items[0].Default || l.Items[1].Default || l.Items[0].Title != "Getting Started" {
		t.Errorf("site spaces %+v", l.Items)
	}
	// A reader sees the space with a reader's permissions, not content's answer to the creator.
	if p := l.Items[0].Space.Permissions; !p["view"] || p["edit"] || p["admin"] {
		t.Errorf("space permissions for a reader: %v", p)
	}
	// The filter by space.
	got := apitest.Decode[paging.List[siteBody]](t, e.ok("ada", "GET", "/v1/orgs/org1/sites?space=s2", "", 200, "listSites").Body)
	if got.Count != 1 || got.Items[0].ID != st.ID {
		t.Errorf("sites with s2: %+v", got)
	}
	got = apitest.Decode[paging.List[siteBody]](t, e.ok("ada", "GET", "/v1/orgs/org1/sites?space=zz", "", 200, "listSites").Body)
	if got.Count != 0 {
		t.Errorf("sites with an unknown space: %+v", got)
	}
}

func TestSiteSpaces(t *testing.T) {
	e := newEnv(t)
	e.content.add("s1", "org1", "Guide")
	e.content.add("s2", "org1", "API")
	e.content.add("s3", "org1", "FAQ")
	st := e.createSite("ada", "org1", "")
	p := sitePath("org1", st.ID) + "/site-spaces"

	add := func(space string) siteSpaceBody {
		r := e.ok("cid", "POST", p, `{"spaceId":"`+space+`"}`, 201, "")
		contracttest.Validate(t, "SiteSpace", r.Body)
		return apitest.Decode[siteSpaceBody](t, r.Body)
	}
	guide, api, faq := add("s1"), add("s2"), add("s3")
	if !guide.Default || api.Default || guide.Path != "guide" || api.Space.ID != "s2" {
		t.Errorf("added %+v, %+v", guide, api)
	}
	if r := e.do("cid", "POST", p, `{"spaceId":"s1"}`); r.Status != 409 {
		t.Errorf("the same space twice: %d %s", r.Status, r.Body)
	}

	patch := func(id, body string, want int) siteSpaceBody {
		r := e.ok("cid", "PATCH", p+"/"+id, body, want, "")
		if want != 200 {
			return siteSpaceBody{}
		}
		contracttest.Validate(t, "SiteSpace", r.Body)
		return apitest.Decode[siteSpaceBody](t, r.Body)
	}
	if got := patch(api.ID, `{"path":"reference","hidden":true}`, 200); got.Path != "reference" || !got.Hidden {
		t.Errorf("patched %+v", got)
	}
	e.api.Run(t, as, []apitest.Row{
		{Name: "path taken", User: "cid", Method: "PATCH", Path: p + "/" + faq.ID, Body: `{"path":"guide"}`, Want: 409, Field: "path"},
		{Name: "path empty", User: "cid", Method: "PATCH", Path: p + "/" + faq.ID, Body: `{"path":""}`, Want: 400, Field: "path:"},
		{Name: "path too long", User: "cid", Method: "PATCH", Path: p + "/" + faq.ID, Body: `{"path":"` + strings.Repeat("p", 101) + `"}`, Want: 400, Field: "path:"},
		{Name: "path with a slash", User: "cid", Method: "PATCH", Path: p + "/" + faq.ID, Body: `{"path":"a/b"}`, Want: 400, Field: "path:"},
		{Name: "path ..", User: "cid", Method: "PATCH", Path: p + "/" + faq.ID, Body: `{"path":".."}`, Want: 400, Field: "path:"},
		{Name: "path with a backslash", User: "cid", Method: "PATCH", Path: p + "/" + faq.ID, Body: `{"path":"a\\b"}`, Want: 400, Field: "path:"},
		{Name: "path with a bidi override", User: "cid", Method: "PATCH", Path: p + "/" + faq.ID, Body: `{"path":"faq\u202E"}`, Want: 400, Field: "path:"},
		{Name: "condition too long", User: "cid", Method: "PATCH", Path: p + "/" + faq.ID, Body: `{"condition":"` + strings.Repeat("c", 1025) + `"}`, Want: 400, Field: "condition:"},
		{Name: "condition that does not compile", User: "cid", Method: "PATCH", Path: p + "/" + faq.ID, Body: `{"condition":"visitor.claims.a =="}`, Want: 400, Field: "condition: does not compile"},
		{Name: "condition with loops (issue 19)", User: "cid", Method: "PATCH", Path: p + "/" + faq.ID, Body: `{"condition":"let r = 1..1000; visitor.claims.a && all(r, {all(r, {all(r, {true})})})"}`, Want: 400, Field: "condition: declares a variable"},
		{Name: "condition with a range", User: "cid", Method: "PATCH", Path: p + "/" + faq.ID, Body: `{"condition":"visitor.claims.n in 1..100000000"}`, Want: 400, Field: "condition: uses a range"},
		{Name: "unset the default", User: "cid", Method: "PATCH", Path: p + "/" + guide.ID, Body: `{"default":false}`, Want: 400, Field: "default:"},
		{Name: "unknown site space", User: "cid", Method: "PATCH", Path: p + "/nope", Body: `{"hidden":true}`, Want: 404},
		{Name: "reader cannot patch", User: "rex", Method: "PATCH", Path: p + "/" + faq.ID, Body: `{"hidden":true}`, Want: 403},
		{Name: "another org cannot delete", User: "eve", Method: "DELETE", Path: p + "/" + faq.ID, Want: 404},
	})

	// A new default: the old one loses the flag.
	if got := patch(faq.ID, `{"default":true}`, 200); !got.Default {
		t.Errorf("faq not default: %+v", got)
	}
	l := listSiteSpaces(t, e, "rex", p+"?default=true")
	if l.Count != 1 || l.Items[0].ID != faq.ID {
		t.Errorf("defaults after patch: %+v", l)
	}
	// defaultSiteSpace on the site does the same.
	e.ok("cid", "PATCH", sitePath("org1", st.ID), `{"defaultSiteSpace":"`+guide.ID+`"}`, 200, "updateSiteById")
	if l := listSiteSpaces(t, e, "rex", p+"?default=true"); l.Count != 1 || l.Items[0].ID != guide.ID {
		t.Errorf("defaults after defaultSiteSpace: %+v", l)
	}

	// A deleted space hides its site space; restored, it is back.
	e.putSpace("s2", "org1", "API", true)
	if l := listSiteSpaces(t, e, "rex", p); l.Count != 2 || !cmp.Equal(paths(l.Items), []string{"guide", "faq"}) {
		t.Errorf("with s2 deleted: %+v", l)
	}
	g, err := e.svc.Enter(context.Background(), access.Caller{UserID: "rex", Roles: users["rex"]}, "org1", st.ID, access.View)
	if err != nil || g.Level != roles.Read {
		t.Fatalf("Enter = %+v, %v", g, err)
	}
	byPath, err := e.svc.SiteSpaces(context.Background(), g, []string{"", "no-section"})
	if err != nil || len(byPath[""].Shown) != 2 || byPath[""].Hidden != 1 || byPath["no-section"].Shown == nil || len(byPath["no-section"].Shown) != 0 {
		t.Errorf("SiteSpaces with s2 deleted = %v, %v", byPath, err)
	}
	e.putSpace("s2", "org1", "API v2", false)
	l = listSiteSpaces(t, e, "rex", p)
	if diff := cmp.Diff(paths(l.Items), []string{"guide", "reference", "faq"}); diff != "" || l.Items[1].Title != "API v2" {
		t.Errorf("after restore (-got +want):\n%s %+v", diff, l.Items)
	}

	// Deleting the default promotes the first remaining one.
	e.ok("cid", "DELETE", p+"/"+guide.ID, "", 205, "")
	if r := e.do("cid", "DELETE", p+"/"+guide.ID, ""); r.Status != 404 {
		t.Errorf("deleted twice: %d %s", r.Status, r.Body)
	}
	l = listSiteSpaces(t, e, "rex", p)
	if l.Count != 2 || !l.Items[0].Default || l.Items[0].ID != api.ID {
		t.Errorf("after deleting the default: %+v", l)
	}
	// The path of the deleted site space is free.
	if got := patch(faq.ID, `{"path":"guide"}`, 200); got.Path != "guide" {
		t.Errorf("reuse a freed path: %+v", got)
	}

	// Site spaces of a section: the first is its default; removed with the section.
	ga, err := e.svc.Enter(context.Background(), access.Caller{UserID: "ada", Roles: users["ada"]}, "org1", st.ID, access.Edit)
	if err != nil {
		t.Fatal(err)
	}
	in, err := e.svc.AddSiteSpace(context.Background(), access.Caller{UserID: "ada", Roles: users["ada"]}, ga, "sec1", "s1")
	if err != nil || !in.Default || in.Section != "sec1" || in.Path != "guide" {
		t.Errorf("AddSiteSpace in a section = %+v, %v", in, err)
	}
	b, _ := json.Marshal(in)
	contracttest.Validate(t, "SiteSpace", b)
	if err := e.svc.RemoveSiteSpaces(context.Background(), ga, "sec1"); err != nil {
		t.Fatal(err)
	}
	if got, _ := e.svc.SiteSpaces(context.Background(), ga, []string{"sec1"}); len(got["sec1"].Shown) != 0 {
		t.Errorf("section site spaces after removal: %v", got)
	}
}

// TestSiteSpaceBoundHoldsUnderConcurrentAdds: with one place left, additions
// racing each other never leave the site over its bound of site spaces.
func TestSiteSpaceBoundHoldsUnderConcurrentAdds(t *testing.T) {
	e := newEnv(t)
	st := e.createSite("ada", "org1", "")
	now := time.Now().UTC()
	var docs []any
	for i := range limits.SiteSpacesPerSite - 1 {
		docs = append(docs, site.SiteSpace{ID: fmt.Sprint("ss", i), Organization: "org1", Site: st.ID,
			Space: fmt.Sprint("f", i), Path: fmt.Sprint("f", i), Position: int64(i), CreatedAt: now, UpdatedAt: now})
	}
	if _, err := e.db.Collection(sitemongo.SiteSpaces).InsertMany(context.Background(), docs); err != nil {
		t.Fatal(err)
	}
	const racers = 6
	for i := range racers {
		e.content.add(fmt.Sprint("r", i), "org1", fmt.Sprint("Racer ", i))
	}
	p := sitePath("org1", st.ID) + "/site-spaces"
	var wg sync.WaitGroup
	var added atomic.Int32
	for i := range racers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			switch r := e.do("ada", "POST", p, fmt.Sprintf(`{"spaceId":"r%d"}`, i)); r.Status {
			case 201:
				added.Add(1)
			case 400:
			default:
				t.Errorf("racer %d: %d %s", i, r.Status, r.Body)
			}
		}()
	}
	wg.Wait()
	n, err := e.db.Collection(sitemongo.SiteSpaces).CountDocuments(context.Background(), docstore.Live(bson.M{"site": st.ID}))
	if err != nil {
		t.Fatal(err)
	}
	if n > int64(limits.SiteSpacesPerSite) || int64(added.Load()) != n-int64(limits.SiteSpacesPerSite-1) {
		t.Fatalf("%d site spaces (bound %d), %d additions answered 201", n, limits.SiteSpacesPerSite, added.Load())
	}
}
