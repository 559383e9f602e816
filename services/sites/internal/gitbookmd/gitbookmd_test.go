package gitbookmd

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// resolverMap resolves the destinations it holds; a relative .md or
// .gitbook/assets destination it does not hold is unpublished.
type resolverMap map[string]string

func (m resolverMap) Resolve(dest string) (string, bool) {
	if u, ok := m[dest]; ok {
		return u, true
	}
	if strings.HasSuffix(strings.SplitN(dest, "#", 2)[0], ".md") || strings.Contains(dest, ".gitbook/assets/") {
		return "", false
	}
	return dest, true
}

var links = resolverMap{
	"../reference/concepts.md":         "/s/reference/concepts",
	"page.md#anchor":                   "/s/page#anchor",
	"../.gitbook/assets/logo.png":      "/s/~files/ss/rev/f1",
	"../.gitbook/assets/my%20shot.png": "/s/~files/ss/rev/f2",
	"../.gitbook/assets/my shot.png":   "/s/~files/ss/rev/f2",
	"../.gitbook/assets/dark.png":      "/s/~files/ss/rev/f3",
	"../.gitbook/assets/guide.pdf":     "/s/~files/ss/rev/f4",
	"../git-sync/":                     "/s/git-sync",
}

func TestBlocks(t *testing.T) {
	r := New()
	for _, tc := range []struct {
		name, src string
		want      []string
		notWant   []string
	}{
		{
			name: "hints in four styles",
			src: "{% hint style=\"info\" %}\n## Heads up\nInfo **text**.\n{% endhint %}\n\n{% hint style=\"success\" %}\nok\n{% endhint %}\n\n" +
				"{% hint style=\"warning\" %}\nwarn\n{% endhint %}\n\n{% hint style=\"danger\" %}\nboom\n{% endhint %}\n",
			want: []string{`<div class="hint hint-info" role="note" aria-label="Info"><span class="hint-icon" aria-hidden="true"></span>`,
				`<h2 id="heads-up">Heads up<a href="#heads-up" class="anchor">#</a></h2>`,
				`<p>Info <strong>text</strong>.</p>`, `class="hint hint-success" role="note"`, `class="hint hint-warning" role="note"`,
				`class="hint hint-danger" role="note"`},
			notWant: []string{"{%"},
		},
		{
			name: "tabs work without script",
			src:  "{% tabs %}\n{% tab title=\"Go\" %}\n```go\nfmt.Println(1)\n```\n{% endtab %}\n\n{% tab title=\"Shell\" %}\nrun it\n{% endtab %}\n{% endtabs %}\n",
			want: []string{`<div class="tabs"><input type="radio" class="tab-input" name="tabs-1" id="tabs-1-0" checked=""><input type="radio" class="tab-input" name="tabs-1" id="tabs-1-1">` +
				`<div class="tab-list" role="tablist"><label class="tab" for="tabs-1-0" role="tab">Go</label><label class="tab" for="tabs-1-1" role="tab">Shell</label></div>`,
				`<div class="tab-panel" role="tabpanel" aria-label="Go">`, `<div class="tab-panel" role="tabpanel" aria-label="Shell">`,
				`<span class="nx">fmt</span>`, "<p>run it</p>"},
			notWant: []string{"{%"},
		},
		{
			name: "hint inside a tab inside a stepper",
			src: "{% stepper %}\n{% step %}\n### First\n{% tabs %}\n{% tab title=\"A\" %}\n{% hint style=\"warning\" %}\ndeep\n{% endhint %}\n{% endtab %}\n{% endtabs %}\n{% endstep %}\n\n" +
				"{% step %}\n### Second\ndone\n{% endstep %}\n{% endstepper %}\n\nafter\n",
			want: []string{`<ol class="stepper" role="list">`, `<li class="step" role="listitem"><div class="step-body">`,
				`role="tabpanel" aria-label="A">` + "\n" + `<div class="hint hint-warning" role="note" aria-label="Warning">`, "<p>deep</p>\n</div></div>\n</div>\n</div>\n</div></li>",
				`<h3 id="second">`, "</ol>\n<p>after</p>"},
			notWant: []string{"{%"},
		},
		{
			name: "same blocks nested",
			src:  "{% hint style=\"info\" %}\nouter\n{% hint style=\"danger\" %}\ninner\n{% endhint %}\nstill outer\n{% endhint %}\n\nout\n",
			want: []string{"<p>inner</p>\n</div></div>\n<p>still outer</p>\n</div></div>\n<p>out</p>"},
		},
		{
			name: "an end tag inside fenced code is code",
			src:  "{% hint style=\"info\" %}\n```markdown\n{% hint style=\"info\" %}\nx\n{% endhint %}\n```\n{% endhint %}\n\nafter\n",
			want: []string{"endhint", "</code></pre>\n</div></div>\n<p>after</p>"},
		},
		{
			name: "code with title, line numbers, wrap",
			src:  "{% code title=\"index.js\" overflow=\"wrap\" lineNumbers=\"true\" %}\n```javascript\nlet a = 1;\nlet b = 2;\n```\n{% endcode %}\n",
			want: []string{`<figure class="code-block wrap"><figcaption class="code-title">index.js</figcaption>`, `<pre class="chroma"`,
				`<span class="ln">1</span>`, `<span class="ln">2</span>`, `<span class="kd">let</span>`},
			notWant: []string{"{%", "style="},
		},
		{
			name:    "mermaid stays a diagram's source",
			src:     "```mermaid\ngraph TD;\n  A-->B;\n```\n",
			want:    []string{`<pre class="mermaid"><code class="language-mermaid">graph TD;` + "\n" + `  A--&gt;B;`},
			notWant: []string{"chroma"},
		},
		{
			name: "content-ref card with the link resolved",
			src:  "{% content-ref url=\"../reference/concepts.md\" %}\n[concepts.md](../reference/concepts.md)\n{% endcontent-ref %}\n",
			want: []string{`<div class="content-ref card">`, `<a href="/s/reference/concepts">concepts.md</a>`},
		},
		{
			name: "embeds: framed players, links otherwise",
			src: "{% embed url=\"https://www.youtube.com/watch?v=dQw4w9WgXcQ\" %}\nA talk\n{% endembed %}\n\n" +
				"{% embed url=\"https://vimeo.com/76979871\" %}\n\n{% embed url=\"https://github.com/docspub\" %}\n\nend\n",
			want: []string{`<iframe src="https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ" title="Embedded video" loading="lazy" allowfullscreen="" sandbox="allow-scripts allow-same-origin allow-presentation"></iframe>`,
				"<figcaption>\n<p>A talk</p>\n</figcaption>", `<iframe src="https://player.vimeo.com/video/76979871"`,
				`<a class="embed-card card" href="https://github.com/docspub" rel="nofollow">github.com/docspub</a></figure>`, "<p>end</p>"},
			notWant: []string{`src="https://github.com`},
		},
		{
			name: "file card",
			src:  "{% file src=\"../.gitbook/assets/guide.pdf\" %}\nThe guide.\n{% endfile %}\n",
			want: []string{`<div class="file card"><a class="file-link" href="/s/~files/ss/rev/f4" download="">guide.pdf</a><div class="file-caption">`, "<p>The guide.</p>"},
		},
		{
			name: "columns, updates, prompt",
			src: "{% columns %}\n{% column width=\"50%\" %}\nleft\n{% endcolumn %}\n{% column %}\nright\n{% endcolumn %}\n{% endcolumns %}\n\n" +
				"{% updates format=\"full\" %}\n{% update date=\"2025-01-02\" %}\n## New\nshipped\n{% endupdate %}\n{% endupdates %}\n\n" +
				"{% prompt description=\"Summarize\" icon=\"x\" %}\n```markdown\nSummarize this.\n```\n{% endprompt %}\n",
			want: []string{`<div class="columns">`, `<div class="column" data-width="50%">`, "<p>right</p>", `<div class="updates">`,
				`<section class="update"><div class="update-meta"><time class="update-date" datetime="2025-01-02">January 2, 2025</time></div>`,
				`<div class="prompt card"><p class="prompt-description">Summarize</p>`},
			notWant: []string{"{%"},
		},
		{
			name: "buttons, icons, kbd, mark, sub, sup, details",
			src: "<a href=\"https://example.com\" class=\"button primary\">Go</a> <i class=\"fa-github\">:github:</i> <kbd>Ctrl</kbd> <mark style=\"color:red\">hi</mark> H<sub>2</sub>O x<sup>2</sup>\n\n" +
				"<details open>\n\n<summary>More</summary>\n\nHidden *text*.\n\n</details>\n",
			want: []string{`<a href="https://example.com" class="button primary" rel="nofollow">Go</a>`, `</a> <svg class="icon icon-github" `,
				"<kbd>Ctrl</kbd>", "<mark>hi</mark>", "<sub>2</sub>", "<sup>2</sup>", `<details open="">`, "<summary>More</summary>", "<em>text</em>"},
			notWant: []string{"raw HTML omitted", ":github:", "<i"},
		},
		{
			name: "math",
			src:  "$$\nE = mc^2\n$$\n\nInline $$a^2+b^2$$ too.\n",
			want: []string{`<div class="math math-display" role="math"><code class="language-math">E = mc^2</code></div>`,
				`<code class="math math-inline" role="math">a^2+b^2</code>`},
		},
		{
			name: "figures and pictures with assets",
			src: "<figure><img src=\"../.gitbook/assets/my shot.png\" alt=\"Shot\"><figcaption><p>A shot</p></figcaption></figure>\n\n" +
				"<picture><source srcset=\"../.gitbook/assets/dark.png\" media=\"(prefers-color-scheme: dark)\"><img src=\"../.gitbook/assets/logo.png\" alt=\"Logo\"></picture>\n\n" +
				"![alt](../.gitbook/assets/my%20shot.png) ![gone](../.gitbook/assets/missing.png)\n",
			want: []string{`<figure><img src="/s/~files/ss/rev/f2" alt="Shot"><figcaption><p>A shot</p></figcaption></figure>`,
				`<source srcset="/s/~files/ss/rev/f3" media="(prefers-color-scheme: dark)"><img src="/s/~files/ss/rev/f1" alt="Logo">`,
				`<img src="/s/~files/ss/rev/f2" alt="alt">`},
			notWant: []string{"missing.png", `alt="gone"`},
		},
		{
			name: "cards table",
			src: `<table data-view="cards"><thead><tr><th></th><th data-hidden data-card-target data-type="content-ref"></th><th data-hidden data-card-cover data-type="files"></th></tr></thead>` +
				`<tbody><tr><td><strong>Concepts</strong></td><td><a href="../reference/concepts.md">concepts</a></td><td><a href="../.gitbook/assets/logo.png">logo.png</a></td></tr></tbody></table>` + "\n",
			want: []string{`<table data-view="cards">`, `<th data-hidden="" data-card-target="" data-type="content-ref">`,
				`<td class="card-target"><a href="/s/reference/concepts" class="card-link" aria-label="Concepts">concepts</a></td>`, `<td class="card-cover"><img src="/s/~files/ss/rev/f1" alt=""></td>`},
			notWant: []string{"logo.png</a>"},
		},
		{
			name: "links: pages, anchors, folders, unpublished as text",
			src:  "[a](../reference/concepts.md) [b](page.md#anchor) [c](../git-sync/) [d](gone.md) [e](https://example.com) [f](#local)\n",
			want: []string{`<a href="/s/reference/concepts">a</a>`, `<a href="/s/page#anchor">b</a>`, `<a href="/s/git-sync">c</a>`, " d ",
				`<a href="https://example.com" rel="nofollow">e</a>`, `<a href="#local">f</a>`},
			notWant: []string{"gone.md"},
		},
		{
			name: "heading ids from text only, unique",
			src:  "## Enable it <a href=\"https://x.example\">here</a>\n\n## Setup\n\n## Setup\n\n### Setup <a href=\"#custom\" id=\"custom\"></a>\n\n## `code` *em*\n",
			want: []string{`<h2 id="enable-it-here">`, `<h2 id="setup">`, `<h2 id="setup-1">`, `<h3 id="custom">Setup <a href="#custom" class="anchor"`,
				`<h2 id="code-em">`},
			notWant: []string{"a-href", `id="custom"></a>`},
		},
		{
			name: "heading ids as GitBook computes them",
			src:  "## 1. Create a new application in Auth0\n\n## Math & TeX\n\n## Set syntax…\n\n## Change your site’s settings\n",
			want: []string{`<h2 id="id-1.-create-a-new-application-in-auth0">`, `<h2 id="math-and-tex">`, `<h2 id="set-syntax...">`,
				`<h2 id="change-your-site-s-settings">`},
		},
		{
			name:    "front matter left out",
			src:     "---\ndescription: hello\nicon: rocket\n---\n\n# Title\n\nBody\n",
			want:    []string{"<p>Body</p>"},
			notWant: []string{"description", "<h1"},
		},
		{
			name:    "stray and unknown tags",
			src:     "{% endhint %}\n\n{% unknown a=\"b\" %}\ninside\n{% endunknown %}\n\ntext\n",
			want:    []string{`<div class="block" data-block="unknown">`, "<p>inside</p>", "<p>text</p>"},
			notWant: []string{"{%"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := r.Render(tc.src, Options{Title: "Title", Links: links}).HTML
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("lacks %q in:\n%s", w, got)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(got, w) {
					t.Errorf("holds %q in:\n%s", w, got)
				}
			}
		})
	}
}

func TestContentRefTitles(t *testing.T) {
	r := New()
	src := "{% content-ref url=\"../reference/concepts.md\" %}\n[concepts.md](../reference/concepts.md)\n{% endcontent-ref %}\n\n" +
		"{% content-ref url=\"gone.md\" %}\n[gone.md](gone.md)\n{% endcontent-ref %}\n"
	title := func(dest string) (string, bool) { return "Concepts <&>", dest == "../reference/concepts.md" }
	got := r.Render(src, Options{Links: links, PageTitle: title}).HTML
	for _, want := range []string{`<div class="content-ref card"><a class="content-ref-link" href="/s/reference/concepts">Concepts &lt;&amp;&gt;</a></div>`,
		"<p>gone.md</p>"} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q in:\n%s", want, got)
		}
	}
}

// A mention is titled with its page, as GitBook shows it.
func TestMentionTitles(t *testing.T) {
	r := New()
	src := "See [concepts.md](../reference/concepts.md \"mention\") and [gone.md](gone.md \"mention\") and [plain](../reference/concepts.md \"a title\").\n"
	title := func(dest string) (string, bool) { return "Concepts <&>", dest == "../reference/concepts.md" }
	got := r.Render(src, Options{Links: links, PageTitle: title}).HTML
	for _, want := range []string{`<a href="/s/reference/concepts">Concepts &lt;&amp;&gt;</a>`, "gone.md", `title="a title">plain</a>`} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q in:\n%s", want, got)
		}
	}
	if strings.Contains(got, "concepts.md") || strings.Contains(got, `"mention"`) {
		t.Errorf("shows the file name or the mention title:\n%s", got)
	}
}

func TestConditions(t *testing.T) {
	r := New()
	src := "{% if visitor.claims.beta %}\nBeta **only**.\n{% endif %}\n\n{% if !visitor.claims.beta %}\nEveryone else.\n{% endif %}\n"
	var asked []string
	beta := func(expr string) bool {
		asked = append(asked, expr)
		return expr == "visitor.claims.beta"
	}
	res := r.Render(src, Options{Cond: beta})
	if !res.Conditional || !strings.Contains(res.HTML, "Beta <strong>only</strong>.") || strings.Contains(res.HTML, "Everyone else") {
		t.Errorf("with beta: %+v", res)
	}
	if diff := cmp.Diff(asked, []string{"visitor.claims.beta", "!visitor.claims.beta"}); diff != "" {
		t.Errorf("conditions asked (-got +want):\n%s", diff)
	}
	for name, cond := range map[string]func(string) bool{"no evaluator": nil, "fails": func(string) bool { return false }} {
		res := r.Render(src, Options{Cond: cond})
		if strings.Contains(res.HTML, "Beta") || strings.Contains(res.HTML, "Everyone") {
			t.Errorf("%s: %s", name, res.HTML)
		}
	}
	branches := "{% if visitor.claims.a %}\nA only.\n{% elif visitor.claims.b %}\nB only.\n{% else %}\nNeither.\n{% endif %}\n"
	for _, tc := range []struct {
		name string
		cond func(string) bool
		want string
	}{
		{"a", func(c string) bool { return c == "visitor.claims.a" || c == "visitor.claims.b" }, "<p>A only.</p>\n"},
		{"b", func(c string) bool { return c == "visitor.claims.b" }, "<p>B only.</p>\n"},
		{"neither", func(string) bool { return false }, "<p>Neither.</p>\n"},
		{"no evaluator", nil, "<p>Neither.</p>\n"},
	} {
		if got := r.Render(branches, Options{Cond: tc.cond}).HTML; got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	if res := r.Render("plain\n", Options{}); res.Conditional {
		t.Error("a page without {% if %} is conditional")
	}
}

func TestIncludes(t *testing.T) {
	r := New()
	includes := map[string]string{
		"../.gitbook/includes/note.md": "{% hint style=\"info\" %}\nReused note.\n{% endhint %}\n",
		".gitbook/includes/loop.md":    "loop {% include \".gitbook/includes/loop.md\" %}\n\n{% include \".gitbook/includes/loop.md\" %}\n",
		"cond.md":                      "{% if visitor.claims.beta %}\nsecret\n{% endif %}\n",
	}
	var looked []string
	include := func(p string) (string, bool) {
		looked = append(looked, p)
		md, ok := includes[p]
		return md, ok
	}
	res := r.Render("Before\n\n{% include \"../.gitbook/includes/note.md\" %}\n\n{% include \"../.gitbook/includes/missing.md\" %}\n\nAfter\n",
		Options{Include: include})
	if !strings.Contains(res.HTML, "<p>Before</p>\n<div class=\"hint hint-info\" role=\"note\" aria-label=\"Info\">") ||
		!strings.Contains(res.HTML, "<p>Reused note.</p>") || !strings.Contains(res.HTML, "<p>After</p>") || strings.Contains(res.HTML, "missing") {
		t.Errorf("includes: %s", res.HTML)
	}
	looked = nil
	res = r.Render("{% include \".gitbook/includes/loop.md\" %}\n", Options{Include: include})
	if n := len(looked); n > 50 || strings.Count(res.HTML, "loop") > 50 {
		t.Errorf("a self-including include was read %d times", n)
	}
	includes["tabs.md"] = "{% tabs %}\n{% tab title=\"A\" %}\na\n{% endtab %}\n{% endtabs %}\n"
	res = r.Render("{% tabs %}\n{% tab title=\"P\" %}\np\n{% endtab %}\n{% endtabs %}\n\n{% include \"tabs.md\" %}\n", Options{Include: include})
	if !strings.Contains(res.HTML, `id="tabs-1-0"`) || !strings.Contains(res.HTML, `id="tabs-2-0"`) {
		t.Errorf("tabs of an include numbered apart from the page's: %s", res.HTML)
	}
	res = r.Render("{% include \"cond.md\" %}\n", Options{Include: include, Cond: func(string) bool { return false }})
	if !res.Conditional || strings.Contains(res.HTML, "secret") {
		t.Errorf("a condition inside an include: %+v", res)
	}
}

func TestOutline(t *testing.T) {
	r := New()
	res := r.Render("# Title\n\n## One\n\n### One A\n\n{% hint style=\"info\" %}\n## In a hint\n{% endhint %}\n\n#### Deep\n\n## Two <kbd>x</kbd>\n", Options{Title: "Title"})
	want := []Heading{{2, "one", "One"}, {3, "one-a", "One A"}, {2, "two-x", "Two x"}}
	if diff := cmp.Diff(res.Headings, want); diff != "" {
		t.Errorf("outline (-got +want):\n%s", diff)
	}
}

func TestBounds(t *testing.T) {
	r := New()
	deep := strings.Repeat("{% hint style=\"info\" %}\n", 50) + "core\n" + strings.Repeat("{% endhint %}\n", 50)
	got := r.Render(deep, Options{}).HTML
	if n := strings.Count(got, `class="hint `); n > 10 {
		t.Errorf("%d hints nested", n)
	}
	if !strings.Contains(got, "core") || strings.Contains(got, "{%") {
		t.Errorf("too deep: %s", got)
	}
	var tabs strings.Builder
	tabs.WriteString("{% tabs %}\n")
	for i := range MaxTabs + 2 {
		fmt.Fprintf(&tabs, "{%% tab title=\"T%d\" %%}\nbody %d\n{%% endtab %%}\n", i, i)
	}
	tabs.WriteString("{% endtabs %}\n")
	got = r.Render(tabs.String(), Options{}).HTML
	if n := strings.Count(got, `class="tab-input"`); n != MaxTabs {
		t.Errorf("%d tab inputs", n)
	}
	if n := strings.Count(got, `class="tab-extra"`); n != 2 || !strings.Contains(got, "body 21") {
		t.Errorf("tabs past MaxTabs: %d extra, %s", n, got)
	}
	many := strings.Repeat("{% hint style=\"info\" %}\nx\n{% endhint %}\n\n", 6000)
	got = r.Render(many, Options{}).HTML
	if n := strings.Count(got, `class="hint `); n > 5000 {
		t.Errorf("%d hints rendered", n)
	}
}

func TestEmbedFrame(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"https://www.youtube.com/watch?v=abc_DEF-1", "https://www.youtube-nocookie.com/embed/abc_DEF-1"},
		{"https://youtu.be/abc", "https://www.youtube-nocookie.com/embed/abc"},
		{"https://vimeo.com/123", "https://player.vimeo.com/video/123"},
		{"https://www.loom.com/share/0a1b", "https://www.loom.com/embed/0a1b"},
		{"https://www.youtube.com/watch?v=a\"b", ""},
		{"https://evil.example/watch?v=abc", ""},
		{"javascript:alert(1)", ""},
	} {
		got, _ := embedFrame(tc.in)
		if got != tc.want {
			t.Errorf("embedFrame(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
