package sectionhttp_test

import (
	"strings"
	"testing"

	"github.com/docspub/platform/libs/apitest"
	"github.com/docspub/platform/libs/contracttest"
	"github.com/google/go-cmp/cmp"
)

func groupTitles(items []groupBody) []string {
	out := []string{}
	for _, g := range items {
		out = append(out, g.Title+":"+strings.Join(titles(g.Sections), ","))
	}
	return out
}

func TestGroupLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.createSection(`{"spaceId":"sp1","title":"Aa"}`)
	b := e.createSection(`{"spaceId":"sp1","title":"Bb"}`)
	c := e.createSection(`{"spaceId":"sp2","title":"Cc"}`)
	g := apitest.Decode[groupBody](t, e.ok("ann", "POST", sitePath+"/section-groups",
		`{"title":"Guides","icon":"book","sections":["`+b.ID+`","`+a.ID+`"]}`, 201, "addSectionGroupToSite").Body)
	if diff := cmp.Diff(titles(g.Sections), []string{"Bb", "Aa"}); diff != "" || g.Icon != "book" {
		t.Errorf("created group %+v (-got +want):\n%s", g, diff)
	}
	for _, s := range g.Sections {
		if s.SectionGroup != g.ID {
			t.Errorf("section %s: sectionGroup %q, want %s", s.Title, s.SectionGroup, g.ID)
		}
	}
	h := apitest.Decode[groupBody](t, e.ok("ann", "POST", sitePath+"/section-groups", `{"title":"H"}`, 201, "addSectionGroupToSite").Body)

	gp := sitePath + "/section-groups/" + g.ID
	p := apitest.Decode[groupBody](t, e.ok("ann", "PATCH", gp, `{"title":"Handbook","icon":null}`, 200, "updateSiteSectionGroupById").Body)
	if p.Title != "Handbook" || p.Icon != "" || len(p.Sections) != 2 {
		t.Errorf("patched %+v", p)
	}

	added := e.ok("ann", "POST", gp+"/sections", `{"sectionId":"`+c.ID+`"}`, 201, "")
	contracttest.Validate(t, "SiteSectionGroup", added.Body)
	if got := titles(apitest.Decode[groupBody](t, added.Body).Sections); !cmp.Equal(got, []string{"Bb", "Aa", "Cc"}) {
		t.Errorf("after adding Cc: %v", got)
	}
	e.ok("ann", "DELETE", gp+"/sections/"+b.ID, "", 205, "")
	e.ok("ann", "POST", gp+"/move", `{"position":{"before":{"type":"site-section-group","id":"`+h.ID+`"}}}`, 200, "moveSiteSectionGroup")

	l := apitest.Decode[listBody[groupBody]](t, e.ok("rob", "GET", sitePath+"/section-groups", "", 200, "listSiteSectionGroups").Body)
	if diff := cmp.Diff(groupTitles(l.Items), []string{"Handbook:Aa,Cc", "H:"}); diff != "" {
		t.Errorf("groups (-got +want):\n%s", diff)
	}

	e.ok("ann", "DELETE", gp, "", 205, "deleteSiteSectionGroupById")
	secs := apitest.Decode[listBody[sectionBody]](t, e.ok("ann", "GET", sitePath+"/sections", "", 200, "listSiteSections").Body)
	for _, s := range secs.Items {
		if s.SectionGroup != "" {
			t.Errorf("section %s still in group %s", s.Title, s.SectionGroup)
		}
	}
	if len(secs.Items) != 3 {
		t.Errorf("%d sections after deleting the group, want 3", len(secs.Items))
	}
	l = apitest.Decode[listBody[groupBody]](t, e.ok("ann", "GET", sitePath+"/section-groups", "", 200, "listSiteSectionGroups").Body)
	if diff := cmp.Diff(groupTitles(l.Items), []string{"H:"}); diff != "" {
		t.Errorf("groups after delete (-got +want):\n%s", diff)
	}
}

func TestGroupErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.createSection(`{"spaceId":"sp1","title":"Aa"}`)
	g := apitest.Decode[groupBody](t, e.ok("ann", "POST", sitePath+"/section-groups", `{"title":"G"}`, 201, "addSectionGroupToSite").Body)
	other := apitest.Decode[groupBody](t, e.ok("oz", "POST", otherPath+"/section-groups", `{"title":"O"}`, 201, "addSectionGroupToSite").Body)
	gp := sitePath + "/section-groups/" + g.ID
	long := func(n int) string { return strings.Repeat("g", n) }
	e.api.Run(t, as, []apitest.Row{
		{Name: "create without title", User: "ann", Method: "POST", Path: sitePath + "/section-groups", Body: `{}`, Want: 400, Field: "title:"},
		{Name: "create empty title", User: "ann", Method: "POST", Path: sitePath + "/section-groups", Body: `{"title":""}`, Want: 400, Field: "title:"},
		{Name: "create title over 100", User: "ann", Method: "POST", Path: sitePath + "/section-groups", Body: `{"title":"` + long(101) + `"}`, Want: 400, Field: "title:"},
		{Name: "create title of 100", User: "ann", Method: "POST", Path: sitePath + "/section-groups", Body: `{"title":"` + long(100) + `"}`, Want: 201},
		{Name: "create icon over 50", User: "ann", Method: "POST", Path: sitePath + "/section-groups", Body: `{"title":"G","icon":"` + long(51) + `"}`, Want: 400, Field: "icon:"},
		{Name: "create with an unknown section", User: "ann", Method: "POST", Path: sitePath + "/section-groups", Body: `{"title":"G","sections":["nope"]}`, Want: 400, Field: "sections:"},
		{Name: "create as a reader", User: "rob", Method: "POST", Path: sitePath + "/section-groups", Body: `{"title":"G"}`, Want: 403},
		{Name: "list as an outsider", User: "oz", Method: "GET", Path: sitePath + "/section-groups", Want: 404},
		{Name: "patch title over 100", User: "ann", Method: "PATCH", Path: gp, Body: `{"title":"` + long(101) + `"}`, Want: 400, Field: "title:"},
		{Name: "patch empty title", User: "ann", Method: "PATCH", Path: gp, Body: `{"title":""}`, Want: 400, Field: "title:"},
		{Name: "create title with a control character", User: "ann", Method: "POST", Path: sitePath + "/section-groups", Body: `{"title":"G\u0000"}`, Want: 400, Field: "title: must not contain NUL"},
		{Name: "patch title with a bidi override", User: "ann", Method: "PATCH", Path: gp, Body: `{"title":"G\u202E"}`, Want: 400, Field: "title: must not contain the invisible format character U+202E"},
		{Name: "patch another organization's group", User: "ann", Method: "PATCH", Path: sitePath + "/section-groups/" + other.ID, Body: `{"title":"X"}`, Want: 404},
		{Name: "add without sectionId", User: "ann", Method: "POST", Path: gp + "/sections", Body: `{}`, Want: 400, Field: "sectionId:"},
		{Name: "add an unknown section", User: "ann", Method: "POST", Path: gp + "/sections", Body: `{"sectionId":"nope"}`, Want: 400, Field: "sectionId:"},
		{Name: "add to an unknown group", User: "ann", Method: "POST", Path: sitePath + "/section-groups/nope/sections", Body: `{"sectionId":"` + a.ID + `"}`, Want: 404},
		{Name: "add as a reader", User: "rob", Method: "POST", Path: gp + "/sections", Body: `{"sectionId":"` + a.ID + `"}`, Want: 403},
		{Name: "remove a section not in the group", User: "ann", Method: "DELETE", Path: gp + "/sections/" + a.ID, Want: 404},
		{Name: "move with a bad pointer type", User: "ann", Method: "POST", Path: gp + "/move", Body: `{"position":{"after":{"type":"space","id":"x"}}}`, Want: 400, Field: "position.after.type"},
		{Name: "move without a pointer id", User: "ann", Method: "POST", Path: gp + "/move", Body: `{"position":{"after":{"type":"site-section"}}}`, Want: 400, Field: "position.after.id"},
		{Name: "move at itself", User: "ann", Method: "POST", Path: gp + "/move", Body: `{"position":{"after":{"type":"site-section-group","id":"` + g.ID + `"}}}`, Want: 400, Field: "position.after"},
		{Name: "move as an outsider", User: "oz", Method: "POST", Path: gp + "/move", Body: `{}`, Want: 404},
		{Name: "delete as a reader", User: "rob", Method: "DELETE", Path: gp, Want: 403},
		{Name: "delete another organization's group", User: "ann", Method: "DELETE", Path: sitePath + "/section-groups/" + other.ID, Want: 404},
	})
}
