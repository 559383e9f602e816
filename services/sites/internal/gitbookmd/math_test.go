package gitbookmd

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/services/sites/internal/katex"
	"github.com/docspub/platform/services/sites/internal/limits"
)

// kaTeX typesets formulas as the reader does.
func kaTeX() func(string, bool) (string, bool) {
	ts := katex.New(limits.ReaderFormulaBytes, 5*time.Second, 1)
	return func(tex string, display bool) (string, bool) {
		h, err := ts.Typeset(context.Background(), tex, display)
		return h, err == nil
	}
}

func TestMathTypeset(t *testing.T) {
	r, math := New(), kaTeX()
	long := strings.Repeat("x", limits.ReaderFormulaBytes+1)
	for _, tc := range []struct {
		name, src   string
		want, not   []string
		math, typed bool
	}{
		{name: "inline and block typeset", src: "Energy $$E = mc^2$$ is mass.\n\n$$\n\\frac{a}{b}\n$$\n",
			want: []string{`<span class="math math-inline"><span class="katex"><span class="katex-mathml"><math xmlns="http://www.w3.org/1998/Math/MathML">`,
				`<div class="math math-display"><span class="katex-display">`, `<annotation encoding="application/x-tex">\frac{a}{b}</annotation>`},
			not: []string{`<code class="math`, `$$`}, math: true, typed: true},
		{name: "invalid formula: its escaped source, marked", src: "$$\\frac{<b>x$$\n",
			want: []string{`<span class="katex-error"`, `\frac{&lt;b&gt;x</span>`}, not: []string{"<b>"}, math: true, typed: true},
		{name: "markup in TeX stays text", src: "A $$\\text{</code><script>alert(1)</script>}$$ b\n",
			want: []string{`class="katex"`, `&lt;/code&gt;&lt;script&gt;`}, not: []string{"<script>"}, math: true, typed: true},
		{name: "a formula over the length bound stays its source", src: "$$" + long + "$$\n",
			want: []string{`<div class="math math-display" role="math"><code class="language-math">` + long + `</code></div>`},
			not:  []string{`class="katex"`}, math: true},
		{name: "code is not typeset", src: "```\n$$x$$\n```\n\n`$$y$$`\n", not: []string{`class="katex"`}},
		{name: "no math", src: "Plain $5 text.\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := r.Render(tc.src, Options{Math: math})
			for _, w := range tc.want {
				if !strings.Contains(got.HTML, w) {
					t.Errorf("Render(%q) = %s\nwant it to contain %s", tc.src, got.HTML, w)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(got.HTML, w) {
					t.Errorf("Render(%q) = %s\nwant no %s", tc.src, got.HTML, w)
				}
			}
			if got.Math != tc.math || strings.Contains(got.HTML, `class="katex`) != tc.typed {
				t.Errorf("Render(%q): Math %v, typeset %v; want %v, %v", tc.src, got.Math, !tc.typed, tc.math, tc.typed)
			}
		})
	}
}

// TestMathPerPageBound: past limits.ReaderFormulas formulas, the rest of
// the page's stay their source.
func TestMathPerPageBound(t *testing.T) {
	var b strings.Builder
	for i := range limits.ReaderFormulas + 3 {
		fmt.Fprintf(&b, "$$x_{%d}$$ ", i)
	}
	calls := 0
	math := kaTeX()
	got := New().Render(b.String(), Options{Math: func(tex string, display bool) (string, bool) {
		calls++
		return math(tex, display)
	}})
	if calls != limits.ReaderFormulas {
		t.Errorf("typeset %d formulas, want %d", calls, limits.ReaderFormulas)
	}
	if n := strings.Count(got.HTML, `<code class="math math-inline" role="math">`); n != 3 {
		t.Errorf("%d formulas left as source, want 3", n)
	}
}

func TestDiagrams(t *testing.T) {
	r := New()
	if got := r.Render("```mermaid\ngraph TD;\n  A-->B;\n```\n", Options{}); !got.Diagrams || got.Math {
		t.Errorf("a mermaid block: Diagrams %v, Math %v", got.Diagrams, got.Math)
	}
	if got := r.Render("```js\nmermaid\n```\n", Options{}); got.Diagrams {
		t.Error("a code block: Diagrams")
	}
}
