package site

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/contracttest"
	"github.com/docspub/platform/services/sites/internal/limits"
	"github.com/google/go-cmp/cmp"
)

func TestValidateAdaptiveSchema(t *testing.T) {
	t.Parallel()
	const unsigned = `"unsigned":{"type":"object","properties":{"beta":{"type":"boolean","description":"Beta tester"}},"additionalProperties":false}`
	for _, tc := range []struct {
		name      string
		schema    string
		wantField string // "" when valid; else the field the 400 names
	}{
		{"default schema", DefaultAdaptiveSchema, ""},
		{"boolean unsigned claim", `{"type":"object","properties":{` + unsigned + `},"additionalProperties":false}`, ""},
		{"claim without description", `{"type":"object","properties":{"unsigned":{"type":"object","properties":{"beta":{"type":"boolean"}},"additionalProperties":false}},"additionalProperties":false}`, ""},
		{"group of claims beside unsigned", `{"type":"object","properties":{` + unsigned + `,"plan":{"type":"object","properties":{"pro":{"type":"boolean"}},"additionalProperties":false}},"additionalProperties":false}`, ""},
		{"as many properties as the limit", withClaims(limits.AdaptiveSchemaProperties - 1), ""},
		{"claims in groups nested to the depth limit", nestedGroups(limits.AdaptiveSchemaDepth), ""},
		{"top-level boolean claim", `{"type":"object","properties":{` + unsigned + `,"staff":{"type":"boolean"}},"additionalProperties":false}`, ""},
		{"draft-07 $schema given", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{` + unsigned + `},"additionalProperties":false}`, ""},

		{"missing", ``, "jsonSchema"},
		{"null", `null`, "jsonSchema"},
		{"not an object", `[1]`, "jsonSchema"},
		{"another draft", `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{` + unsigned + `},"additionalProperties":false}`, "jsonSchema.$schema"},
		{"not draft-07 valid: type is a number", `{"type":5,"properties":{` + unsigned + `},"additionalProperties":false}`, "jsonSchema"},
		{"not draft-07 valid: properties is an array", `{"type":"object","properties":[],"additionalProperties":false}`, "jsonSchema"},
		{"remote $ref", `{"type":"object","properties":{"unsigned":{"$ref":"https://example.com/s.json"}},"additionalProperties":false}`, "jsonSchema"},
		{"root not an object type", `{"type":"array","properties":{` + unsigned + `},"additionalProperties":false}`, "jsonSchema.type"},
		{"additionalProperties true", `{"type":"object","properties":{` + unsigned + `},"additionalProperties":true}`, "jsonSchema.additionalProperties"},
		{"additionalProperties missing", `{"type":"object","properties":{` + unsigned + `}}`, "jsonSchema.additionalProperties"},
		{"missing unsigned", `{"type":"object","properties":{"beta":{"type":"boolean"}},"additionalProperties":false}`, "jsonSchema.properties.unsigned"},
		{"no properties", `{"type":"object","additionalProperties":false}`, "jsonSchema.properties"},
		{"unsigned allows more", `{"type":"object","properties":{"unsigned":{"type":"object","properties":{},"additionalProperties":true}},"additionalProperties":false}`, "jsonSchema.properties.unsigned.additionalProperties"},
		{"non-boolean unsigned claim", `{"type":"object","properties":{"unsigned":{"type":"object","properties":{"role":{"type":"string"}},"additionalProperties":false}},"additionalProperties":false}`, "jsonSchema.properties.unsigned.properties.role.type"},
		{"non-boolean claim in a group", `{"type":"object","properties":{` + unsigned + `,"plan":{"type":"object","properties":{"seats":{"type":"number"}},"additionalProperties":false}},"additionalProperties":false}`, "jsonSchema.properties.plan.properties.seats.type"},
		{"group allows more", `{"type":"object","properties":{` + unsigned + `,"plan":{"type":"object","properties":{},"additionalProperties":true}},"additionalProperties":false}`, "jsonSchema.properties.plan.additionalProperties"},
		{"extra keyword on a claim", `{"type":"object","properties":{"unsigned":{"type":"object","properties":{"beta":{"type":"boolean","default":true}},"additionalProperties":false}},"additionalProperties":false}`, "jsonSchema.properties.unsigned.properties.beta.default"},
		{"extra root keyword", `{"type":"object","properties":{` + unsigned + `},"additionalProperties":false,"required":["unsigned"]}`, "jsonSchema.required"},
		{"nested deeper than the limit", nested(limits.AdaptiveSchemaDepth + 1), "jsonSchema"},
		{"groups nested deeper than the limit", nestedGroups(limits.AdaptiveSchemaDepth + 2), "jsonSchema"},
		{"nested 1000 deep", nested(1000), "jsonSchema"},
		{"more properties than the limit", withClaims(limits.AdaptiveSchemaProperties), "jsonSchema"},
		{"more members than the limit", definitions(limits.AdaptiveSchemaMembers), "jsonSchema"},
		{"arrays count in the depth", `{"type":"object","properties":{` + unsigned + `},"additionalProperties":false,"enum":[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]}`, "jsonSchema"},
		{"other unsigned description", `{"type":"object","properties":{"unsigned":{"type":"object","description":"x","properties":{},"additionalProperties":false}},"additionalProperties":false}`, "jsonSchema.properties.unsigned.description"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ValidateAdaptiveSchema(json.RawMessage(tc.schema))
			if tc.wantField == "" {
				if err != nil {
					t.Fatalf("ValidateAdaptiveSchema(%.200s) = %v, want it accepted", tc.schema, err)
				}
				// The normalized schema is what the API returns: it matches the contract.
				body, _ := json.Marshal(map[string]any{"object": "site-adaptive-schema", "jsonSchema": got, "updatedAt": "2025-01-01T00:00:00Z"})
				if err := contracttest.Check("SiteAdaptiveSchema", body); err != nil {
					t.Error(err)
				}
				return
			}
			var e *apierr.Error
			if !errors.As(err, &e) || e.Status != 400 {
				t.Fatalf("ValidateAdaptiveSchema(%.200s) = %v, want a 400", tc.schema, err)
			}
			if !strings.HasPrefix(e.Message, tc.wantField+":") {
				t.Errorf("message %q does not name %s first", e.Message, tc.wantField)
			}
		})
	}
}

func TestValidateAdaptiveSchemaNormalizes(t *testing.T) {
	t.Parallel()
	got, err := ValidateAdaptiveSchema(json.RawMessage(`{"type":"object","properties":{"unsigned":{"type":"object","properties":{"beta":{"type":"boolean"}},"additionalProperties":false}},"additionalProperties":false}`))
	if err != nil {
		t.Fatal(err)
	}
	var gotV, wantV any
	_ = json.Unmarshal(got, &gotV)
	_ = json.Unmarshal([]byte(`{"$schema":"`+Draft07+`","type":"object","properties":{"unsigned":{"type":"object","description":"`+UnsignedDescription+`","properties":{"beta":{"type":"boolean","description":""}},"additionalProperties":false}},"additionalProperties":false}`), &wantV)
	if diff := cmp.Diff(gotV, wantV); diff != "" {
		t.Errorf("normalized (-got +want):\n%s", diff)
	}
}

func TestSlugAndFreePath(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		title    string
		siblings []string
		want     string
	}{
		{"Getting Started", nil, "getting-started"},
		{"  API / Reference v2 ", nil, "api-reference-v2"},
		{"Über Docs", nil, "über-docs"},
		{"!!!", nil, "space"},
		{"Guide", []string{"guide"}, "guide-2"},
		{"Guide", []string{"guide", "guide-2"}, "guide-3"},
		{strings.Repeat("a", 150), nil, strings.Repeat("a", limits.SiteSpacePath-4)},
	} {
		var sibs []SiteSpace
		for _, p := range tc.siblings {
			sibs = append(sibs, SiteSpace{Path: p})
		}
		if got := freePath(slug(tc.title), sibs); got != tc.want {
			t.Errorf("freePath(slug(%q), %v) = %q, want %q", tc.title, tc.siblings, got, tc.want)
		}
	}
}

func TestDefaultCustomizationMatchesContract(t *testing.T) {
	t.Parallel()
	body, err := json.Marshal(defaultCustomization("My docs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := contracttest.Check("SiteCustomizationSettings", body); err != nil {
		t.Error(err)
	}
}

// nested is a valid draft-07 schema nested depth levels deep: root, then a
// chain of "not" schemas.
func nested(depth int) string {
	return `{"type":"object","properties":{"unsigned":{"type":"object","properties":{},"additionalProperties":false}},` +
		`"additionalProperties":false,"definitions":` + strings.Repeat(`{"not":`, depth-2) + `{}` + strings.Repeat(`}`, depth-2) + `}`
}

// nestedGroups is a schema whose claim sits in groups of groups, the JSON
// depth levels deep (root, properties, unsigned, properties, then two
// levels per group).
func nestedGroups(depth int) string {
	inner := `{"type":"boolean"}`
	for d := 5; d+2 <= depth; d += 2 {
		inner = `{"type":"object","properties":{"g":` + inner + `},"additionalProperties":false}`
	}
	return `{"type":"object","properties":{"unsigned":{"type":"object","properties":{"c":` + inner + `},"additionalProperties":false}},"additionalProperties":false}`
}

// definitions is a schema with n empty definitions (members that are not
// properties) beside its claims.
func definitions(n int) string {
	defs := make([]string, n)
	for i := range defs {
		defs[i] = fmt.Sprintf(`"d%d":{}`, i)
	}
	return `{"type":"object","properties":{"unsigned":{"type":"object","properties":{},"additionalProperties":false}},` +
		`"additionalProperties":false,"definitions":{` + strings.Join(defs, ",") + `}}`
}

// withClaims is a schema with n boolean claims under unsigned (n+1
// properties with unsigned itself).
func withClaims(n int) string {
	claims := make([]string, n)
	for i := range claims {
		claims[i] = fmt.Sprintf(`"c%d":{"type":"boolean"}`, i)
	}
	return `{"type":"object","properties":{"unsigned":{"type":"object","properties":{` + strings.Join(claims, ",") +
		`},"additionalProperties":false}},"additionalProperties":false}`
}

// TestAdaptiveSchemaSize: a schema over the byte limit is a 413 however it
// is made; a '<'-heavy schema under it is stored with one byte per '<'.
func TestAdaptiveSchemaSize(t *testing.T) {
	t.Parallel()
	big := `{"type":"object","properties":{"unsigned":{"type":"object","description":"` + UnsignedDescription +
		`","properties":{"c":{"type":"boolean","description":"` + strings.Repeat("<", limits.AdaptiveSchemaBytes) + `"}},"additionalProperties":false}},"additionalProperties":false}`
	var e *apierr.Error
	if _, err := ValidateAdaptiveSchema(json.RawMessage(big)); !errors.As(err, &e) || e.Status != 413 || !strings.HasPrefix(e.Message, "jsonSchema:") {
		t.Errorf("a schema of %d bytes: %v, want a 413 naming jsonSchema", len(big), err)
	}
	lt := strings.Repeat("<", limits.AdaptiveSchemaBytes/2)
	got, err := ValidateAdaptiveSchema(json.RawMessage(`{"type":"object","properties":{"unsigned":{"type":"object","properties":{"c":{"type":"boolean","description":"` +
		lt + `"}},"additionalProperties":false}},"additionalProperties":false}`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), lt) || len(got) > limits.AdaptiveSchemaBytes {
		t.Errorf("stored schema of %d bytes escapes '<' or outgrows the limit", len(got))
	}
}

// TestAdaptiveSchemaBoundedCost: what used to take seconds to compile is
// refused before compiling, in well under a millisecond per kilobyte.
func TestAdaptiveSchemaBoundedCost(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		schema string
	}{
		{"nested 1000 deep", nested(1000)},
		{"198 KB of claims", withClaims(198 << 10 / 28)},
		{"160 KB of '<'", `{"type":"object","properties":{"unsigned":{"type":"object","properties":{},"additionalProperties":false}},"description":"` + strings.Repeat("<", 160<<10) + `"}`},
	} {
		start := time.Now()
		_, err := ValidateAdaptiveSchema(json.RawMessage(tc.schema))
		took := time.Since(start)
		var e *apierr.Error
		if !errors.As(err, &e) || e.Status < 400 || e.Status >= 500 {
			t.Errorf("%s: %v, want a 4xx", tc.name, err)
		}
		if took > 50*time.Millisecond {
			t.Errorf("%s: refused after %s", tc.name, took)
		}
		t.Logf("%s (%d bytes): %d after %s", tc.name, len(tc.schema), e.Status, took)
	}
}

// BenchmarkValidateAdaptiveSchema: the largest schema the limits accept is
// checked and compiled in a bounded time; the abusive ones of issue 13 are
// refused before anything compiles them.
//
//	go test -run '^$' -bench ValidateAdaptiveSchema ./services/sites/internal/site/
func BenchmarkValidateAdaptiveSchema(b *testing.B) {
	for _, tc := range []struct {
		name, schema string
	}{
		{"largest accepted (255 claims)", withClaims(limits.AdaptiveSchemaProperties - 1)},
		{"deepest accepted", nestedGroups(limits.AdaptiveSchemaDepth)},
		{"most definitions that compile", definitions(limits.AdaptiveSchemaMembers - 10)},
		{"nested 1000 deep", nested(1000)},
		{"198 KB", withClaims(198 << 10 / 28)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			raw := json.RawMessage(tc.schema)
			b.SetBytes(int64(len(raw)))
			for range b.N {
				_, _ = ValidateAdaptiveSchema(raw)
			}
		})
	}
}
