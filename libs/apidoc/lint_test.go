package apidoc

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
)

// lint reports what the OpenAPI validator lets pass: a $ref that points
// nowhere (or outside the document), and a component that nothing reachable
// from the paths or the top-level security uses.
func lint(raw []byte) ([]string, error) {
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	var problems []string
	used := map[string]bool{}
	var walk func(v any, at string)
	seen := map[string]bool{}
	walk = func(v any, at string) {
		switch x := v.(type) {
		case map[string]any:
			if r, ok := x["$ref"].(string); ok {
				target, ok := resolve(doc, r)
				switch {
				case !ok:
					problems = append(problems, fmt.Sprintf("unresolved $ref %q at %s", r, at))
				case !seen[r]:
					seen[r] = true
					used[r] = true
					walk(target, r)
				}
			}
			for k, c := range x {
				walk(c, at+"/"+k)
			}
		case []any:
			for i, c := range x {
				walk(c, fmt.Sprintf("%s/%d", at, i))
			}
		}
	}
	walk(doc["paths"], "#/paths")
	comps, _ := doc["components"].(map[string]any)
	if sec, ok := doc["security"].([]any); ok {
		for _, req := range sec {
			for name := range req.(map[string]any) {
				used["#/components/securitySchemes/"+name] = true
			}
		}
	}
	for kind, all := range comps {
		for name := range all.(map[string]any) {
			p := "#/components/" + kind + "/" + name
			if !used[p] {
				problems = append(problems, "unused component "+p)
			}
		}
	}
	sort.Strings(problems)
	return problems, nil
}

// resolve finds an internal reference ("#/components/schemas/Space").
func resolve(doc map[string]any, ref string) (any, bool) {
	rest, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil, false
	}
	var cur any = doc
	for _, tok := range strings.Split(rest, "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[tok]; !ok {
			return nil, false
		}
	}
	return cur, true
}

func TestLintDocument(t *testing.T) {
	problems, err := lint(document)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

func TestLintFinds(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want []string
	}{
		{
			name: "clean",
			doc: `{"paths":{"/a":{"get":{"responses":{"200":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/A"}}}}}}}},
				"components":{"schemas":{"A":{"properties":{"b":{"$ref":"#/components/schemas/B"}}},"B":{}}}}`,
		},
		{
			name: "unresolved",
			doc:  `{"paths":{"/a":{"get":{"responses":{"200":{"$ref":"#/components/responses/Nope"}}}}},"components":{}}`,
			want: []string{`unresolved $ref "#/components/responses/Nope" at #/paths//a/get/responses/200`},
		},
		{
			name: "external",
			doc:  `{"paths":{"/a":{"get":{"responses":{"200":{"$ref":"other.json#/x"}}}}}}`,
			want: []string{`unresolved $ref "other.json#/x" at #/paths//a/get/responses/200`},
		},
		{
			name: "unused, also when only unused components use it",
			doc: `{"paths":{},"security":[{"bearer":[]}],
				"components":{"securitySchemes":{"bearer":{}},"schemas":{"A":{"$ref":"#/components/schemas/B"},"B":{}}}}`,
			want: []string{"unused component #/components/schemas/A", "unused component #/components/schemas/B"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := lint([]byte(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("lint = %q, want %q", got, tc.want)
			}
		})
	}
}
