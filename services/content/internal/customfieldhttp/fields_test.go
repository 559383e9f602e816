package customfieldhttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

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

	b := e.must(201, "admin", "POST", path,
		`{"name":"tier","type":"select","title":"Tier","description":"Plan tier","placeholder":"Pick one","options":["free","pro"]}`)
	got := slices.Sorted(maps.Keys(decode[map[string]json.RawMessage](t, b)))
	want := []string{"createdAt", "description", "id", "name", "options", "permissions", "placeholder", "title", "type", "updatedAt", "urls"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("custom field keys (-want +got):\n%s", diff)
	}
	created := decode[fieldBody](t, b)
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
	if len(doc.Outbox) != 1 || doc.Outbox[0].Type != "custom_field.created" || doc.Outbox[0].Organization != "o1" ||
		doc.Outbox[0].Subject != created.ID || !cmp.Equal(decode[fieldBody](t, doc.Outbox[0].Data), created) {
		t.Errorf("outbox %+v", doc.Outbox)
	}

	read := decode[fieldBody](t, e.must(200, "reader", "GET", path+"/tier", ""))
	if read.ID != created.ID || !read.Permissions.View || read.Permissions.Edit {
		t.Errorf("reader's view %+v", read)
	}
	l := decode[listBody](t, e.must(200, "reader", "GET", path, ""))
	if l.Count != 1 || len(l.Items) != 1 || l.Items[0].ID != created.ID || l.Next != nil {
		t.Errorf("list %+v", l)
	}

	upd := decode[fieldBody](t, e.must(200, "admin", "PATCH", path+"/tier", `{"title":"Plan","description":null,"options":["pro","team"]}`))
	if upd.Title != "Plan" || upd.Description != "" || !cmp.Equal(upd.Options, []string{"pro", "team"}) ||
		upd.Name != "tier" || upd.Placeholder != "Pick one" || upd.CreatedAt != created.CreatedAt {
		t.Errorf("updated %+v", upd)
	}
	if again := decode[fieldBody](t, e.must(200, "admin", "GET", path+"/tier", "")); !cmp.Equal(again, upd) {
		t.Errorf("read after update %+v, want %+v", again, upd)
	}

	e.must(204, "admin", "DELETE", path+"/tier", "")
	e.must(404, "admin", "GET", path+"/tier", "")
	e.must(404, "admin", "DELETE", path+"/tier", "")
	if l := decode[listBody](t, e.must(200, "admin", "GET", path, "")); l.Count != 0 || len(l.Items) != 0 {
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
		{name: "name missing", body: `{"type":"text"}`, want: 400, field: "name"},
		{name: "name empty", body: `{"name":"","type":"text"}`, want: 400, field: "name"},
		{name: "name 51", body: `{"name":"` + long(51) + `","type":"text"}`, want: 400, field: "name"},
		{name: "name 50", body: `{"name":"` + long(50) + `","type":"text"}`, want: 201},
		{name: "name upper case", body: `{"name":"Tier","type":"text"}`, want: 400, field: "name"},
		{name: "name space", body: `{"name":"a b","type":"text"}`, want: 400, field: "name"},
		{name: "name dot", body: `{"name":"a.b","type":"text"}`, want: 400, field: "name"},
		{name: "name dollar", body: `{"name":"$a","type":"text"}`, want: 400, field: "name"},
		{name: "name allowed characters", body: `{"name":"a_b-9","type":"text"}`, want: 201},
		{name: "name not a string", body: `{"name":5,"type":"text"}`, want: 400, field: "name"},
		{name: "type missing", body: `{"name":"t1"}`, want: 400, field: "type"},
		{name: "type unknown", body: `{"name":"t2","type":"date"}`, want: 400, field: "type"},
		{name: "type number", body: `{"name":"t3","type":"number"}`, want: 201},
		{name: "type boolean", body: `{"name":"t4","type":"boolean"}`, want: 201},
		{name: "type multi-select", body: `{"name":"t5","type":"multi-select","options":["a","b"]}`, want: 201},
		{name: "title 100", body: `{"name":"l1","type":"text","title":"` + long(100) + `"}`, want: 201},
		{name: "title 101", body: `{"name":"l2","type":"text","title":"` + long(101) + `"}`, want: 400, field: "title"},
		{name: "title not a string", body: `{"name":"l3","type":"text","title":5}`, want: 400, field: "title"},
		{name: "description 200", body: `{"name":"l4","type":"text","description":"` + long(200) + `"}`, want: 201},
		{name: "description 201", body: `{"name":"l5","type":"text","description":"` + long(201) + `"}`, want: 400, field: "description"},
		{name: "placeholder 100", body: `{"name":"l6","type":"text","placeholder":"` + long(100) + `"}`, want: 201},
		{name: "placeholder 101", body: `{"name":"l7","type":"text","placeholder":"` + long(101) + `"}`, want: 400, field: "placeholder"},
		{name: "select without options", body: `{"name":"o1","type":"select"}`, want: 400, field: "options"},
		{name: "select null options", body: `{"name":"o2","type":"select","options":null}`, want: 400, field: "options"},
		{name: "select no options", body: `{"name":"o3","type":"select","options":[]}`, want: 400, field: "options"},
		{name: "select 50 options", body: `{"name":"o4","type":"select","options":` + opts(50) + `}`, want: 201},
		{name: "select 51 options", body: `{"name":"o5","type":"select","options":` + opts(51) + `}`, want: 400, field: "options"},
		{name: "empty option", body: `{"name":"o6","type":"select","options":[""]}`, want: 400, field: "options[0]"},
		{name: "option 100", body: `{"name":"o7","type":"select","options":["` + long(100) + `"]}`, want: 201},
		{name: "option 101", body: `{"name":"o8","type":"select","options":["x","` + long(101) + `"]}`, want: 400, field: "options[1]"},
		{name: "duplicate option", body: `{"name":"o9","type":"multi-select","options":["x","y","x"]}`, want: 400, field: "options[2]"},
		{name: "options not strings", body: `{"name":"o10","type":"select","options":[1]}`, want: 400, field: "options"},
		{name: "text with options", body: `{"name":"o11","type":"text","options":["x"]}`, want: 400, field: "options"},
		{name: "number with empty options", body: `{"name":"o12","type":"number","options":[]}`, want: 400, field: "options"},
		{name: "text with null options", body: `{"name":"o13","type":"text","options":null}`, want: 201},
		{name: "no body", want: 400},
		{name: "malformed", body: `{"name":`, want: 400},
		{name: "not an object", body: `[]`, want: 400},
	}
	for i := range rows {
		rows[i].user, rows[i].method, rows[i].path = "admin", "POST", path
	}
	e.run(rows)
	// Nothing refused was stored.
	accepted := 0
	for _, r := range rows {
		if r.want == 201 {
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
	e.run([]row{
		{name: "same organization", user: "admin", method: "POST", path: "/v1/orgs/o1/custom-fields", body: `{"name":"audience","type":"number"}`, want: 409},
		{name: "other organization", user: "other", method: "POST", path: "/v1/orgs/o2/custom-fields", body: `{"name":"audience","type":"number"}`, want: 201},
	})
}

func TestFieldAccess(t *testing.T) {
	e := newEnv(t)
	e.define(`{"name":"audience","type":"text"}`)
	e.must(201, "other", "POST", "/v1/orgs/o2/custom-fields", `{"name":"secret","type":"text"}`)
	const o1 = "/v1/orgs/o1/custom-fields"
	e.run([]row{
		{name: "reader lists", user: "reader", method: "GET", path: o1, want: 200},
		{name: "reader gets", user: "reader", method: "GET", path: o1 + "/audience", want: 200},
		{name: "reader cannot create", user: "reader", method: "POST", path: o1, body: `{"name":"x","type":"text"}`, want: 403},
		{name: "editor cannot create", user: "editor", method: "POST", path: o1, body: `{"name":"x","type":"text"}`, want: 403},
		{name: "reader cannot patch", user: "reader", method: "PATCH", path: o1 + "/audience", body: `{"title":"x"}`, want: 403},
		{name: "editor cannot delete", user: "editor", method: "DELETE", path: o1 + "/audience", want: 403},
		{name: "guest cannot list", user: "guest", method: "GET", path: o1, want: 403},
		{name: "guest cannot get", user: "guest", method: "GET", path: o1 + "/audience", want: 403},
		{name: "non-member list", user: "other", method: "GET", path: o1, want: 404},
		{name: "non-member get", user: "other", method: "GET", path: o1 + "/audience", want: 404},
		{name: "non-member create", user: "other", method: "POST", path: o1, body: `{"name":"x","type":"text"}`, want: 404},
		{name: "non-member delete", user: "other", method: "DELETE", path: o1 + "/audience", want: 404},
		{name: "other organization's field through own", user: "admin", method: "GET", path: o1 + "/secret", want: 404},
		{name: "other organization's field", user: "admin", method: "GET", path: "/v1/orgs/o2/custom-fields/secret", want: 404},
		{name: "unknown field", user: "admin", method: "GET", path: o1 + "/nope", want: 404},
	})
	// A non-member learns nothing about the organization.
	_, b := e.as("other", "GET", o1, "")
	if msg := errorMessage(t, b); msg != "organization not found" {
		t.Errorf("non-member error %q", msg)
	}
	// Lists never show another organization's fields.
	l := decode[listBody](t, e.must(200, "admin", "GET", o1, ""))
	if l.Count != 1 || len(l.Items) != 1 || l.Items[0].Name != "audience" {
		t.Errorf("o1 list %+v", l)
	}
	// Without an internal token nothing is served.
	w := httptest.NewRecorder()
	e.engine.ServeHTTP(w, httptest.NewRequest("GET", o1, nil))
	if w.Code != 401 {
		t.Errorf("no internal token: status %d, want 401", w.Code)
	}
}

func TestPatchValidation(t *testing.T) {
	e := newEnv(t)
	e.define(`{"name":"audience","type":"text","title":"Audience"}`)
	e.define(`{"name":"tier","type":"select","options":["a","b"]}`)
	long := strings.Repeat("x", 101)
	const path = "/v1/orgs/o1/custom-fields/"
	rows := []row{
		{name: "title 101", path: path + "audience", body: `{"title":"` + long + `"}`, want: 400, field: "title"},
		{name: "description 201", path: path + "audience", body: `{"description":"` + strings.Repeat("x", 201) + `"}`, want: 400, field: "description"},
		{name: "placeholder 101", path: path + "audience", body: `{"placeholder":"` + long + `"}`, want: 400, field: "placeholder"},
		{name: "options on text", path: path + "audience", body: `{"options":["a"]}`, want: 400, field: "options"},
		{name: "rename", path: path + "audience", body: `{"name":"other"}`, want: 400, field: "name"},
		{name: "same name", path: path + "audience", body: `{"name":"audience","title":"A"}`, want: 200},
		{name: "retype", path: path + "audience", body: `{"type":"number"}`, want: 400, field: "type"},
		{name: "options emptied", path: path + "tier", body: `{"options":[]}`, want: 400, field: "options"},
		{name: "options null", path: path + "tier", body: `{"options":null}`, want: 400, field: "options"},
		{name: "option duplicated", path: path + "tier", body: `{"options":["a","a"]}`, want: 400, field: "options[1]"},
		{name: "option too long", path: path + "tier", body: `{"options":["` + long + `"]}`, want: 400, field: "options[0]"},
		{name: "options changed", path: path + "tier", body: `{"options":["b","c"]}`, want: 200},
		{name: "empty patch", path: path + "tier", body: `{}`, want: 200},
		{name: "unknown field", path: path + "nope", body: `{"title":"x"}`, want: 404},
	}
	for i := range rows {
		rows[i].user, rows[i].method = "admin", "PATCH"
	}
	e.run(rows)
	got := decode[fieldBody](t, e.must(200, "reader", "GET", path+"audience", ""))
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
		l := decode[listBody](t, e.must(200, "reader", "GET", q, ""))
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
	e.run([]row{
		{name: "bad cursor", user: "reader", method: "GET", path: "/v1/orgs/o1/custom-fields?page=zz", want: 400, field: "page"},
		{name: "limit too big", user: "reader", method: "GET", path: "/v1/orgs/o1/custom-fields?limit=1001", want: 400, field: "limit"},
	})
}
