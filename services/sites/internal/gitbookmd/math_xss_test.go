package gitbookmd

import (
	"regexp"
	"strings"
	"testing"

	"github.com/docspub/platform/services/sites/internal/icons"
	"golang.org/x/net/html"
)

// texPayloads are formulas that try KaTeX's commands that link, load or
// set markup (none is trusted: each renders as red text), and TeX
// holding markup.
var texPayloads = []string{
	`\href{javascript:alert(1)}{x}`, `\url{javascript:alert(1)}`, `\includegraphics{https://evil.example/x.png}`,
	`\htmlClass{x" onmouseover="alert(1)}{x}`, `\htmlId{x onload=alert(1)}{x}`, `\htmlData{onclick=alert(1)}{x}`,
	`\htmlStyle{background:url(javascript:alert(1))}{x}`, `\text{<script>alert(1)</script>}`,
	`\text{</span><img src=x onerror=alert(1)>}`, `\color{red" onload="alert(1)}{x}`, `\def\x{\href{javascript:alert(1)}{y}}\x`,
}

// TestXSSWithMath: with formulas typeset (KaTeX's markup is written as
// it comes, not sanitized), no payload, of TeX or of the HTML and markdown
// ones, renders anything that runs a script: what KaTeX writes holds no
// link, source, event handler or URL in a style, and the rest of the page
// passes executable.
func TestXSSWithMath(t *testing.T) {
	r, math := New(), kaTeX()
	var pages []string
	for _, tex := range texPayloads {
		pages = append(pages, "$$"+tex+"$$ inline\n", "$$\n"+tex+"\n$$\n")
	}
	pages = append(append(pages, xssPayloads...), xssMarkdown...)
	typeset := 0
	for i, page := range pages {
		out := r.Render(page, Options{Links: resolverMap{}, Math: math}).HTML
		rest, bad, n := withoutFormulas(out)
		typeset += n
		if bad == "" {
			bad = executable(rest)
		}
		if bad != "" {
			t.Errorf("payload %d %q renders %s:\n%s", i, page, bad, out)
		}
	}
	if typeset < 2*len(texPayloads) {
		t.Errorf("%d formulas typeset, want at least %d", typeset, 2*len(texPayloads))
	}
}

// katexStyle is a style KaTeX writes: lengths, colours, no URL.
var katexStyle = regexp.MustCompile(`^[a-z0-9 :;.#%,()\-]*$`)

// withoutFormulas checks the typeset formulas of a page (elements of class
// katex, or katex-error: a formula KaTeX could not read) and returns the page without them, what is wrong in one, and how
// many there were.
func withoutFormulas(body string) (rest, bad string, n int) {
	for _, name := range icons.Names() { // as executable does: re-rendered, they would not match
		svg, _ := icons.SVG(name)
		body = strings.ReplaceAll(body, svg, "")
	}
	doc, err := html.Parse(strings.NewReader(body))
	if err != nil {
		return "", "unparsable HTML", 0
	}
	var check func(n *html.Node)
	check = func(n *html.Node) {
		for _, a := range n.Attr {
			val := strings.ToLower(a.Val)
			switch {
			case strings.HasPrefix(a.Key, "on"), a.Key == "href", a.Key == "src", a.Key == "xlink:href", a.Key == "srcset":
				bad = "attribute " + a.Key + " in a formula"
			case a.Key == "style" && (!katexStyle.MatchString(val) || strings.Contains(val, "url(")):
				bad = "style " + a.Val + " in a formula"
			}
		}
		if n.Type == html.ElementNode {
			switch n.Data {
			case "script", "style", "iframe", "img", "a", "object", "embed", "foreignobject", "image", "use", "link":
				bad = "a <" + n.Data + "> in a formula"
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			check(c)
		}
	}
	var walk func(p *html.Node)
	walk = func(p *html.Node) {
		for c := p.FirstChild; c != nil; {
			next := c.NextSibling
			if c.Type == html.ElementNode && (hasClass(c, "katex") || hasClass(c, "katex-error")) {
				n++
				check(c)
				p.RemoveChild(c)
			} else {
				walk(c)
			}
			c = next
		}
	}
	walk(doc)
	var b strings.Builder
	if err := html.Render(&b, doc); err != nil {
		return "", "unrenderable HTML", n
	}
	return b.String(), bad, n
}

func hasClass(n *html.Node, class string) bool {
	for _, a := range n.Attr {
		if a.Key == "class" && strings.Contains(" "+a.Val+" ", " "+class+" ") {
			return true
		}
	}
	return false
}
