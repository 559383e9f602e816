package customfieldhttp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/docspub/platform/libs/apitest"
	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/content/internal/access"
	"github.com/docspub/platform/services/content/internal/customfieldmongo"
	"github.com/google/go-cmp/cmp"
	"go.mongodb.org/mongo-driver/v2/bson"
)

type valueBody struct {
	CustomField fieldBody       `json:"customField"`
	Value       json.RawMessage `json:"value"`
}

// values reads a space's values as name → raw JSON value ("" when unset),
// checking that every definition is listed, by name.
func (e *env) values(user, space string, defined ...string) map[string]string {
	e.t.Helper()
	items := apitest.Decode[[]valueBody](e.t, e.op(200, user, "GET", "/v1/spaces/"+space+"/custom-fields", "", "getSpaceCustomFieldValues"))
	var names []string
	out := map[string]string{}
	for _, it := range items {
		names = append(names, it.CustomField.Name)
		out[it.CustomField.Name] = string(it.Value)
	}
	if diff := cmp.Diff(defined, names); diff != "" {
		e.t.Fatalf("definitions of space %s (-want +got):\n%s", space, diff)
	}
	return out
}

// defineAll defines a field of each type in o1.
func defineAll(e *env) []string {
	e.define(`{"name":"text","type":"text"}`)
	e.define(`{"name":"num","type":"number"}`)
	e.define(`{"name":"flag","type":"boolean"}`)
	e.define(`{"name":"tier","type":"select","options":["free","pro"]}`)
	e.define(`{"name":"tags","type":"multi-select","options":["a","b","c"]}`)
	return []string{"flag", "num", "tags", "text", "tier"}
}

func TestSpaceValues(t *testing.T) {
	e := newEnv(t)
	names := defineAll(e)
	const path = "/v1/spaces/s1/custom-fields"

	empty := e.values("reader", "s1", names...)
	if diff := cmp.Diff(map[string]string{"flag": "", "num": "", "tags": "", "text": "", "tier": ""}, empty); diff != "" {
		t.Errorf("values before any (-want +got):\n%s", diff)
	}

	e.must(204, "editor", "PATCH", path, `{"values":{
		"text":{"value":"hello"},"num":{"value":-2.5},"flag":{"value":false},
		"tier":{"value":"pro"},"tags":{"value":["c","a"]}}}`)
	want := map[string]string{"flag": "false", "num": "-2.5", "tags": `["c","a"]`, "text": `"hello"`, "tier": `"pro"`}
	if diff := cmp.Diff(want, e.values("reader", "s1", names...)); diff != "" {
		t.Errorf("values (-want +got):\n%s", diff)
	}
	// Another space keeps its own values.
	if got := e.values("reader", "s2", names...); got["text"] != "" {
		t.Errorf("space s2 has values %v", got)
	}

	// The event carries the values as GET returns them.
	var doc struct {
		Organization string         `bson:"organization"`
		Outbox       []kafkax.Event `bson:"_outbox"`
	}
	if err := e.db.Collection(customfieldmongo.SpaceValues).FindOne(context.Background(), bson.M{"_id": "s1"}).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Outbox) != 1 || doc.Outbox[0].Type != contentapi.CustomFieldValuesUpdated || doc.Outbox[0].Subject != "s1" ||
		doc.Outbox[0].Organization != "o1" || doc.Organization != "o1" {
		t.Fatalf("stored %+v", doc)
	}
	evValues := map[string]string{}
	for _, it := range apitest.Decode[[]valueBody](t, doc.Outbox[0].Data) {
		evValues[it.CustomField.Name] = string(it.Value)
	}
	if diff := cmp.Diff(want, evValues); diff != "" {
		t.Errorf("event values (-want +got):\n%s", diff)
	}

	// Clearing: {value: null} and {} remove a value, the others stay.
	e.must(204, "editor", "PATCH", path, `{"values":{"text":{"value":null},"tags":{},"num":{"value":3}}}`)
	want = map[string]string{"flag": "false", "num": "3", "tags": "", "text": "", "tier": `"pro"`}
	if diff := cmp.Diff(want, e.values("reader", "s1", names...)); diff != "" {
		t.Errorf("values after clearing (-want +got):\n%s", diff)
	}
	// An empty patch changes nothing.
	e.must(204, "editor", "PATCH", path, `{"values":{}}`)
	if diff := cmp.Diff(want, e.values("reader", "s1", names...)); diff != "" {
		t.Errorf("values after an empty patch (-want +got):\n%s", diff)
	}
}

func TestSpaceValuesRefused(t *testing.T) {
	e := newEnv(t)
	names := defineAll(e)
	e.must(201, "other", "POST", "/v1/orgs/o2/custom-fields", `{"name":"secret","type":"text"}`)
	const path = "/v1/spaces/s1/custom-fields"
	e.must(204, "editor", "PATCH", path, `{"values":{"text":{"value":"kept"},"tier":{"value":"free"}}}`)
	before := e.values("reader", "s1", names...)

	v := func(name, value string) string {
		return `{"values":{"` + name + `":{"value":` + value + `}}}`
	}
	rows := []row{
		{Name: "text number", Body: v("text", "5"), Field: "values.text:"},
		{Name: "text bool", Body: v("text", "true"), Field: "values.text:"},
		{Name: "text too long", Body: v("text", `"`+strings.Repeat("é", 257)+`"`), Field: "values.text:"},
		{Name: "number string", Body: v("num", `"5"`), Field: "values.num:"},
		{Name: "number bool", Body: v("num", "false"), Field: "values.num:"},
		{Name: "number too big", Body: v("num", "1e400"), Field: "values.num:"},
		{Name: "boolean string", Body: v("flag", `"true"`), Field: "values.flag:"},
		{Name: "boolean number", Body: v("flag", "1"), Field: "values.flag:"},
		{Name: "select unknown option", Body: v("tier", `"team"`), Field: "values.tier:"},
		{Name: "select array", Body: v("tier", `["pro"]`), Field: "values.tier:"},
		{Name: "multi-select string", Body: v("tags", `"a"`), Field: "values.tags:"},
		{Name: "multi-select unknown option", Body: v("tags", `["a","z"]`), Field: "values.tags:"},
		{Name: "multi-select duplicate", Body: v("tags", `["a","a"]`), Field: "values.tags:"},
		{Name: "multi-select not strings", Body: v("tags", `[1]`), Field: "values.tags:"},
		{Name: "unknown field", Body: v("nope", `"x"`), Field: "values.nope:"},
		{Name: "other organization's field", Body: v("secret", `"x"`), Field: "values.secret:"},
		{Name: "item not an object", Body: `{"values":{"text":"x"}}`, Field: "values.text:"},
		{Name: "one bad among good", Body: `{"values":{"text":{"value":"changed"},"num":{"value":1},"tier":{"value":"gold"}}}`, Field: "values.tier:"},
		{Name: "values missing", Body: `{}`, Field: "values:"},
		{Name: "values null", Body: `{"values":null}`, Field: "values:"},
		{Name: "values array", Body: `{"values":[]}`, Field: "values:"},
		{Name: "no body"},
	}
	for i := range rows {
		rows[i].User, rows[i].Method, rows[i].Path, rows[i].Want = "editor", "PATCH", path, 400
	}
	e.api.Run(e.t, as, rows)
	if diff := cmp.Diff(before, e.values("reader", "s1", names...)); diff != "" {
		t.Errorf("refused patches wrote values (-before +after):\n%s", diff)
	}
}

func TestSpaceValuesAccess(t *testing.T) {
	e := newEnv(t)
	e.define(`{"name":"text","type":"text"}`)
	body := `{"values":{"text":{"value":"x"}}}`
	e.api.Run(e.t, as, []row{
		{Name: "reader reads", User: "reader", Method: "GET", Path: "/v1/spaces/s1/custom-fields", Want: 200},
		{Name: "reader cannot write", User: "reader", Method: "PATCH", Path: "/v1/spaces/s1/custom-fields", Body: body, Want: 403},
		{Name: "guest cannot read", User: "guest", Method: "GET", Path: "/v1/spaces/s1/custom-fields", Want: 404},
		{Name: "non-member cannot read", User: "other", Method: "GET", Path: "/v1/spaces/s1/custom-fields", Want: 404},
		{Name: "non-member cannot write", User: "other", Method: "PATCH", Path: "/v1/spaces/s1/custom-fields", Body: body, Want: 404},
		{Name: "deleted space", User: "admin", Method: "GET", Path: "/v1/spaces/deleted/custom-fields", Want: 409},
		{Name: "locked space still takes values", User: "editor", Method: "PATCH", Path: "/v1/spaces/locked/custom-fields", Body: body, Want: 204},
		{Name: "unknown space", User: "admin", Method: "GET", Path: "/v1/spaces/nope/custom-fields", Want: 404},
	})
	if got := e.values("reader", "locked", "text"); got["text"] != `"x"` {
		t.Errorf("locked space values %v", got)
	}
	// A space of another organization shows that organization's definitions only.
	e.must(201, "other", "POST", "/v1/orgs/o2/custom-fields", `{"name":"secret","type":"text"}`)
	if got := e.values("other", "s-o2", "secret"); len(got) != 1 {
		t.Errorf("o2 space values %v", got)
	}
}

func TestDeleteFieldHidesValues(t *testing.T) {
	e := newEnv(t)
	e.define(`{"name":"text","type":"text"}`)
	e.define(`{"name":"tier","type":"select","options":["free","pro"]}`)
	e.must(204, "editor", "PATCH", "/v1/spaces/s1/custom-fields", `{"values":{"text":{"value":"x"},"tier":{"value":"pro"}}}`)
	e.must(204, "editor", "PATCH", "/v1/spaces/s2/custom-fields", `{"values":{"tier":{"value":"free"}}}`)

	e.must(204, "admin", "DELETE", "/v1/orgs/o1/custom-fields/tier", "")
	if got := e.values("reader", "s1", "text"); got["text"] != `"x"` {
		t.Errorf("values after delete %v", got)
	}
	// The values are gone from storage too, not only hidden.
	for _, space := range []string{"s1", "s2"} {
		var doc struct {
			Values bson.M `bson:"values"`
		}
		if err := e.db.Collection(customfieldmongo.SpaceValues).FindOne(context.Background(), bson.M{"_id": space}).Decode(&doc); err != nil {
			t.Fatal(err)
		}
		if _, ok := doc.Values["tier"]; ok {
			t.Errorf("space %s still stores a value of the deleted field: %v", space, doc.Values)
		}
	}
	// A new field of the same name starts without values.
	e.define(`{"name":"tier","type":"select","options":["free","pro"]}`)
	for _, space := range []string{"s1", "s2"} {
		if got := e.values("reader", space, "text", "tier"); got["tier"] != "" {
			t.Errorf("space %s: recreated field has value %s", space, got["tier"])
		}
	}
	// Removing an option hides the values that chose it.
	e.must(204, "editor", "PATCH", "/v1/spaces/s1/custom-fields", `{"values":{"tier":{"value":"pro"}}}`)
	e.must(200, "admin", "PATCH", "/v1/orgs/o1/custom-fields/tier", `{"options":["free"]}`)
	if got := e.values("reader", "s1", "text", "tier"); got["tier"] != "" {
		t.Errorf("value of a removed option shows: %s", got["tier"])
	}
}

func TestCopyValues(t *testing.T) {
	e := newEnv(t)
	e.define(`{"name":"text","type":"text"}`)
	e.define(`{"name":"tags","type":"multi-select","options":["a","b"]}`)
	e.must(204, "editor", "PATCH", "/v1/spaces/s1/custom-fields", `{"values":{"text":{"value":"x"},"tags":{"value":["b"]}}}`)
	from := access.Grant{Organization: "o1", Space: "s1", Level: roles.Create}
	to := access.Grant{Organization: "o1", Space: "s2", Level: roles.Create}
	if err := e.svc.CopyValues(context.Background(), from, to); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"tags": `["b"]`, "text": `"x"`}
	if diff := cmp.Diff(want, e.values("reader", "s2", "tags", "text")); diff != "" {
		t.Errorf("copied values (-want +got):\n%s", diff)
	}
}
