package specbounds_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/docspub/platform/libs/specbounds"
)

// small are bounds that small documents reach.
var small = specbounds.Limits{YAMLTokens: 400, Nodes: 200, Depth: 8, Refs: 20, RefDepth: 5, RefWork: 40, Aliases: 3}

// chain is n schemas, each referring to the next.
func chain(n int) string {
	var b strings.Builder
	b.WriteString(`{"openapi":"3.0.3","components":{"schemas":{`)
	for i := range n {
		fmt.Fprintf(&b, `"S%d":{"properties":{"next":{"$ref":"#/components/schemas/S%d"}}},`, i, i+1)
	}
	fmt.Fprintf(&b, `"S%d":{"type":"string"}}}}`, n)
	return b.String()
}

// Each bound is reached by a document just over it, in JSON and in YAML,
// and named in the problem; a document within every bound has none.
func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name, doc, problem string
	}{
		{"within bounds, JSON", chain(3), ""},
		{"within bounds, YAML", "openapi: 3.0.3\ninfo:\n  title: a\n  version: '1'\npaths: {}\n", ""},
		{"nodes", `{"a":[` + strings.Repeat(`1,`, 250) + `1]}`, "more than 200 nodes"},
		{"depth", strings.Repeat(`{"a":`, 10) + `1` + strings.Repeat(`}`, 10), "deeper than 8"},
		{"depth, YAML", strings.Repeat("- ", 10) + "1\n", "deeper than 8"},
		{"refs", `{"a":[` + strings.Repeat(`{"$ref":"#/b"},`, 25) + `{"$ref":"#/b"}],"b":1}`, "more than 20 $refs"},
		{"a chain of $refs", chain(8), "chain of $refs is longer than 5"},
		{"aliases", "a: &x [1, 2]\nb: [*x, *x, *x, *x]\n", "more than 3 YAML aliases"},
		{"aliases expanded", "a: &a [" + strings.Repeat("1,", 59) + "1]\nb: [*a, *a, *a]\n", "aliases expanded"},
		{"YAML tokens", strings.Repeat("-\n", 500), "lines and indicators"},
		{"not YAML", "a: [", "not valid YAML or JSON"},
	} {
		_, _, problem := specbounds.Check([]byte(tc.doc), small)
		if tc.problem == "" && problem != "" || !strings.Contains(problem, tc.problem) {
			t.Errorf("%s: problem %q, want one containing %q", tc.name, problem, tc.problem)
		}
	}
}
