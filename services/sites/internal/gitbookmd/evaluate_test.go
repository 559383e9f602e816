package gitbookmd

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/docspub/platform/services/sites/internal/condition"
	"github.com/docspub/platform/services/sites/internal/limits"
)

// claimsCond evaluates conditions as the reader does (condition.Cache) on
// claims.
func claimsCond(c *condition.Cache, claims map[string]any) func(string) bool {
	env := map[string]any{"visitor": map[string]any{"claims": claims}}
	return func(cond string) bool { return c.Match(cond, env) }
}

func TestEvaluate(t *testing.T) {
	t.Parallel()
	r := New()
	conds := condition.NewCache(64, nil)
	ent := map[string]any{"enterprise": true}
	const branches = "Intro.\n\n{% if visitor.claims.enterprise == true %}\nEnterprise secret.\n" +
		"{% elif visitor.claims.unsigned.plan === \"pro\" %}\nPro text.\n{% else %}\nEveryone else.\n{% endif %}\n\n" +
		"{% if !visitor.claims.enterprise %}\nNot enterprise.\n{% endif %}\nOutro.\n"
	for _, tc := range []struct {
		name, src string
		claims    map[string]any
		want      string // blank lines left out
	}{
		{"anonymous: else and negated", branches, nil, "Intro.\nEveryone else.\nNot enterprise.\nOutro.\n"},
		{"enterprise: if only", branches, ent, "Intro.\nEnterprise secret.\nOutro.\n"},
		{"pro: elif and negated", branches, map[string]any{"unsigned": map[string]any{"plan": "pro"}},
			"Intro.\nPro text.\nNot enterprise.\nOutro.\n"},
		{"nested", "{% if visitor.claims.a %}\nA.\n{% if visitor.claims.b %}\nAB.\n{% else %}\nA not B.\n{% endif %}\n{% endif %}\n",
			map[string]any{"a": true}, "A.\nA not B.\n"},
		{"nested in a hint", "{% hint style=\"info\" %}\n{% if visitor.claims.a %}\nA.\n{% endif %}\nAll.\n{% endhint %}\n",
			nil, "{% hint style=\"info\" %}\nAll.\n{% endhint %}\n"},
		{"in a quote", "> {% if visitor.claims.a %}\n> A.\n> {% else %}\n> Not A.\n> {% endif %}\n", nil, "> \n> \n> Not A.\n> \n"},
		{"in a list", "- item\n  {% if visitor.claims.a %}\n  A.\n  {% endif %}\n- next\n", nil, "- item\n- next\n"},
		{"code is code", "```liquid\n{% if visitor.claims.a %}\ncode\n{% endif %}\n```\n", nil,
			"```liquid\n{% if visitor.claims.a %}\ncode\n{% endif %}\n```\n"},
		{"code inside a branch", "{% if visitor.claims.a %}\n```\n{% endif %}\n```\nA.\n{% endif %}\nAfter.\n", nil, "After.\n"},
		{"unknown syntax is false", "{% if visitor.claims.a ~~ 1 %}\nSecret.\n{% else %}\nShown.\n{% endif %}\n", ent, "Shown.\n"},
		{"no end cuts the rest", "Before.\n\n{% if visitor.claims.a %}\nSecret.\n\nMore.\n", map[string]any{"a": true}, "Before.\n"},
		{"front matter kept", "---\ndescription: d\n---\n{% if visitor.claims.a %}\nSecret.\n{% endif %}\n", nil, "---\ndescription: d\n---\n"},
		{"no tags", "# Title\n\nText.\n", nil, "# Title\nText.\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, _ := r.Evaluate(tc.src, claimsCond(conds, tc.claims))
			if got = withoutBlankLines(got); got != tc.want {
				t.Errorf("Evaluate:\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

func withoutBlankLines(s string) string {
	var b strings.Builder
	for line := range strings.Lines(s) {
		if strings.TrimSpace(line) != "" {
			b.WriteString(line)
		}
	}
	return b.String()
}

// TestEvaluateTooDeepShowsNoBranch: an {% if %} past the blocks' depth
// hides every branch, else included, and its nested tags do not end it.
func TestEvaluateTooDeepShowsNoBranch(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for range limits.ReaderBlockDepth {
		b.WriteString("{% hint %}\n")
	}
	b.WriteString("{% if visitor.claims.a %}\nSecret A.\n{% if visitor.claims.b %}\nSecret B.\n{% endif %}\nSecret tail.\n{% else %}\nSecret else.\n{% endif %}\nShown.\n")
	for range limits.ReaderBlockDepth {
		b.WriteString("{% endhint %}\n")
	}
	r := New()
	always := func(string) bool { return true }
	md, conditional := r.Evaluate(b.String(), always)
	html := r.Render(b.String(), Options{Cond: always}).HTML
	if !conditional {
		t.Error("not conditional")
	}
	for _, out := range []string{md, html} {
		if strings.Contains(out, "Secret") || !strings.Contains(out, "Shown.") {
			t.Errorf("too deep:\n%s", out)
		}
	}
}

// TestEvaluateProperty generates pages of nested {% if %}, {% elif %},
// {% else %} and negated branches, in hints, quotes and lists, with code
// holding tags, and checks for readers of every claim set that the
// evaluated markdown and the HTML hold the words of exactly the branches
// the reader's claims choose, and never a tag of a condition.
func TestEvaluateProperty(t *testing.T) {
	t.Parallel()
	r := New()
	conds := condition.NewCache(256, nil)
	rng := rand.New(rand.NewPCG(7, 11))
	claimSets := []map[string]any{nil, {"a": true}, {"b": true}, {"a": true, "b": true},
		{"unsigned": map[string]any{"plan": "pro"}}, {"a": true, "unsigned": map[string]any{"plan": "pro"}}}
	for i := range 120 {
		g := &pageGen{rng: rng}
		root := g.node(0)
		src := root.markdown("")
		for _, claims := range claimSets {
			cond := claimsCond(conds, claims)
			want := map[string]bool{}
			root.visible(cond, true, want)
			md, _ := r.Evaluate(src, cond)
			html := r.Render(src, Options{Cond: cond}).HTML
			for name, out := range map[string]string{"markdown": md, "HTML": html} {
				for w, shown := range want {
					if got := strings.Contains(out, w+"."); got != shown {
						t.Fatalf("page %d, claims %v, %s: %s shown %v, want %v\nsource:\n%s\nout:\n%s", i, claims, name, w, got, shown, src, out)
					}
				}
				if strings.Contains(strings.ReplaceAll(out, "{% if code %}", ""), "visitor.claims") {
					t.Fatalf("page %d, %s holds a condition:\n%s", i, name, out)
				}
			}
		}
	}
}

// gen is a generated piece of a page: text, a wrapper of pieces, an
// {% if %} block of branches, or code.
type gen struct {
	word     string // text: its word
	wrap     string // "hint", "quote", "list", "" for a plain sequence
	arms     []genArm
	children []*gen
	code     bool
}

type genArm struct {
	cond string // "" for else
	body *gen
}

type pageGen struct {
	rng *rand.Rand
	n   int
}

var genConds = []string{"visitor.claims.a", "!visitor.claims.a", "visitor.claims.b == true", "!visitor.claims.b",
	`visitor.claims.unsigned.plan === "pro"`, `visitor.claims.unsigned.plan !== "pro"`, "visitor.claims.a && !visitor.claims.b",
	"visitor.claims.a || visitor.claims.b", "visitor.claims.a ~~ 1", "visitor.claims.nope"}

func (g *pageGen) word() string { g.n++; return fmt.Sprintf("w%03d", g.n) }

func (g *pageGen) node(depth int) *gen {
	k := g.rng.IntN(10)
	if depth >= 4 {
		k = 0
	}
	switch {
	case k < 3:
		return &gen{word: g.word()}
	case k < 4:
		return &gen{code: true, word: g.word()}
	case k < 7:
		n := &gen{}
		for range 1 + g.rng.IntN(3) {
			n.arms = append(n.arms, genArm{cond: genConds[g.rng.IntN(len(genConds))], body: g.seq(depth + 1)})
		}
		if g.rng.IntN(2) == 0 {
			n.arms = append(n.arms, genArm{body: g.seq(depth + 1)})
		}
		return n
	}
	n := g.seq(depth + 1)
	n.wrap = []string{"hint", "quote", "list"}[g.rng.IntN(3)]
	return n
}

func (g *pageGen) seq(depth int) *gen {
	n := &gen{}
	for range 1 + g.rng.IntN(3) {
		n.children = append(n.children, g.node(depth))
	}
	return n
}

// markdown writes the piece, each line after prefix.
func (n *gen) markdown(prefix string) string {
	var b strings.Builder
	blank := strings.TrimRight(prefix, " ") + "\n"
	switch {
	case n.code:
		b.WriteString(prefix + "```\n" + prefix + "{% if code %}\n" + prefix + n.word + ".\n" + prefix + "{% endif %}\n" + prefix + "```\n" + blank)
	case n.word != "":
		b.WriteString(prefix + n.word + ".\n" + blank)
	case n.arms != nil:
		for i, a := range n.arms {
			switch {
			case i == 0:
				b.WriteString(prefix + "{% if " + a.cond + " %}\n")
			case a.cond == "":
				b.WriteString(prefix + "{% else %}\n")
			default:
				b.WriteString(prefix + "{% elif " + a.cond + " %}\n")
			}
			b.WriteString(a.body.markdown(prefix))
		}
		b.WriteString(prefix + "{% endif %}\n" + blank)
	case n.wrap == "hint":
		b.WriteString(prefix + "{% hint style=\"info\" %}\n")
		for _, c := range n.children {
			b.WriteString(c.markdown(prefix))
		}
		b.WriteString(prefix + "{% endhint %}\n" + blank)
	case n.wrap == "quote":
		for _, c := range n.children {
			b.WriteString(c.markdown(prefix + "> "))
		}
		b.WriteString(blank)
	case n.wrap == "list":
		b.WriteString(prefix + "- item\n" + blank)
		for _, c := range n.children {
			b.WriteString(c.markdown(prefix + "  "))
		}
	default:
		for _, c := range n.children {
			b.WriteString(c.markdown(prefix))
		}
	}
	return b.String()
}

// visible records, of every word, whether a reader for whom cond holds
// sees it (shown: its ancestors' branches are chosen).
func (n *gen) visible(cond func(string) bool, shown bool, out map[string]bool) {
	if n.word != "" {
		out[n.word] = shown
		return
	}
	chosen := -1
	for i, a := range n.arms {
		if a.cond == "" || cond(a.cond) {
			chosen = i
			break
		}
	}
	for i, a := range n.arms {
		a.body.visible(cond, shown && i == chosen, out)
	}
	for _, c := range n.children {
		c.visible(cond, shown, out)
	}
}
