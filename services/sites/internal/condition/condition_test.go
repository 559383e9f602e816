package condition_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/services/sites/internal/condition"
	"github.com/docspub/platform/services/sites/internal/limits"
	"github.com/expr-lang/expr/vm"
)

// issueRepro is issue 19's reproduction: accepted before, 17 s of CPU per view.
const issueRepro = `let r = 1..1000; visitor.claims.beta == true && all(r, {all(r, {all(r, {true})})})`

func TestCheck(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		cond     string
		wantText string // "" accepted; else in the message
	}{
		{name: "claim comparison", cond: `visitor.claims.unsigned.bucket == "beta"`},
		{name: "boolean claim", cond: `visitor.claims.isPro`},
		{name: "optional chain", cond: `visitor.claims?.group?.beta == true`},
		{name: "claim by quoted name", cond: `visitor.claims["beta tester"] == true`},
		{name: "and or not", cond: `(visitor.claims.a || visitor.claims.b) && !visitor.claims.c`},
		{name: "words", cond: `visitor.claims.a and not visitor.claims.b or visitor.claims.c`},
		{name: "in list", cond: `visitor.claims.plan in ["pro", "team"]`},
		{name: "not in list", cond: `visitor.claims.plan not in ["free"]`},
		{name: "negative numbers", cond: `visitor.claims.n in [-1, 2.5] || visitor.claims.n > -3`},
		{name: "literal true", cond: `true`},
		{name: "claims compared", cond: `visitor.claims.a == visitor.claims.b`},
		{name: "nil", cond: `visitor.claims.a != nil`},
		{name: "numbers compared", cond: `visitor.claims.seats >= 10`},
		{name: "JavaScript's strict comparisons", cond: `visitor.claims.a === true && visitor.claims.b !== "x"`},

		{name: "blank", cond: `   `, wantText: "must not be blank"},
		{name: "too long", cond: strings.Repeat("a", limits.Condition+1), wantText: "at most 1024"},
		{name: "the issue's reproduction", cond: issueRepro, wantText: "declares a variable"},
		{name: "range", cond: `visitor.claims.n in 1..10`, wantText: "range"},
		{name: "builtin all", cond: `all([1, 2], {# > 0})`, wantText: "calls all()"},
		{name: "builtin len", cond: `len(visitor.claims) > 0`, wantText: "calls len()"},
		{name: "function call", cond: `visitor.claims.f()`, wantText: "calls a function"},
		{name: "sequence", cond: `true; false`, wantText: "sequence"},
		{name: "ternary", cond: `visitor.claims.a ? true : false`, wantText: "conditional"},
		{name: "if", cond: `if visitor.claims.a { true } else { false }`, wantText: "conditional"},
		{name: "arithmetic", cond: `1 + 2 == 3`, wantText: "compares the result"},
		{name: "arithmetic at the top", cond: `1 + 2`, wantText: `operator "+"`},
		{name: "matches", cond: `visitor.claims.s matches "a+"`, wantText: `operator "matches"`},
		{name: "contains", cond: `visitor.claims.s contains "a"`, wantText: `operator "contains"`},
		{name: "nil coalescing", cond: `visitor.claims.a ?? true`, wantText: `operator "??"`},
		{name: "other variable", cond: `env.x == 1`, wantText: "reads env.x"},
		{name: "bare identifier", cond: `beta`, wantText: `names "beta"`},
		{name: "visitor without claims", cond: `visitor.id == "x"`, wantText: "reads visitor.id"},
		{name: "computed name", cond: `visitor.claims[visitor.claims.k] == true`, wantText: "computed name"},
		{name: "index of a list", cond: `[true][0]`, wantText: "computed name or index"},
		{name: "in over a claim", cond: `"a" in visitor.claims.list`, wantText: "list of literals"},
		{name: "list of claims", cond: `true in [visitor.claims.a]`, wantText: "not a literal"},
		{name: "map", cond: `{"a": 1}.a == 1`, wantText: "other than visitor.claims"},
		{name: "slice", cond: `visitor.claims.s[0:1] == "a"`, wantText: "slice"},
		{name: "list alone", cond: `[1, 2]`, wantText: "list outside of in"},
		{name: "too many nodes", cond: strings.Repeat("!", 600) + "true", wantText: "more than 512 nodes"},
		{name: "dangling operator", cond: `visitor.claims.a ==`, wantText: "does not compile"},
		{name: "unbalanced parenthesis", cond: `(visitor.claims.a`, wantText: "does not compile"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := condition.Check(tc.cond)
			if tc.wantText == "" {
				if err != nil {
					t.Fatalf("Check(%q) = %v, want accepted", tc.cond, err)
				}
				if _, err := condition.Compile(tc.cond); err != nil {
					t.Fatalf("Compile(%q) = %v", tc.cond, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Check(%q) accepted, want refused with %q", tc.cond, tc.wantText)
			}
			if !errors.Is(err, condition.ErrRefused) || !strings.Contains(err.Error(), tc.wantText) || strings.Contains(err.Error(), "\n") {
				t.Errorf("Check(%q) = %q, want one line containing %q", tc.cond, err, tc.wantText)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, cond, wantText string
	}{
		{"empty", "", "must not be empty"},
		{"not a boolean", `"yes"`, "does not compile"},
		{"the issue's reproduction", issueRepro, "conditions allow"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := condition.Validate("condition", tc.cond)
			if !errors.Is(err, apierr.ErrBadRequest) {
				t.Fatalf("Validate(%q) = %v, want a 400", tc.cond, err)
			}
			if msg := err.Error(); !strings.HasPrefix(msg, "condition: ") || !strings.Contains(msg, tc.wantText) {
				t.Errorf("message %q: want it to name condition and contain %q", msg, tc.wantText)
			}
		})
	}
	if err := condition.Validate("condition", `visitor.claims.beta == true`); err != nil {
		t.Errorf("a plain condition: %v", err)
	}
}

func TestMatch(t *testing.T) {
	t.Parallel()
	c := condition.NewCache(16, nil)
	env := func(claims map[string]any) map[string]any {
		return map[string]any{"visitor": map[string]any{"claims": claims}}
	}
	for _, tc := range []struct {
		name, cond string
		claims     map[string]any
		want       bool
	}{
		{"true claim", "visitor.claims.beta == true", map[string]any{"beta": true}, true},
		{"false claim", "visitor.claims.beta == true", map[string]any{"beta": false}, false},
		{"missing claim", "visitor.claims.beta == true", map[string]any{}, false},
		{"missing group", "visitor.claims.group.beta == true", map[string]any{}, false},
		{"missing group, chained", "visitor.claims.group?.beta == true", map[string]any{}, false},
		{"unsigned", "visitor.claims.unsigned.preview", map[string]any{"unsigned": map[string]any{"preview": true}}, true},
		{"in", `visitor.claims.plan in ["pro", "team"]`, map[string]any{"plan": "team"}, true},
		{"not", "!visitor.claims.beta", map[string]any{"beta": false}, true},
		{"no claims at all", "visitor.claims.beta", nil, false},
		{"does not compile", "visitor.claims.((", map[string]any{}, false},
		{"not a boolean", "1 + 2", map[string]any{}, false},
		{"too costly", "all(1..100000000, {# > 0})", map[string]any{}, false},
		{"the issue's reproduction", issueRepro, map[string]any{"beta": true}, false},
		{"nested loops", "all(1..1000, {all(1..1000, {all(1..1000, {true})})})", map[string]any{}, false},
		// GitBook's JavaScript: === and !==, and an undefined claim is falsy.
		{"strict equal", `visitor.claims.unsigned.plan === "pro"`, map[string]any{"unsigned": map[string]any{"plan": "pro"}}, true},
		{"strict not equal, missing claim", `visitor.claims.unsigned.persona !== "partner"`, map[string]any{}, true},
		{"strict not equal, same value", `visitor.claims.unsigned.persona !== "partner"`, map[string]any{"unsigned": map[string]any{"persona": "partner"}}, false},
		{"=== inside a string is text", `visitor.claims.s == "a===b"`, map[string]any{"s": "a===b"}, true},
		{"negated missing claim", "!visitor.claims.beta", map[string]any{}, true},
		{"negated missing claim, no claims at all", "!visitor.claims.beta", nil, true},
		{"negated missing group", "!visitor.claims.unsigned.bucket.beta", map[string]any{}, true},
		{"negated true claim", "!visitor.claims.beta", map[string]any{"beta": true}, false},
		{"missing claim in and", "!visitor.claims.a && !visitor.claims.b", map[string]any{}, true},
		{"missing claim in or", "visitor.claims.a || visitor.claims.b", map[string]any{"b": true}, true},
		{"words", "not visitor.claims.a and not visitor.claims.b", map[string]any{}, true},
		{"unknown syntax fails closed", "!visitor.claims.a ~~ true", map[string]any{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			if got := c.Match(tc.cond, env(tc.claims)); got != tc.want {
				t.Errorf("Match(%q) = %v, want %v", tc.cond, got, tc.want)
			}
			if took := time.Since(start); took > 200*time.Millisecond {
				t.Errorf("Match(%q) took %s", tc.cond, took)
			}
		})
	}
}

// TestLargestConditionIsCheap: the costliest conditions the checker
// accepts (limits.Condition characters, limits.ConditionNodes nodes)
// compile to forward-only programs that evaluate in microseconds.
func TestLargestConditionIsCheap(t *testing.T) {
	t.Parallel()
	ors := "visitor.claims.a0 == true"
	for i := 1; len(ors)+len(" || visitor.claims.a00 == true") <= limits.Condition; i++ {
		ors += " || visitor.claims.a" + string(rune('a'+i%26)) + " == true"
	}
	list := "visitor.claims.n in [0"
	for i := 1; len(list)+len(",000]") <= limits.Condition; i++ {
		list += ",1"
	}
	list += "]"
	nots := strings.Repeat("!", limits.Condition-len("visitor.claims.x")) + "visitor.claims.x"
	c := condition.NewCache(16, nil)
	env := map[string]any{"visitor": map[string]any{"claims": map[string]any{"n": 5}}}
	for name, cond := range map[string]string{"ors": ors, "list": list, "nots": nots} {
		p, err := condition.Compile(cond)
		if err != nil {
			// A long chain of ! is over the node limit: refused, fine.
			if name != "ors" && strings.Contains(err.Error(), "nodes") {
				t.Logf("%s (%d chars): %v", name, len(cond), err)
				continue
			}
			t.Fatalf("%s (%d chars): %v", name, len(cond), err)
		}
		if len(p.Bytecode) > limits.ConditionOps {
			t.Errorf("%s: %d instructions", name, len(p.Bytecode))
		}
		c.Match(cond, env)
		const n = 1000
		start := time.Now()
		for range n {
			c.Match(cond, env)
		}
		per := time.Since(start) / n
		t.Logf("%s: %d chars, %d instructions, %s per evaluation (noisy: shared machine)", name, len(cond), len(p.Bytecode), per)
		if per > 5*time.Millisecond {
			t.Errorf("%s: %s per evaluation", name, per)
		}
	}
}

// FuzzConditionCheck: whatever the input, the checker answers without
// panicking; what it accepts compiles to a program with no loop and
// at most limits.ConditionOps instructions, which evaluates without
// panicking on claims of any shape.
func FuzzConditionCheck(f *testing.F) {
	for _, s := range []string{
		`visitor.claims.beta == true`, `visitor.claims.unsigned.preview`, `!visitor.claims.a || visitor.claims.b`,
		`visitor.claims.plan in ["pro", "team"]`, `visitor.claims.n >= -1.5`, `visitor.claims?.g?.x != nil`,
		issueRepro, `all(1..1000, {true})`, `visitor.claims["x"] not in [1, "a", true, nil]`, `len("abc") > 1`,
		`(((visitor.claims.a)))`, `visitor.claims.a and (visitor.claims.b or not visitor.claims.c)`,
	} {
		f.Add(s)
	}
	envs := []map[string]any{
		nil,
		{"visitor": map[string]any{"claims": map[string]any{"a": true, "b": "x", "n": 3, "unsigned": map[string]any{"preview": true}}}},
		{"visitor": map[string]any{"claims": []any{1, 2}}},
		{"visitor": "claims"},
	}
	f.Fuzz(func(t *testing.T, cond string) {
		if condition.Check(cond) != nil {
			return
		}
		p, err := condition.Compile(cond)
		if err != nil {
			return // a type error the compiler finds (`"a" < 1`)
		}
		if len(p.Bytecode) > limits.ConditionOps {
			t.Fatalf("%q: %d instructions", cond, len(p.Bytecode))
		}
		for _, op := range p.Bytecode {
			if op == vm.OpJumpBackward || op == vm.OpBegin || op == vm.OpRange {
				t.Fatalf("%q compiles to a loop", cond)
			}
		}
		for _, env := range envs {
			m := vm.VM{MemoryBudget: limits.ConditionMemory}
			_, _ = m.Run(p, env)
		}
	})
}
