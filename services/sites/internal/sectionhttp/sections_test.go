package sectionhttp_test

import (
	"strings"
	"testing"

	"github.com/docspub/platform/libs/apitest"
	"github.com/docspub/platform/libs/contracttest"
	"github.com/google/go-cmp/cmp"
)

func TestSectionLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.createSection(`{"spaceId":"sp1","title":"Getting started","icon":"book"}`)
	if a.Path != "getting-started" || !a.Default || a.Icon != "book" || len(a.SiteSpaces) != 1 || !a.SiteSpaces[0].Default {
		t.Errorf("created %+v: want path getting-started, the default, icon book, one default site space", a)
	}
	if !strings.HasPrefix(a.URLs.Published, "https://docs.test/") {
		t.Errorf("urls.published %q", a.URLs.Published)
	}
	b := e.createSection(`{"spaceId":"sp2"}`)
	if b.Title != "API reference" || b.Path != "api-reference" || b.Default {
		t.Errorf("created without title %+v: want the space's title, its slug, not default", b)
	}
	c := e.createSection(`{"spaceId":"sp1","title":"Getting started"}`)
	if c.Path != "getting-started-2" {
		t.Errorf("path of a second same title %q", c.Path)
	}

	// Paging: one at a time, by position.
	var got []string
	page := ""
	for i := 0; i < 5; i++ {
		path := sitePath + "/sections?limit=1&shareKey=abc"
		if page != "" {
			path += "&page=" + page
		}
		l := apitest.Decode[listBody[sectionBody]](t, e.ok("rob", "GET", path, "", 200, "listSiteSections").Body)
		got = append(got, titles(l.Items)...)
		if l.Count != 3 {
			t.Errorf("count %d, want 3", l.Count)
		}
		if l.Next == nil {
			break
		}
		page = l.Next.Page
	}
	if diff := cmp.Diff(got, []string{"Getting started", "API reference", "Getting started"}); diff != "" {
		t.Errorf("pages (-got +want):\n%s", diff)
	}

	p := apitest.Decode[sectionBody](t, e.ok("ann", "PATCH", sitePath+"/sections/"+b.ID,
		`{"title":"API","path":"api","condition":"visitor.claims.pro == true","description":"All endpoints","icon":null}`, 200, "updateSiteSectionById").Body)
	if p.Title != "API" || p.Path != "api" || p.Condition != "visitor.claims.pro == true" || p.Description != "All endpoints" {
		t.Errorf("patched %+v", p)
	}
	p = apitest.Decode[sectionBody](t, e.ok("ann", "PATCH", sitePath+"/sections/"+b.ID, `{"condition":null,"description":null}`, 200, "updateSiteSectionById").Body)
	if p.Condition != "" || p.Description != "" || p.Title != "API" {
		t.Errorf("after nulls %+v: want condition and description removed, title kept", p)
	}

	e.ok("ann", "POST", sitePath+"/sections/"+c.ID+"/move", `{"position":{"before":{"type":"site-section","siteSection":"`+a.ID+`"}}}`, 200, "moveSiteSection")
	l := apitest.Decode[listBody[sectionBody]](t, e.ok("ann", "GET", sitePath+"/sections", "", 200, "listSiteSections").Body)
	if diff := cmp.Diff(titles(l.Items), []string{"Getting started", "Getting started", "API"}); diff != "" || l.Items[0].ID != c.ID {
		t.Errorf("after the move (-got +want):\n%s first %s, want %s", diff, l.Items[0].ID, c.ID)
	}

	e.ok("ann", "DELETE", sitePath+"/sections/"+a.ID, "", 205, "deleteSiteSectionById")
	l = apitest.Decode[listBody[sectionBody]](t, e.ok("ann", "GET", sitePath+"/sections", "", 200, "listSiteSections").Body)
	var defaults []string
	for _, it := range l.Items {
		if it.Default {
			defaults = append(defaults, it.ID)
		}
	}
	if diff := cmp.Diff(defaults, []string{b.ID}); diff != "" {
		t.Errorf("default after deleting the default (-got +want):\n%s", diff)
	}
	if e.sites.SiteSpaceCount(a.ID) != 0 {
		t.Errorf("site spaces of the deleted section remain")
	}
}

func TestSectionErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.createSection(`{"spaceId":"sp1","title":"Guide"}`)
	e.createSection(`{"spaceId":"sp2","title":"API"}`)
	other := apitest.Decode[sectionBody](t, e.ok("oz", "POST", otherPath+"/sections", `{"spaceId":"sp1"}`, 201, "addSectionToSite").Body)
	sec := sitePath + "/sections/" + a.ID
	long := func(n int) string { return strings.Repeat("a", n) }
	e.api.Run(t, as, []apitest.Row{
		{Name: "create without spaceId", User: "ann", Method: "POST", Path: sitePath + "/sections", Body: `{"title":"Xy"}`, Want: 400, Field: "spaceId:"},
		{Name: "create with a null spaceId", User: "ann", Method: "POST", Path: sitePath + "/sections", Body: `{"spaceId":null}`, Want: 400, Field: "spaceId:"},
		{Name: "create with an unknown space", User: "ann", Method: "POST", Path: sitePath + "/sections", Body: `{"spaceId":"nope"}`, Want: 400, Field: "spaceId:"},
		{Name: "create title over 64", User: "ann", Method: "POST", Path: sitePath + "/sections", Body: `{"spaceId":"sp1","title":"` + long(65) + `"}`, Want: 400, Field: "title:"},
		{Name: "create title of 64", User: "ann", Method: "POST", Path: sitePath + "/sections", Body: `{"spaceId":"sp1","title":"` + long(64) + `"}`, Want: 201},
		{Name: "create icon over 50", User: "ann", Method: "POST", Path: sitePath + "/sections", Body: `{"spaceId":"sp1","icon":"` + long(51) + `"}`, Want: 400, Field: "icon:"},
		{Name: "create in an unknown group", User: "ann", Method: "POST", Path: sitePath + "/sections", Body: `{"spaceId":"sp1","siteSectionGroupId":"nope"}`, Want: 400, Field: "siteSectionGroupId:"},
		{Name: "create as a reader", User: "rob", Method: "POST", Path: sitePath + "/sections", Body: `{"spaceId":"sp1"}`, Want: 403},
		{Name: "create as an outsider", User: "oz", Method: "POST", Path: sitePath + "/sections", Body: `{"spaceId":"sp1"}`, Want: 404},
		{Name: "list as an outsider", User: "oz", Method: "GET", Path: sitePath + "/sections", Want: 404},
		{Name: "list with a bad cursor", User: "ann", Method: "GET", Path: sitePath + "/sections?page=zz", Want: 400, Field: "page"},
		{Name: "list with limit over 1000", User: "ann", Method: "GET", Path: sitePath + "/sections?limit=1001", Want: 400, Field: "limit"},
		{Name: "patch title of 1", User: "ann", Method: "PATCH", Path: sec, Body: `{"title":"a"}`, Want: 400, Field: "title:"},
		{Name: "patch title over 128", User: "ann", Method: "PATCH", Path: sec, Body: `{"title":"` + long(129) + `"}`, Want: 400, Field: "title:"},
		{Name: "patch title of 128", User: "ann", Method: "PATCH", Path: sec, Body: `{"title":"` + long(128) + `"}`, Want: 200},
		{Name: "patch empty path", User: "ann", Method: "PATCH", Path: sec, Body: `{"path":""}`, Want: 400, Field: "path:"},
		{Name: "patch path over 100", User: "ann", Method: "PATCH", Path: sec, Body: `{"path":"` + long(101) + `"}`, Want: 400, Field: "path:"},
		{Name: "patch a path another section has", User: "ann", Method: "PATCH", Path: sec, Body: `{"path":"api"}`, Want: 409, Field: "path"},
		{Name: "patch empty condition", User: "ann", Method: "PATCH", Path: sec, Body: `{"condition":""}`, Want: 400, Field: "condition:"},
		{Name: "patch condition over 1024", User: "ann", Method: "PATCH", Path: sec, Body: `{"condition":"` + long(1025) + `"}`, Want: 400, Field: "condition:"},
		{Name: "patch condition that does not compile", User: "ann", Method: "PATCH", Path: sec, Body: `{"condition":"visitor.claims.a =="}`, Want: 400, Field: "condition: does not compile"},
		{Name: "patch condition not a boolean", User: "ann", Method: "PATCH", Path: sec, Body: `{"condition":"1 + 2"}`, Want: 400, Field: "condition:"},
		{Name: "patch condition with loops (issue 19)", User: "ann", Method: "PATCH", Path: sec, Body: `{"condition":"let r = 1..1000; visitor.claims.a && all(r, {all(r, {all(r, {true})})})"}`, Want: 400, Field: "condition: declares a variable"},
		{Name: "patch condition calling a builtin", User: "ann", Method: "PATCH", Path: sec, Body: `{"condition":"len(visitor.claims) > 0"}`, Want: 400, Field: "condition: calls len()"},
		{Name: "patch icon over 50", User: "ann", Method: "PATCH", Path: sec, Body: `{"icon":"` + long(51) + `"}`, Want: 400, Field: "icon:"},
		{Name: "create title with a NUL", User: "ann", Method: "POST", Path: sitePath + "/sections", Body: `{"spaceId":"sp1","title":"Gu\u0000ide"}`, Want: 400, Field: "title: must not contain NUL"},
		{Name: "patch title with a newline", User: "ann", Method: "PATCH", Path: sec, Body: `{"title":"Two\nlines"}`, Want: 400, Field: "title: must not contain the control character U+000A"},
		{Name: "patch title with a bidi override", User: "ann", Method: "PATCH", Path: sec, Body: `{"title":"abc\u202Etxt"}`, Want: 400, Field: "title: must not contain the invisible format character U+202E"},
		{Name: "patch icon with a control character", User: "ann", Method: "PATCH", Path: sec, Body: `{"icon":"book\u0007"}`, Want: 400, Field: "icon:"},
		{Name: "patch path ..", User: "ann", Method: "PATCH", Path: sec, Body: `{"path":".."}`, Want: 400, Field: "path:"},
		{Name: "patch path .", User: "ann", Method: "PATCH", Path: sec, Body: `{"path":"."}`, Want: 400, Field: "path:"},
		{Name: "patch path with a slash", User: "ann", Method: "PATCH", Path: sec, Body: `{"path":"a/b"}`, Want: 400, Field: "path:"},
		{Name: "patch path with a backslash", User: "ann", Method: "PATCH", Path: sec, Body: `{"path":"a\\b"}`, Want: 400, Field: "path:"},
		{Name: "patch path with a bidi isolate", User: "ann", Method: "PATCH", Path: sec, Body: `{"path":"\u2067api"}`, Want: 400, Field: "path:"},
		{Name: "patch description over 256", User: "ann", Method: "PATCH", Path: sec, Body: `{"description":"` + long(257) + `"}`, Want: 400, Field: "description:"},
		{Name: "patch description of 256", User: "ann", Method: "PATCH", Path: sec, Body: `{"description":"` + long(256) + `"}`, Want: 200},
		{Name: "patch an unknown default site space", User: "ann", Method: "PATCH", Path: sec, Body: `{"defaultSiteSpace":"nope"}`, Want: 400, Field: "defaultSiteSpace:"},
		{Name: "patch a title of the wrong type", User: "ann", Method: "PATCH", Path: sec, Body: `{"title":5}`, Want: 400, Field: "title"},
		{Name: "patch as a reader", User: "rob", Method: "PATCH", Path: sec, Body: `{"title":"New"}`, Want: 403},
		{Name: "patch another organization's section through this site", User: "ann", Method: "PATCH", Path: sitePath + "/sections/" + other.ID, Body: `{"title":"New"}`, Want: 404},
		{Name: "patch an unknown section", User: "ann", Method: "PATCH", Path: sitePath + "/sections/nope", Body: `{"title":"New"}`, Want: 404},
		{Name: "move with a group pointer", User: "ann", Method: "POST", Path: sec + "/move", Body: `{"position":{"before":{"type":"site-section-group","siteSection":"x"}}}`, Want: 400, Field: "position.before.type"},
		{Name: "move next to an unknown section", User: "ann", Method: "POST", Path: sec + "/move", Body: `{"position":{"after":{"type":"site-section","siteSection":"nope"}}}`, Want: 400, Field: "position.after"},
		{Name: "move as an outsider", User: "oz", Method: "POST", Path: sec + "/move", Body: `{}`, Want: 404},
		{Name: "delete as a reader", User: "rob", Method: "DELETE", Path: sec, Want: 403},
		{Name: "delete as an outsider", User: "oz", Method: "DELETE", Path: sec, Want: 404},
		{Name: "delete an unknown section", User: "ann", Method: "DELETE", Path: sitePath + "/sections/nope", Want: 404},
	})
	// The outsider's own section is untouched and theirs alone.
	l := apitest.Decode[listBody[sectionBody]](t, e.ok("oz", "GET", otherPath+"/sections", "", 200, "listSiteSections").Body)
	if len(l.Items) != 1 || l.Items[0].ID != other.ID || l.Items[0].Title == "New" {
		t.Errorf("other organization's sections %+v", l.Items)
	}
}

func TestMoveWithoutBodyGoesToTheEnd(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.createSection(`{"spaceId":"sp1","title":"First"}`)
	e.createSection(`{"spaceId":"sp2","title":"Second"}`)
	v := e.ok("ann", "POST", sitePath+"/sections/"+a.ID+"/move", "", 200, "moveSiteSection")
	contracttest.Validate(t, "SiteSection", v.Body)
	l := apitest.Decode[listBody[sectionBody]](t, e.ok("ann", "GET", sitePath+"/sections", "", 200, "listSiteSections").Body)
	if diff := cmp.Diff(titles(l.Items), []string{"Second", "First"}); diff != "" {
		t.Errorf("order (-got +want):\n%s", diff)
	}
}
