package customfieldhttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/docspub/platform/libs/apitest"
	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/services/content/internal/customfieldmongo"
	"github.com/google/go-cmp/cmp"
	"go.mongodb.org/mongo-driver/v2/bson"
)

type fieldBody struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Type        string   `json:"type"`
	Placeholder string   `json:"placeholder"`
	Options     []string `json:"options"`
	CreatedAt   string   `json:"createdAt"`
	UpdatedAt   string   `json:"updatedAt"`
	URLs        struct {
		Location string `json:"location"`
	} `json:"urls"`
	Permissions struct {
		View bool `json:"view"`
		Edit bool `json:"edit"`
	} `json:"permissions"`
}

type listBody struct {
	Next *struct {
		Page string `json:"page"`
	} `json:"next"`
	Count int         `json:"count"`
	Items []fieldBody `json:"items"`
}

func TestFieldLifecycle(t *testing.T) {
	e := newEnv(t)
	const path = "/v1/orgs/o1/custom-fields"

	b := e.op(201, "admin", "POST", path,
		`{"name":"tier","type":"select","title":"Tier","description":"Plan tier","placeholder":"Pick one","options":["free","pro"]}`, "createCustomField")
	got := slices.Sorted(maps.Keys(apitest.Decode[map[string]json.RawMessage](t, b)))
	want := []string{"createdAt", "description", "id", "name", "options", "permissions", "placeholder", "title", "type", "updatedAt", "urls"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("custom field keys (-want +got):\n%s", diff)
	}
	created := apitest.Decode[fieldBody](t, b)
	if created.ID == "" || created.Name != "tier" || created.Type != "select" || created.Title != "Tier" ||
		created.Description != "Plan tier" || created.Placeholder != "Pick one" || !cmp.Equal(created.Options, []string{"free", "pro"}) ||
		created.CreatedAt == "" || created.UpdatedAt != created.CreatedAt {
		t.Errorf("created %+v", created)
	}
	if got, want := created.URLs.Location, "http://gw.test/v1/orgs/o1/custom-fields/tier"; got != want {
		t.Errorf("urls.location %q, want %q", got, want)
	}
	if !created.Permissions.View || !created.Permissions.Edit {
		t.Errorf("admin's permissions %+v", created.Permissions)
	}

	// The creation event carries the field as the API returned it.
	var doc struct {
		Outbox []kafkax.Event `bson:"_outbox"`
	}
	if err := e.db.Collection(customfieldmongo.Fields).FindOne(context.Background(), bson.M{"_id": created.ID}).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Outbox) != 1 || doc.Outbox[0].Type != contentapi.CustomFieldCreated || doc.Outbox[0].Organization != "o1" ||
		doc.Outbox[0].Subject != created.ID || !cmp.Equal(apitest.Decode[fieldBody](t, doc.Outbox[0].Data), created) {
		t.Errorf("outbox %+v", doc.Outbox)
	}

	read := apitest.Decode[fieldBody](t, e.op(200, "reader", "GET", path+"/tier", "", "getCustomField"))
	if read.ID != created.ID || !read.Permissions.View || read.Permissions.Edit {
		t.Errorf("reader's view %+v", read)
	}
	l := apitest.Decode[listBody](t, e.op(200, "reader", "GET", path, "", "listCustomFields"))
	if l.Count != 1 || len(l.Items) != 1 || l.Items[0].ID != created.ID || l.Next != nil {
		t.Errorf("list %+v", l)
	}

	upd := apitest.Decode[fieldBody](t, e.op(200, "admin", "PATCH", path+"/tier", `{"title":"Plan","description":null,"options":["pro","team"]}`, "updateCustomField"))
	if upd.Title != "Plan" || upd.Description != "" || !cmp.Equal(upd.Options, []string{"pro", "team"}) ||
		upd.Name != "tier" || upd.Placeholder != "Pick one" || upd.CreatedAt != created.CreatedAt {
		t.Errorf("updated %+v", upd)
	}
	if again := apitest.Decode[fieldBody](t, e.must(200, "admin", "GET", path+"/tier", "")); !cmp.Equal(again, upd) {
		t.Errorf("read after update %+v, want %+v", again, upd)
	}

	e.op(204, "admin", "DELETE", path+"/tier", "", "deleteCustomField")
	e.must(404, "admin", "GET", path+"/tier", "")
	e.must(404, "admin", "DELETE", path+"/tier", "")
	if l := apitest.Decode[listBody](t, e.must(200, "admin", "GET", path, "")); l.Count != 0 || len(l.Items) != 0 {
		t.Errorf("list after delete %+v", l)
	}
	// The name is free again.
	e.must(201, "admin", "POST", path, `{"name":"tier","type":"text"}`)
}

func TestCreateValidation(t *testing.T) {
	e := newEnv(t)
	long := func(n int) string { return strings.Repeat("a", n) }
	opts := func(n int) string {
		var o []string
		for i := range n {
			o = append(o, fmt.Sprintf("%q", fmt.Sprint("o", i)))
		}
		return "[" + strings.Join(o, ",") + "]"
	}
	const path = "/v1/orgs/o1/custom-fields"
	rows := []row{
		{Name: "name missing", Body: `{"type":"text"}`, Want: 400, Field: "name:"},
		{Name: "name empty", Body: `{"name":"","type":"text"}`, Want: 400, Field: "name:"},
		{Name: "name 51", Body: `{"name":"` + long(51) + `","type":"text"}`, Want: 400, Field: "name:"},
		{Name: "name 50", Body: `{"name":"` + long(50) + `","type":"text"}`, Want: 201},
		{Name: "name upper case", Body: `{"name":"Tier","type":"text"}`, Want: 400, Field: "name:"},
		{Name: "name space", Body: `{"name":"a b","type":"text"}`, Want: 400, Field: "name:"},
		{Name: "name dot", Body: `{"name":"a.b","type":"text"}`, Want: 400, Field: "name:"},
		{Name: "name dollar", Body: `{"name":"$a","type":"text"}`, Want: 400, Field: "name:"},
		{Name: "name allowed characters", Body: `{"name":"a_b-9","type":"text"}`, Want: 201},
		{Name: "name not a string", Body: `{"name":5,"type":"text"}`, Want: 400, Field: "name:"},
		{Name: "type missing", Body: `{"name":"t1"}`, Want: 400, Field: "type:"},
		{Name: "type unknown", Body: `{"name":"t2","type":"date"}`, Want: 400, Field: "type:"},
		{Name: "type number", Body: `{"name":"t3","type":"number"}`, Want: 201},
		{Name: "type boolean", Body: `{"name":"t4","type":"boolean"}`, Want: 201},
		{Name: "type multi-select", Body: `{"name":"t5","type":"multi-select","options":["a","b"]}`, Want: 201},
		{Name: "title 100", Body: `{"name":"l1","type":"text","title":"` + long(100) + `"}`, Want: 201},
		{Name: "title 101", Body: `{"name":"l2","type":"text","title":"` + long(101) + `"}`, Want: 400, Field: "title:"},
		{Name: "title not a string", Body: `{"name":"l3","type":"text","title":5}`, Want: 400, Field: "title:"},
		{Name: "title with NUL", Body: `{"name":"l8","type":"text","title":"a\u0000b"}`, Want: 400, Field: "title:"},
		{Name: "option with a bidi override", Body: `{"name":"o9","type":"select","options":["\u202egood"]}`, Want: 400, Field: "options[0]:"},
		{Name: "description 200", Body: `{"name":"l4","type":"text","description":"` + long(200) + `"}`, Want: 201},
		{Name: "description 201", Body: `{"name":"l5","type":"text","description":"` + long(201) + `"}`, Want: 400, Field: "description:"},
		{Name: "placeholder 100", Body: `{"name":"l6","type":"text","placeholder":"` + long(100) + `"}`, Want: 201},
		{Name: "placeholder 101", Body: `{"name":"l7","type":"text","placeholder":"` + long(101) + `"}`, Want: 400, Field: "placeholder:"},
		{Name: "select without options", Body: `{"name":"o1","type":"select"}`, Want: 400, Field: "options:"},
		{Name: "select null options", Body: `{"name":"o2","type":"select","options":null}`, Want: 400, Field: "options:"},
		{Name: "select no options", Body: `{"name":"o3","type":"select","options":[]}`, Want: 400, Field: "options:"},
		{Name: "select 50 options", Body: `{"name":"o4","type":"select","options":` + opts(50) + `}`, Want: 201},
		{Name: "select 51 options", Body: `{"name":"o5","type":"select","options":` + opts(51) + `}`, Want: 400, Field: "options:"},
		{Name: "empty option", Body: `{"name":"o6","type":"select","options":[""]}`, Want: 400, Field: "options[0]:"},
		{Name: "option 100", Body: `{"name":"o7","type":"select","options":["` + long(100) + `"]}`, Want: 201},
		{Name: "option 101", Body: `{"name":"o8","type":"select","options":["x","` + long(101) + `"]}`, Want: 400, Field: "options[1]:"},
		{Name: "duplicate option", Body: `{"name":"o9","type":"multi-select","options":["x","y","x"]}`, Want: 400, Field: "options[2]:"},
		{Name: "options not strings", Body: `{"name":"o10","type":"select","options":[1]}`, Want: 400, Field: "options:"},
		{Name: "text with options", Body: `{"name":"o11","type":"text","options":["x"]}`, Want: 400, Field: "options:"},
		{Name: "number with empty options", Body: `{"name":"o12","type":"number","options":[]}`, Want: 400, Field: "options:"},
		{Name: "text with null options", Body: `{"name":"o13","type":"text","options":null}`, Want: 201},
		{Name: "no body", Want: 400},
		{Name: "malformed", Body: `{"name":`, Want: 400},
		{Name: "not an object", Body: `[]`, Want: 400},
	}
	for i := range rows {
		rows[i].User, rows[i].Method, rows[i].Path = "admin", "POST", path
	}
	e.api.Run(e.t, as, rows)
	// Nothing refused was stored.
	accepted := 0
	for _, r := range rows {
		if r.Want == 201 {
			accepted++
		}
	}
	if n, _ := e.db.Collection(customfieldmongo.Fields).CountDocuments(context.Background(), bson.M{}); int(n) != accepted {
		t.Errorf("%d definitions stored, want the %d accepted ones", n, accepted)
	}
}

func TestDuplicateName(t *testing.T) {
	e := newEnv(t)
	e.define(`{"name":"audience","type":"text"}`)
	e.api.Run(e.t, as, []row{
		{Name: "same organization", User: "admin", Method: "POST", Path: "/v1/orgs/o1/custom-fields", Body: `{"name":"audience","type":"number"}`, Want: 409},
		{Name: "other organization", User: "other", Method: "POST", Path: "/v1/orgs/o2/custom-fields", Body: `{"name":"audience","type":"number"}`, Want: 201},
	})
}

func TestFieldAccess(t *testing.T) {
	e := newEnv(t)
	e.define(`{"name":"audience","type":"text"}`)
	e.must(201, "other", "POST", "/v1/orgs/o2/custom-fields", `{"name":"secret","type":"text"}`)
	const o1 = "/v1/orgs/o1/custom-fields"
	e.api.Run(e.t, as, []row{
		{Name: "reader lists", User: "reader", Method: "GET", Path: o1, Want: 200},
		{Name: "reader gets", User: "reader", Method: "GET", Path: o1 + "/audience", Want: 200},
		{Name: "reader cannot create", User: "reader", Method: "POST", Path: o1, Body: `{"name":"x","type":"text"}`, Want: 403},
		{Name: "editor cannot create", User: "editor", Method: "POST", Path: o1, Body: `{"name":"x","type":"text"}`, Want: 403},
		{Name: "reader cannot patch", User: "reader", Method: "PATCH", Path: o1 + "/audience", Body: `{"title":"x"}`, Want: 403},
		{Name: "editor cannot delete", User: "editor", Method: "DELETE", Path: o1 + "/audience", Want: 403},
		{Name: "guest cannot list", User: "guest", Method: "GET", Path: o1, Want: 403},
		{Name: "guest cannot get", User: "guest", Method: "GET", Path: o1 + "/audience", Want: 403},
		{Name: "non-member list", User: "other", Method: "GET", Path: o1, Want: 404},
		{Name: "non-member get", User: "other", Method: "GET", Path: o1 + "/audience", Want: 404},
		{Name: "non-member create", User: "other", Method: "POST", Path: o1, Body: `{"name":"x","type":"text"}`, Want: 404},
		{Name: "non-member delete", User: "other", Method: "DELETE", Path: o1 + "/audience", Want: 404},
		{Name: "other organization's field through own", User: "admin", Method: "GET", Path: o1 + "/secret", Want: 404},
		{Name: "other organization's field", User: "admin", Method: "GET", Path: "/v1/orgs/o2/custom-fields/secret", Want: 404},
		{Name: "unknown field", User: "admin", Method: "GET", Path: o1 + "/nope", Want: 404},
	})
	// A non-member learns nothing about the organization.
	b := e.api.Do(as("other"), "GET", o1, "").Body
	if msg := apitest.ErrorMessage(t, b); msg != "organization not found" {
		t.Errorf("non-member error %q", msg)
	}
	// Lists never show another organization's fields.
	l := apitest.Decode[listBody](t, e.must(200, "admin", "GET", o1, ""))
	if l.Count != 1 || len(l.Items) != 1 || l.Items[0].Name != "audience" {
		t.Errorf("o1 list %+v", l)
	}
	// Without an internal token nothing is served.
	if r := e.api.Anonymous("GET", o1, ""); r.Status != 401 {
		t.Errorf("no internal token: status %d, want 401", r.Status)
	}
}

func TestPatchValidation(t *testing.T) {
	e := newEnv(t)
	e.define(`{"name":"audience","type":"text","title":"Audience"}`)
	e.define(`{"name":"tier","type":"select","options":["a","b"]}`)
	long := strings.Repeat("x", 101)
	const path = "/v1/orgs/o1/custom-fields/"
	rows := []row{
		{Name: "title 101", Path: path + "audience", Body: `{"title":"` + long + `"}`, Want: 400, Field: "title:"},
		{Name: "title with a control character", Path: path + "audience", Body: `{"title":"a\tb"}`, Want: 400, Field: "title:"},
		{Name: "description 201", Path: path + "audience", Body: `{"description":"` + strings.Repeat("x", 201) + `"}`, Want: 400, Field: "description:"},
		{Name: "placeholder 101", Path: path + "audience", Body: `{"placeholder":"` + long + `"}`, Want: 400, Field: "placeholder:"},
		{Name: "options on text", Path: path + "audience", Body: `{"options":["a"]}`, Want: 400, Field: "options:"},
		{Name: "rename", Path: path + "audience", Body: `{"name":"other"}`, Want: 400, Field: "name:"},
		{Name: "same name", Path: path + "audience", Body: `{"name":"audience","title":"A"}`, Want: 200},
		{Name: "retype", Path: path + "audience", Body: `{"type":"number"}`, Want: 400, Field: "type:"},
		{Name: "options emptied", Path: path + "tier", Body: `{"options":[]}`, Want: 400, Field: "options:"},
		{Name: "options null", Path: path + "tier", Body: `{"options":null}`, Want: 400, Field: "options:"},
		{Name: "option duplicated", Path: path + "tier", Body: `{"options":["a","a"]}`, Want: 400, Field: "options[1]:"},
		{Name: "option too long", Path: path + "tier", Body: `{"options":["` + long + `"]}`, Want: 400, Field: "options[0]:"},
		{Name: "options changed", Path: path + "tier", Body: `{"options":["b","c"]}`, Want: 200},
		{Name: "empty patch", Path: path + "tier", Body: `{}`, Want: 200},
		{Name: "unknown field", Path: path + "nope", Body: `{"title":"x"}`, Want: 404},
	}
	for i := range rows {
		rows[i].User, rows[i].Method = "admin", "PATCH"
	}
	e.api.Run(e.t, as, rows)
	got := apitest.Decode[fieldBody](t, e.must(200, "reader", "GET", path+"audience", ""))
	if got.Title != "A" || got.Description != "" || got.Placeholder != "" || got.Type != "text" {
		t.Errorf("audience after refused patches %+v", got)
	}
}

func TestListPaging(t *testing.T) {
	e := newEnv(t)
	names := []string{"echo", "alpha", "delta", "charlie", "bravo"}
	for _, n := range names {
		e.define(`{"name":"` + n + `","type":"text"}`)
	}
	var seen []string
	page := ""
	for range 10 {
		q := "/v1/orgs/o1/custom-fields?limit=2"
		if page != "" {
			q += "&page=" + url.QueryEscape(page)
		}
		l := apitest.Decode[listBody](t, e.must(200, "reader", "GET", q, ""))
		if l.Count != 5 || len(l.Items) > 2 {
			t.Fatalf("page %+v", l)
		}
		for _, it := range l.Items {
			seen = append(seen, it.Name)
		}
		if l.Next == nil {
			break
		}
		page = l.Next.Page
	}
	if diff := cmp.Diff([]string{"alpha", "bravo", "charlie", "delta", "echo"}, seen); diff != "" {
		t.Errorf("names over the pages (-want +got):\n%s", diff)
	}
	e.api.Run(e.t, as, []row{
		{Name: "bad cursor", User: "reader", Method: "GET", Path: "/v1/orgs/o1/custom-fields?page=zz", Want: 400, Field: "page:"},
		{Name: "limit too big", User: "reader", Method: "GET", Path: "/v1/orgs/o1/custom-fields?limit=1001", Want: 400, Field: "limit:"},
	})
}
