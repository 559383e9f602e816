package customfield

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/docspub/platform/libs/nullable"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/content/internal/links"
	"github.com/google/go-cmp/cmp"
)

// checkField fails unless err is nil when field is "", or a problem whose
// message starts with field otherwise.
func checkField(t *testing.T, err error, field string) {
	t.Helper()
	switch {
	case field == "" && err != nil:
		t.Errorf("unexpected error: %v", err)
	case field != "" && err == nil:
		t.Errorf("no error, want a problem with %s", field)
	case field != "" && !strings.HasPrefix(err.Error(), field+":"):
		t.Errorf("error %q, want a problem with %s", err, field)
	}
}

func options(n int) nullable.Field[[]string] {
	o := make([]string, n)
	for i := range o {
		o[i] = strings.Repeat("o", i+1)
	}
	return nullable.Of(o)
}

func TestNewFieldValidate(t *testing.T) {
	t.Parallel()
	x := strings.Repeat
	for _, tc := range []struct {
		name  string
		in    NewField
		field string // "" = valid
	}{
		{"text", NewField{Name: "audience", Type: "text"}, ""},
		{"every limit reached", NewField{Name: x("a", 50), Type: "select", Title: x("é", 100), Description: x("é", 200),
			Placeholder: x("é", 100), Options: nullable.Of([]string{x("é", 100)})}, ""},
		{"name missing", NewField{Type: "text"}, "name"},
		{"name too long", NewField{Name: x("a", 51), Type: "text"}, "name"},
		{"name upper case", NewField{Name: "Audience", Type: "text"}, "name"},
		{"name with dot", NewField{Name: "a.b", Type: "text"}, "name"},
		{"name with space", NewField{Name: "a b", Type: "text"}, "name"},
		{"name digits dash underscore", NewField{Name: "0-_9", Type: "text"}, ""},
		{"type missing", NewField{Name: "a"}, "type"},
		{"type unknown", NewField{Name: "a", Type: "date"}, "type"},
		{"title too long", NewField{Name: "a", Type: "text", Title: x("a", 101)}, "title"},
		{"description too long", NewField{Name: "a", Type: "text", Description: x("a", 201)}, "description"},
		{"placeholder too long", NewField{Name: "a", Type: "text", Placeholder: x("a", 101)}, "placeholder"},
		{"select without options", NewField{Name: "a", Type: "select"}, "options"},
		{"multi-select null options", NewField{Name: "a", Type: "multi-select", Options: nullable.Field[[]string]{Set: true, Null: true}}, "options"},
		{"no options", NewField{Name: "a", Type: "select", Options: nullable.Of([]string{})}, "options"},
		{"50 options", NewField{Name: "a", Type: "select", Options: options(50)}, ""},
		{"51 options", NewField{Name: "a", Type: "select", Options: options(51)}, "options"},
		{"empty option", NewField{Name: "a", Type: "select", Options: nullable.Of([]string{"x", ""})}, "options[1]"},
		{"option too long", NewField{Name: "a", Type: "select", Options: nullable.Of([]string{x("a", 101)})}, "options[0]"},
		{"duplicate option", NewField{Name: "a", Type: "multi-select", Options: nullable.Of([]string{"x", "y", "x"})}, "options[2]"},
		{"options on text", NewField{Name: "a", Type: "text", Options: nullable.Of([]string{"x"})}, "options"},
		{"empty options on boolean", NewField{Name: "a", Type: "boolean", Options: nullable.Of([]string{})}, "options"},
		{"null options on number", NewField{Name: "a", Type: "number", Options: nullable.Field[[]string]{Set: true, Null: true}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			checkField(t, tc.in.validate(), tc.field)
		})
	}
}

func TestPatchApply(t *testing.T) {
	t.Parallel()
	text := Field{Name: "audience", Type: Text, Title: "Audience", Description: "Who reads it"}
	sel := Field{Name: "tier", Type: Select, Options: []string{"a", "b"}}
	null := nullable.Field[string]{Set: true, Null: true}
	for _, tc := range []struct {
		name    string
		field   Field
		patch   Patch
		want    Field
		changed bool
		problem string // "" = valid
	}{
		{"nothing", text, Patch{}, text, false, ""},
		{"same title", text, Patch{Title: nullable.Of("Audience")}, text, false, ""},
		{"title", text, Patch{Title: nullable.Of("Readers")}, Field{Name: "audience", Type: Text, Title: "Readers", Description: "Who reads it"}, true, ""},
		{"null description clears", text, Patch{Description: null}, Field{Name: "audience", Type: Text, Title: "Audience"}, true, ""},
		{"placeholder", text, Patch{Placeholder: nullable.Of("e.g. devs")}, Field{Name: "audience", Type: Text, Title: "Audience", Description: "Who reads it", Placeholder: "e.g. devs"}, true, ""},
		{"title too long", text, Patch{Title: nullable.Of(strings.Repeat("a", 101))}, Field{}, false, "title"},
		{"description too long", text, Patch{Description: nullable.Of(strings.Repeat("a", 201))}, Field{}, false, "description"},
		{"placeholder too long", text, Patch{Placeholder: nullable.Of(strings.Repeat("a", 101))}, Field{}, false, "placeholder"},
		{"same name", text, Patch{Name: nullable.Of("audience")}, text, false, ""},
		{"rename", text, Patch{Name: nullable.Of("readers")}, Field{}, false, "name"},
		{"retype", text, Patch{Type: nullable.Of("number")}, Field{}, false, "type"},
		{"options on text", text, Patch{Options: nullable.Of([]string{"a"})}, Field{}, false, "options"},
		{"null options on text", text, Patch{Options: nullable.Field[[]string]{Set: true, Null: true}}, text, false, ""},
		{"options", sel, Patch{Options: nullable.Of([]string{"b", "c"})}, Field{Name: "tier", Type: Select, Options: []string{"b", "c"}}, true, ""},
		{"same options", sel, Patch{Options: nullable.Of([]string{"a", "b"})}, sel, false, ""},
		{"null options on select", sel, Patch{Options: nullable.Field[[]string]{Set: true, Null: true}}, Field{}, false, "options"},
		{"no options", sel, Patch{Options: nullable.Of([]string{})}, Field{}, false, "options"},
		{"51 options", sel, Patch{Options: options(51)}, Field{}, false, "options"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := tc.field
			f.Options = append([]string(nil), tc.field.Options...)
			if len(f.Options) == 0 {
				f.Options = nil
			}
			changed, err := tc.patch.apply(&f)
			checkField(t, err, tc.problem)
			if tc.problem != "" {
				return
			}
			if changed != tc.changed {
				t.Errorf("changed = %v, want %v", changed, tc.changed)
			}
			if diff := cmp.Diff(tc.want, f); diff != "" {
				t.Errorf("field (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseValue(t *testing.T) {
	t.Parallel()
	fields := map[Type]Field{
		Text:        {Type: Text},
		Number:      {Type: Number},
		Boolean:     {Type: Boolean},
		Select:      {Type: Select, Options: []string{"free", "pro"}},
		MultiSelect: {Type: MultiSelect, Options: []string{"a", "b", "c"}},
	}
	for _, tc := range []struct {
		name  string
		typ   Type
		raw   string
		want  any
		valid bool
	}{
		{"absent clears", Text, ``, nil, true},
		{"null clears", Number, `null`, nil, true},
		{"text", Text, `"hello"`, "hello", true},
		{"text empty", Text, `""`, "", true},
		{"text 256 characters", Text, `"` + strings.Repeat("é", 256) + `"`, strings.Repeat("é", 256), true},
		{"text 257 characters", Text, `"` + strings.Repeat("é", 257) + `"`, nil, false},
		{"text number", Text, `5`, nil, false},
		{"text array", Text, `["a"]`, nil, false},
		{"number", Number, `-2.5`, -2.5, true},
		{"number integer", Number, `42`, 42.0, true},
		{"number exponent", Number, `1e3`, 1000.0, true},
		{"number out of range", Number, `1e400`, nil, false},
		{"number string", Number, `"5"`, nil, false},
		{"number bool", Number, `true`, nil, false},
		{"boolean true", Boolean, `true`, true, true},
		{"boolean false", Boolean, `false`, false, true},
		{"boolean string", Boolean, `"true"`, nil, false},
		{"boolean number", Boolean, `0`, nil, false},
		{"select", Select, `"pro"`, "pro", true},
		{"select unknown", Select, `"gold"`, nil, false},
		{"select array", Select, `["pro"]`, nil, false},
		{"multi-select", MultiSelect, `["c","a"]`, []string{"c", "a"}, true},
		{"multi-select empty", MultiSelect, `[]`, []string{}, true},
		{"multi-select unknown", MultiSelect, `["a","z"]`, nil, false},
		{"multi-select duplicate", MultiSelect, `["a","a"]`, nil, false},
		{"multi-select null item", MultiSelect, `[null]`, nil, false},
		{"multi-select number item", MultiSelect, `[1]`, nil, false},
		{"multi-select string", MultiSelect, `"a"`, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := fields[tc.typ].Parse(json.RawMessage(tc.raw))
			if (err == nil) != tc.valid {
				t.Fatalf("Parse(%s) error %v, want valid %v", tc.raw, err, tc.valid)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Parse(%s) (-want +got):\n%s", tc.raw, diff)
			}
		})
	}
}

func TestValuesPatchParse(t *testing.T) {
	t.Parallel()
	defs := byName([]Field{
		{Name: "text", Type: Text},
		{Name: "tier", Type: Select, Options: []string{"free", "pro"}},
	})
	for _, tc := range []struct {
		name    string
		values  string
		want    Changes
		problem string // "" = valid
	}{
		{"set and clear", `{"text":{"value":"x"},"tier":{"value":null}}`, Changes{Set: Values{"text": "x"}, Clear: []string{"tier"}}, ""},
		{"empty item clears", `{"tier":{}}`, Changes{Set: Values{}, Clear: []string{"tier"}}, ""},
		{"nothing", `{}`, Changes{Set: Values{}}, ""},
		{"missing", ``, Changes{}, "values"},
		{"null", `null`, Changes{}, "values"},
		{"array", `[]`, Changes{}, "values"},
		{"string", `"x"`, Changes{}, "values"},
		{"item not an object", `{"text":"x"}`, Changes{}, "values.text"},
		{"item null", `{"text":null}`, Changes{}, "values.text"},
		{"unknown field", `{"nope":{"value":"x"}}`, Changes{}, "values.nope"},
		{"bad value", `{"tier":{"value":"gold"}}`, Changes{}, "values.tier"},
		{"first problem by name", `{"tier":{"value":1},"text":{"value":2}}`, Changes{}, "values.text"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ValuesPatch{Values: json.RawMessage(tc.values)}.parse(defs)
			checkField(t, err, tc.problem)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("changes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		field Field
		v     any
		want  any
		shows bool
	}{
		{"text", Field{Type: Text}, "x", "x", true},
		{"text holding a number", Field{Type: Text}, 1.0, "", false},
		{"number", Field{Type: Number}, 1.5, 1.5, true},
		{"boolean", Field{Type: Boolean}, false, false, true},
		{"select", Field{Type: Select, Options: []string{"a"}}, "a", "a", true},
		{"select removed option", Field{Type: Select, Options: []string{"a"}}, "b", "b", false},
		{"multi-select keeps offered options", Field{Type: MultiSelect, Options: []string{"a", "c"}}, []string{"c", "b", "a"}, []string{"c", "a"}, true},
		{"multi-select holding a string", Field{Type: MultiSelect, Options: []string{"a"}}, "a", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, shows := tc.field.Fit(tc.v)
			if shows != tc.shows {
				t.Fatalf("Fit(%v) shows %v, want %v", tc.v, shows, tc.shows)
			}
			if diff := cmp.Diff(tc.want, got); shows && diff != "" {
				t.Errorf("Fit(%v) (-want +got):\n%s", tc.v, diff)
			}
		})
	}
}

func TestRender(t *testing.T) {
	t.Parallel()
	f := Field{ID: "f1", Organization: "o1", Name: "tier", Type: Select, Options: []string{"a"}}
	u := links.New("http://gw.test/", "http://app.test")
	for _, tc := range []struct {
		level roles.Role
		want  Permissions
	}{
		{roles.Admin, Permissions{View: true, Edit: true}},
		{roles.Create, Permissions{View: true}},
		{roles.Read, Permissions{View: true}},
		{roles.Guest, Permissions{}},
	} {
		t.Run(string(tc.level), func(t *testing.T) {
			t.Parallel()
			v := Render(u, f, tc.level)
			if v.Permissions != tc.want {
				t.Errorf("permissions %+v, want %+v", v.Permissions, tc.want)
			}
			if want := "http://gw.test/v1/orgs/o1/custom-fields/tier"; v.URLs.Location != want {
				t.Errorf("location %q, want %q", v.URLs.Location, want)
			}
		})
	}
}
