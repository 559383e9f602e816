package openapi

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/services/integrations/internal/limits"
)

// RefChainJSON is issue 19's slow spec: n component schemas, each
// referring to the next one, in JSON (about 80 bytes per link: 40,000
// links make 3 MB).
func RefChainJSON(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"openapi":"3.0.3","info":{"title":"Chain","version":"1"},"paths":{"/x":{"get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/S0"}}}}}}}},"components":{"schemas":{`)
	for i := range n {
		fmt.Fprintf(&b, `"S%d":{"type":"object","properties":{"next":{"$ref":"#/components/schemas/S%d"}}},`, i, i+1)
	}
	fmt.Fprintf(&b, `"S%d":{"type":"string"}}}}`, n)
	return []byte(b.String())
}

// refChainYAML is RefChainJSON in YAML.
func refChainYAML(n int) []byte {
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo:\n  title: Chain\n  version: \"1\"\npaths:\n  /x:\n    get:\n      responses:\n        200:\n          description: ok\n          content:\n            application/json:\n              schema:\n                $ref: '#/components/schemas/S0'\ncomponents:\n  schemas:\n")
	for i := range n {
		fmt.Fprintf(&b, "    S%d:\n      type: object\n      properties:\n        next:\n          $ref: '#/components/schemas/S%d'\n", i, i+1)
	}
	fmt.Fprintf(&b, "    S%d:\n      type: string\n", n)
	return []byte(b.String())
}

// fanIn is a short chain that many $refs start: the work of resolving
// each on its own is refs × depth.
func fanIn(depth, refs int) []byte {
	var b strings.Builder
	b.WriteString(`{"openapi":"3.0.3","info":{"title":"Fan","version":"1"},"paths":{`)
	for i := range refs {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"/p%d":{"get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/S0"}}}}}}}`, i)
	}
	b.WriteString(`},"components":{"schemas":{`)
	for i := range depth {
		fmt.Fprintf(&b, `"S%d":{"type":"object","properties":{"next":{"$ref":"#/components/schemas/S%d"}}},`, i, i+1)
	}
	fmt.Fprintf(&b, `"S%d":{"type":"string"}}}}`, depth)
	return []byte(b.String())
}

func TestBounds(t *testing.T) {
	t.Parallel()
	nested := strings.Repeat(`{"a":`, limits.SpecDepth+1) + "1" + strings.Repeat("}", limits.SpecDepth+1)
	wide := `{"openapi":"3.0.0","x":[` + strings.TrimSuffix(strings.Repeat("1,", limits.SpecNodes), ",") + `]}`
	aliases := "openapi: 3.0.0\nx: &a [1]\ny:\n" + strings.Repeat("  - *a\n", limits.SpecAliases+1)
	for _, tc := range []struct {
		name    string
		doc     []byte
		problem string // a part of the problem; "" for none
	}{
		{"a small spec", []byte(`{"openapi":"3.1.0","info":{"title":"T","version":"1"},"paths":{}}`), ""},
		{"a short chain", RefChainJSON(limits.RefDepth - 2), ""},
		{"a short chain in YAML", refChainYAML(limits.RefDepth - 2), ""},
		{"a cycle", []byte(`{"components":{"schemas":{"A":{"$ref":"#/components/schemas/B"},"B":{"items":{"$ref":"#/components/schemas/A"}}}}}`), ""},
		{"issue 19's chain", RefChainJSON(40_000), "chain of $refs is longer than 500"},
		{"issue 19's chain in YAML", refChainYAML(40_000), "chain of $refs is longer than 500"},
		{"a chain many refs start", fanIn(400, 12_000), "takes more than 4000000 steps"},
		{"deep nesting", []byte(nested), "nests deeper than 128"},
		{"too many nodes", []byte(wide), "more than 1000000 nodes"},
		{"too many refs", []byte(`{"x":[` + strings.TrimSuffix(strings.Repeat(`{"$ref":"#/x"},`, limits.SpecRefs+1), ",") + `]}`), "more than 100000 $refs"},
		{"too many aliases", []byte(aliases), "more than 1000 YAML aliases"},
		{"not YAML", []byte("a: [b\n"), "not valid YAML or JSON"},
		{"aliases of a large anchor", aliasBomb(2000, 600), "its aliases expanded"},
		{"32 MiB of YAML", []byte("x: [" + strings.Repeat("a,", 16<<20) + "a]\n"), "more than 2000000 lines and indicators"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			m, problem := Bounds(tc.doc)
			took := time.Since(start)
			if tc.problem == "" && problem != "" || !strings.Contains(problem, tc.problem) {
				t.Fatalf("Bounds() problem %q, want %q (measure %+v)", problem, tc.problem, m)
			}
			if took > 5*time.Second {
				t.Errorf("Bounds() took %s for %d bytes", took, len(tc.doc))
			}
		})
	}
}

// TestBoundsMeasure: what the pre-pass measures, JSON and YAML alike.
func TestBoundsMeasure(t *testing.T) {
	t.Parallel()
	for name, doc := range map[string][]byte{"json": RefChainJSON(10), "yaml": refChainYAML(10)} {
		m, problem := Bounds(doc)
		if problem != "" {
			t.Fatalf("%s: %s", name, problem)
		}
		if m.Refs != 11 || m.RefDepth != 11 || m.RefWork != 11+10+9+8+7+6+5+4+3+2+1 {
			t.Errorf("%s: measure %+v, want 11 refs along a chain of 11", name, m)
		}
	}
}

// TestRenderJSON: YAML renders as the JSON it means, keys in order,
// integer keys as strings, aliases expanded.
func TestRenderJSON(t *testing.T) {
	t.Parallel()
	src := []byte("openapi: 3.0.3\ninfo: {title: \"T\", version: 1.0}\nx: &a\n  n: 0x10\n  f: 1.5\n  b: yes\n  t: true\n  z: ~\ny: *a\npaths:\n  /p:\n    get:\n      responses:\n        200: {description: ok}\n")
	_, doc, problem := bound(src)
	if problem != "" {
		t.Fatal(problem)
	}
	got, err := renderJSON(src, doc)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"openapi":"3.0.3","info":{"title":"T","version":1},"x":{"n":16,"f":1.5,"b":"yes","t":true,"z":null},"y":{"n":16,"f":1.5,"b":"yes","t":true,"z":null},"paths":{"/p":{"get":{"responses":{"200":{"description":"ok"}}}}}}`
	if string(got) != want {
		t.Fatalf("renderJSON()\n got %s\nwant %s", got, want)
	}
	if !json.Valid(got) {
		t.Fatal("not valid JSON")
	}
	js := []byte(`{"a": 1}`)
	if got, _ := renderJSON(js, nil); string(got) != string(js) {
		t.Fatalf("JSON is rendered as %s", got)
	}
}

// BenchmarkRefChain3MB is issue 19's slow spec (a 3 MB $ref chain of
// 40,000 links) through Parse: the pre-pass refuses it before libopenapi
// (which did not finish it in 10 minutes).
func BenchmarkRefChain3MB(b *testing.B) {
	doc := RefChainJSON(40_000)
	b.ReportAllocs()
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if p := Parse(doc); !strings.Contains(p, "chain of $refs") {
			b.Fatal(p)
		}
	}
}

// BenchmarkRefChain3MBYAML is BenchmarkRefChain3MB in YAML.
func BenchmarkRefChain3MBYAML(b *testing.B) {
	doc := refChainYAML(30_000)
	b.ReportAllocs()
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if p := Parse(doc); !strings.Contains(p, "chain of $refs") {
			b.Fatal(p)
		}
	}
}

// aliasBomb is a spec whose paths all alias one large schema (the library
// expands every alias: 1,000 of a 20,000-property schema took 8 s).
func aliasBomb(props, aliases int) []byte {
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo:\n  title: A\n  version: \"1\"\ncomponents:\n  schemas:\n    Big: &big\n      type: object\n      properties:\n")
	for i := range props {
		fmt.Fprintf(&b, "        f%d: {type: string}\n", i)
	}
	b.WriteString("paths:\n")
	for i := range aliases {
		fmt.Fprintf(&b, "  /p%d:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: *big\n", i)
	}
	return []byte(b.String())
}
