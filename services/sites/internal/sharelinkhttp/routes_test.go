package sharelinkhttp_test

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/docspub/platform/libs/apitest"
	"github.com/docspub/platform/libs/internalapi/sitesapi"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/services/sites/internal/sharelinkmongo"
	"github.com/google/go-cmp/cmp"
	"go.mongodb.org/mongo-driver/v2/bson"
)

const links = "/v1/orgs/o1/sites/s1/share-links"

type linkBody struct {
	Object    string `json:"object"`
	ID        string `json:"id"`
	CreatedAt string `json:"createdAt"`
	Name      string `json:"name"`
	Active    bool   `json:"active"`
	URLs      struct {
		Published string `json:"published"`
	} `json:"urls"`
}

type listBody struct {
	Next *struct {
		Page string `json:"page"`
	} `json:"next"`
	Count int        `json:"count"`
	Items []linkBody `json:"items"`
}

// key is the share key in a link's urls.published, checked for its shape.
func key(t *testing.T, l linkBody) string {
	t.Helper()
	u, err := url.Parse(l.URLs.Published)
	if err != nil || u.Scheme != "https" || u.Host != "sites.test" || u.Path != "/o1/s1" {
		t.Fatalf("urls.published %q, want https://sites.test/o1/s1?shareKey=...", l.URLs.Published)
	}
	k := u.Query().Get("shareKey")
	if len(k) != 43 {
		t.Fatalf("share key %q: %d characters, want 43", k, len(k))
	}
	return k
}

func (e *env) active(k string) bool {
	e.t.Helper()
	ok, err := e.svc.Active(context.Background(), "s1", k)
	if err != nil {
		e.t.Fatal(err)
	}
	return ok
}

func TestShareLinkLifecycle(t *testing.T) {
	e := newEnv(t)

	b := e.expect(201, "createSiteShareLink", "admin", "POST", links, `{"name":"Reviewers"}`)
	got := slices.Sorted(maps.Keys(apitest.Decode[map[string]json.RawMessage](t, b)))
	if diff := cmp.Diff([]string{"active", "createdAt", "id", "name", "object", "urls"}, got); diff != "" {
		t.Errorf("share link keys (-want +got):\n%s", diff)
	}
	created := apitest.Decode[linkBody](t, b)
	if created.Object != "share-link" || created.ID == "" || created.Name != "Reviewers" || !created.Active || created.CreatedAt == "" {
		t.Errorf("created %+v", created)
	}
	k := key(t, created)
	if !e.active(k) {
		t.Fatal("a new link's key does not open its site")
	}

	// A second link has another key.
	second := apitest.Decode[linkBody](t, e.expect(201, "createSiteShareLink", "admin", "POST", links, `{"name":""}`))
	if key(t, second) == k {
		t.Fatal("two links share a key")
	}

	// Managers see the key again when listing.
	l := apitest.Decode[listBody](t, e.expect(200, "listSiteShareLinks", "admin", "GET", links, ""))
	if diff := cmp.Diff([]linkBody{created, second}, l.Items); diff != "" || l.Count != 2 || l.Next != nil {
		t.Errorf("list (-want +got):\n%s; count %d, next %v", diff, l.Count, l.Next)
	}

	one := links + "/" + created.ID
	for _, step := range []struct {
		body       string
		wantName   string
		wantActive bool
	}{
		{`{"active":false}`, "Reviewers", false},
		{`{"name":"Partners"}`, "Partners", false},
		{`{"active":true,"name":"Partners 2"}`, "Partners 2", true},
		{`{"active":true}`, "Partners 2", true},
	} {
		u := apitest.Decode[linkBody](t, e.expect(200, "updateSiteShareLinkById", "admin", "PATCH", one, step.body))
		if u.Name != step.wantName || u.Active != step.wantActive || u.ID != created.ID || u.CreatedAt != created.CreatedAt || key(t, u) != k {
			t.Errorf("after %s: %+v", step.body, u)
		}
		if e.active(k) != step.wantActive {
			t.Errorf("after %s: Active = %v, want %v", step.body, !step.wantActive, step.wantActive)
		}
	}

	// The events carry the link without its key.
	var doc struct {
		Outbox []kafkax.Event `bson:"_outbox"`
	}
	if err := e.db.Collection(sharelinkmongo.Links).FindOne(context.Background(), bson.M{"_id": created.ID}).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, ev := range doc.Outbox {
		types = append(types, ev.Type)
		if strings.Contains(string(ev.Data), k) {
			t.Errorf("%s carries the key: %s", ev.Type, ev.Data)
		}
	}
	want := []string{sitesapi.ShareLinkCreated, sitesapi.ShareLinkUpdated, sitesapi.ShareLinkUpdated, sitesapi.ShareLinkUpdated}
	if diff := cmp.Diff(want, types); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}

	// Deleting revokes for good.
	e.expect(205, "deleteSiteShareLinkById", "admin", "DELETE", one, "")
	if e.active(k) {
		t.Error("a deleted link's key still opens its site")
	}
	e.expect(404, "", "admin", "PATCH", one, `{"active":true}`)
	e.expect(404, "", "admin", "DELETE", one, "")
	l = apitest.Decode[listBody](t, e.expect(200, "listSiteShareLinks", "admin", "GET", links, ""))
	if l.Count != 1 || len(l.Items) != 1 || l.Items[0].ID != second.ID {
		t.Errorf("list after delete %+v", l)
	}
}

func TestShareLinksPage(t *testing.T) {
	e := newEnv(t)
	var ids []string
	for range 5 {
		ids = append(ids, apitest.Decode[linkBody](t, e.expect(201, "createSiteShareLink", "admin", "POST", links, `{"name":"n"}`)).ID)
	}
	e.expect(201, "createSiteShareLink", "admin", "POST", "/v1/orgs/o1/sites/s2/share-links", `{"name":"elsewhere"}`)

	var got []string
	path := links + "?limit=2"
	for pages := 0; path != ""; pages++ {
		if pages == 3 {
			t.Fatal("more than 3 pages of 2 for 5 links")
		}
		l := apitest.Decode[listBody](t, e.expect(200, "listSiteShareLinks", "admin", "GET", path, ""))
		if l.Count != 5 {
			t.Errorf("count %d, want 5", l.Count)
		}
		for _, it := range l.Items {
			got = append(got, it.ID)
		}
		path = ""
		if l.Next != nil {
			path = links + "?limit=2&page=" + url.QueryEscape(l.Next.Page)
		}
	}
	slices.Sort(ids) // lists are by id; ids made in one millisecond are in random order
	if diff := cmp.Diff(ids, got); diff != "" {
		t.Errorf("ids over the pages (-want +got):\n%s", diff)
	}
}

func TestShareLinkErrors(t *testing.T) {
	e := newEnv(t)
	id := apitest.Decode[linkBody](t, e.expect(201, "createSiteShareLink", "admin", "POST", links, `{"name":"n"}`)).ID
	elsewhere := apitest.Decode[linkBody](t, e.expect(201, "createSiteShareLink", "admin", "POST",
		"/v1/orgs/o1/sites/s2/share-links", `{"name":"n"}`)).ID
	one := links + "/" + id
	long := `{"name":"` + strings.Repeat("a", 51) + `"}`
	fifty := `{"name":"` + strings.Repeat("é", 50) + `"}`
	type row = apitest.Row
	e.api.Run(t, as, []row{
		{Name: "name of 50 characters", User: "admin", Method: "POST", Path: links, Body: fifty, Want: 201},
		{Name: "name of 51 characters", User: "admin", Method: "POST", Path: links, Body: long, Want: 400, Field: "name"},
		{Name: "name missing", User: "admin", Method: "POST", Path: links, Body: `{}`, Want: 400, Field: "name"},
		{Name: "name with a NUL", User: "admin", Method: "POST", Path: links, Body: `{"name":"a\u0000"}`, Want: 400, Field: "name: must not contain NUL"},
		{Name: "patch name with a bidi override", User: "admin", Method: "PATCH", Path: one, Body: `{"name":"\u202Eabc"}`, Want: 400, Field: "name: must not contain the invisible format character U+202E"},
		{Name: "name null", User: "admin", Method: "POST", Path: links, Body: `{"name":null}`, Want: 400, Field: "name"},
		{Name: "name a number", User: "admin", Method: "POST", Path: links, Body: `{"name":5}`, Want: 400, Field: "name"},
		{Name: "no body", User: "admin", Method: "POST", Path: links, Want: 400},
		{Name: "patch name of 51 characters", User: "admin", Method: "PATCH", Path: one, Body: long, Want: 400, Field: "name"},
		{Name: "patch active a string", User: "admin", Method: "PATCH", Path: one, Body: `{"active":"no"}`, Want: 400, Field: "active"},
		{Name: "patch active null", User: "admin", Method: "PATCH", Path: one, Body: `{"active":null}`, Want: 400, Field: "active"},
		{Name: "patch nothing", User: "admin", Method: "PATCH", Path: one, Body: `{}`, Want: 400},
		{Name: "limit too big", User: "admin", Method: "GET", Path: links + "?limit=1001", Want: 400, Field: "limit"},
		{Name: "page not ours", User: "admin", Method: "GET", Path: links + "?page=x", Want: 400, Field: "page"},

		{Name: "creator lists", User: "creator", Method: "GET", Path: links, Want: 403},
		{Name: "creator creates", User: "creator", Method: "POST", Path: links, Body: `{"name":"n"}`, Want: 403},
		{Name: "creator patches", User: "creator", Method: "PATCH", Path: one, Body: `{"active":false}`, Want: 403},
		{Name: "creator deletes", User: "creator", Method: "DELETE", Path: one, Want: 403},
		{Name: "reader lists", User: "reader", Method: "GET", Path: links, Want: 403},
		{Name: "guest lists", User: "guest", Method: "GET", Path: links, Want: 404},

		{Name: "other organization lists", User: "other", Method: "GET", Path: links, Want: 404},
		{Name: "other organization creates", User: "other", Method: "POST", Path: links, Body: `{"name":"n"}`, Want: 404},
		{Name: "other organization patches", User: "other", Method: "PATCH", Path: one, Body: `{"active":false}`, Want: 404},
		{Name: "other organization deletes", User: "other", Method: "DELETE", Path: one, Want: 404},
		{Name: "site under another organization", User: "other", Method: "GET", Path: "/v1/orgs/o2/sites/s1/share-links", Want: 404},
		{Name: "unknown site", User: "admin", Method: "GET", Path: "/v1/orgs/o1/sites/nope/share-links", Want: 404},
		{Name: "unknown link", User: "admin", Method: "PATCH", Path: links + "/nope", Body: `{"active":false}`, Want: 404},
		{Name: "another site's link", User: "admin", Method: "DELETE", Path: links + "/" + elsewhere, Want: 404},
	})

	// None of the refused requests changed the link.
	l := apitest.Decode[listBody](t, e.expect(200, "listSiteShareLinks", "admin", "GET", links, ""))
	if l.Count != 2 || !l.Items[0].Active || l.Items[0].Name != "n" {
		t.Errorf("links after the refused requests %+v", l)
	}
	if got := e.api.Anonymous("GET", links, "").Status; got != http.StatusUnauthorized {
		t.Errorf("without an internal token: %d, want 401", got)
	}
}
