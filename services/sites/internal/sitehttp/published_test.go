package sitehttp_test

import (
	"testing"

	"github.com/docspub/platform/libs/apitest"
)

type publishedBody struct {
	Site struct {
		ID string `json:"id"`
	} `json:"site"`
	Structure struct {
		Type      string          `json:"type"`
		Structure []siteSpaceBody `json:"structure"`
	} `json:"structure"`
	Customizations struct {
		Site struct {
			Title string `json:"title"`
		} `json:"site"`
	} `json:"customizations"`
}

func TestPublishedView(t *testing.T) {
	e := newEnv(t)
	e.content.add("s1", "org1", "Guide")
	e.content.add("s2", "org1", "API")
	open := e.createSite("ada", "org1", `{"title":"Open docs","spaces":["s1","s2"]}`)
	shared := e.createSite("ada", "org1", `{"title":"Shared docs","visibility":"share-link","spaces":["s1"]}`)
	auth := e.createSite("ada", "org1", `{"title":"Auth docs","visibility":"visitor-auth"}`)
	pub := func(id string) string { return sitePath("org1", id) + "/published" }

	// Unpublished: members read it, others do not learn it exists.
	got := apitest.Decode[publishedBody](t, e.ok("rex", "GET", pub(open.ID), "", 200, "getPublishedContentSite").Body)
	if got.Site.ID != open.ID || got.Structure.Type != "siteSpaces" || len(got.Structure.Structure) != 2 ||
		got.Structure.Structure[0].Path != "guide" || got.Customizations.Site.Title != "Open docs" {
		t.Errorf("published view: %+v", got)
	}
	e.putSpace("s2", "org1", "API", true) // a deleted space leaves the structure
	got = apitest.Decode[publishedBody](t, e.ok("rex", "GET", pub(open.ID), "", 200, "getPublishedContentSite").Body)
	if len(got.Structure.Structure) != 1 {
		t.Errorf("structure with a deleted space: %+v", got.Structure)
	}

	for _, id := range []string{open.ID, shared.ID, auth.ID} {
		e.ok("ada", "POST", sitePath("org1", id)+"/publish", "", 200, "")
	}
	e.keys[shared.ID] = map[string]bool{"good": true, "revoked": false}

	e.api.Run(t, as, []apitest.Row{
		{Name: "outsider reads a published public site", User: "eve", Method: "GET", Path: pub(open.ID), Want: 200},
		{Name: "outsider without a share key", User: "eve", Method: "GET", Path: pub(shared.ID), Want: 404},
		{Name: "outsider with a wrong share key", User: "eve", Method: "GET", Path: pub(shared.ID) + "?shareKey=bad", Want: 403, Field: "invalid share key"},
		{Name: "outsider with an inactive share key", User: "eve", Method: "GET", Path: pub(shared.ID) + "?shareKey=revoked", Want: 403, Field: "invalid share key"},
		{Name: "outsider with an active share key", User: "eve", Method: "GET", Path: pub(shared.ID) + "?shareKey=good", Want: 200},
		{Name: "member without a share key", User: "rex", Method: "GET", Path: pub(shared.ID), Want: 200},
		{Name: "outsider on a visitor-auth site", User: "eve", Method: "GET", Path: pub(auth.ID), Want: 403},
		{Name: "the site under another org", User: "eve", Method: "GET", Path: sitePath("org2", open.ID) + "/published", Want: 404},
	})
	r := e.ok("eve", "GET", pub(shared.ID)+"?shareKey=good", "", 200, "getPublishedContentSite")
	if got := apitest.Decode[publishedBody](t, r.Body); len(got.Structure.Structure) != 1 || got.Structure.Structure[0].Space.Permissions["edit"] {
		t.Errorf("visitor's view: %+v", got)
	}

	// Unpublished again: outsiders get 404 even with a key.
	e.ok("ada", "POST", sitePath("org1", shared.ID)+"/unpublish", "", 200, "")
	if r := e.do("eve", "GET", pub(shared.ID)+"?shareKey=good", ""); r.Status != 404 {
		t.Errorf("unpublished with a key: %d %s", r.Status, r.Body)
	}

	// A site with sections shows them.
	e.sections[open.ID] = []any{}
	got = apitest.Decode[publishedBody](t, e.ok("rex", "GET", pub(open.ID), "", 200, "getPublishedContentSite").Body)
	if got.Structure.Type != "sections" {
		t.Errorf("structure of a site with sections: %+v", got.Structure)
	}
}

type schemaBody struct {
	JSONSchema map[string]any `json:"jsonSchema"`
	UpdatedAt  string         `json:"updatedAt"`
}

func TestAdaptiveSchema(t *testing.T) {
	e := newEnv(t)
	st := e.createSite("ada", "org1", "")
	p := sitePath("org1", st.ID) + "/adaptive-schema"
	def := apitest.Decode[schemaBody](t, e.ok("rex", "GET", p, "", 200, "getSiteAdaptiveSchema").Body)
	if def.JSONSchema["type"] != "object" {
		t.Errorf("default schema %+v", def)
	}
	const valid = `{"jsonSchema":{"type":"object","properties":{"unsigned":{"type":"object","properties":{"beta":{"type":"boolean","description":"Beta tester"}},"additionalProperties":false}},"additionalProperties":false}}`
	e.ok("ada", "PUT", p, valid, 200, "updateSiteAdaptiveSchema")
	got := apitest.Decode[schemaBody](t, e.ok("rex", "GET", p, "", 200, "getSiteAdaptiveSchema").Body)
	claims := got.JSONSchema["properties"].(map[string]any)["unsigned"].(map[string]any)["properties"].(map[string]any)
	if _, ok := claims["beta"]; !ok {
		t.Errorf("stored schema %+v", got.JSONSchema)
	}
	e.api.Run(t, as, []apitest.Row{
		{Name: "no jsonSchema", User: "ada", Method: "PUT", Path: p, Body: `{}`, Want: 400, Field: "jsonSchema:"},
		{Name: "string claim", User: "ada", Method: "PUT", Path: p, Body: `{"jsonSchema":{"type":"object","properties":{"unsigned":{"type":"object","properties":{"role":{"type":"string"}},"additionalProperties":false}},"additionalProperties":false}}`, Want: 400, Field: "jsonSchema.properties.unsigned.properties.role.type:"},
		{Name: "missing unsigned", User: "ada", Method: "PUT", Path: p, Body: `{"jsonSchema":{"type":"object","properties":{},"additionalProperties":false}}`, Want: 400, Field: "jsonSchema.properties.unsigned:"},
		{Name: "additionalProperties true", User: "ada", Method: "PUT", Path: p, Body: `{"jsonSchema":{"type":"object","properties":{"unsigned":{"type":"object","properties":{},"additionalProperties":false}},"additionalProperties":true}}`, Want: 400, Field: "jsonSchema.additionalProperties:"},
		{Name: "not draft-07", User: "ada", Method: "PUT", Path: p, Body: `{"jsonSchema":{"type":"object","minProperties":-1}}`, Want: 400, Field: "jsonSchema:"},
		{Name: "reader cannot change it", User: "rex", Method: "PUT", Path: p, Body: valid, Want: 403},
	})
}
