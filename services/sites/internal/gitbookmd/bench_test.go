package gitbookmd

import (
	"fmt"
	"strings"
	"testing"
)

// heavyPage is a page as heavy as the GitBook fixture's: hints, tabs, 50
// code blocks (with titles and line numbers), 30 figures.
func heavyPage() string {
	var b strings.Builder
	b.WriteString("# Heavy\n\nThe heavy page.\n\n")
	for i := 1; i <= 50; i++ {
		if i%5 == 1 {
			fmt.Fprintf(&b, "## Part %d\n\n{%% hint style=\"info\" %%}\nPart %d.\n{%% endhint %%}\n\n", i, i)
		}
		if i%10 == 0 {
			fmt.Fprintf(&b, "{%% tabs %%}\n{%% tab title=\"Go\" %%}\n```go\nfmt.Println(%d)\n```\n{%% endtab %%}\n{%% tab title=\"Python\" %%}\n```python\nprint(%d)\n```\n{%% endtab %%}\n{%% endtabs %%}\n\n", i, i)
			continue
		}
		fmt.Fprintf(&b, "{%% code title=\"step-%d.go\" lineNumbers=\"true\" %%}\n```go\npackage main\n\nimport \"fmt\"\n\nfunc main() {\n\tfor i := 0; i < %d; i++ {\n\t\tfmt.Println(\"zebra\", i)\n\t}\n}\n```\n{%% endcode %%}\n\n", i, i)
	}
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&b, "<figure><img src=\".gitbook/assets/shot-%02d.png\" alt=\"Shot %d\"><figcaption><p>Shot %d</p></figcaption></figure>\n\n", i, i, i)
	}
	return b.String()
}

// BenchmarkRenderHeavyPage is the reader's cold rendering of one heavy
// page: parse, blocks, highlighting, link resolution, sanitizing.
func BenchmarkRenderHeavyPage(b *testing.B) {
	r := New()
	src := heavyPage()
	links := resolverMap{}
	for i := 1; i <= 30; i++ {
		links[fmt.Sprintf(".gitbook/assets/shot-%02d.png", i)] = fmt.Sprintf("/s/~files/ss/rev/f%d", i)
	}
	b.ReportAllocs()
	for b.Loop() {
		res := r.Render(src, Options{Title: "Heavy", Links: links})
		if strings.Count(res.HTML, "<img ") != 30 {
			b.Fatal("images missing")
		}
	}
}

// mathPage is a page of 50 formulas: 40 inline ones in sentences, 10
// blocks (sums, fractions, roots, matrices), all different.
func mathPage() string {
	var b strings.Builder
	b.WriteString("# Formulas\n\n")
	for i := 1; i <= 50; i++ {
		if i%5 == 0 {
			fmt.Fprintf(&b, "$$\n\\sum_{k=0}^{%d} \\frac{x^k}{k!} = \\begin{pmatrix} a_%d & b \\\\ c & \\sqrt{d^2+1} \\end{pmatrix}\n$$\n\n", i, i)
			continue
		}
		fmt.Fprintf(&b, "Step %d sets $$y_{%d} = \\alpha x^2 + \\beta_%d$$ for every real x.\n\n", i, i, i)
	}
	return b.String()
}

// BenchmarkRenderMathPage is the reader's cold rendering of a page of
// formulas typeset by KaTeX (in goja, one warm runtime): its cost is
// nearly all KaTeX's (go test -bench RenderMathPage -benchtime 5x -count 5).
func BenchmarkRenderMathPage(b *testing.B) {
	r, math := New(), kaTeX()
	src := mathPage()
	if got := r.Render(src, Options{Math: math}); strings.Count(got.HTML, `class="katex"`) != 50 {
		b.Fatalf("%d formulas typeset", strings.Count(got.HTML, `class="katex"`))
	}
	b.ReportAllocs()
	for b.Loop() {
		r.Render(src, Options{Math: math})
	}
}

// BenchmarkRenderLegacySwagger renders a page of 20 legacy {% swagger %}
// blocks (each with four parameters and two responses), sanitizing
// included.
func BenchmarkRenderLegacySwagger(b *testing.B) {
	r := New()
	src := strings.Repeat(legacyUser+"\n", 20)
	b.ReportAllocs()
	for b.Loop() {
		if got := r.Render(src, Options{}).HTML; strings.Count(got, `<section class="api-operation"`) != 20 {
			b.Fatal("operations not rendered")
		}
	}
}
