package gitbookmd

import (
	"fmt"
	"strings"

	"github.com/docspub/platform/services/sites/internal/limits"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/util"
	"golang.org/x/net/html"
)

// preCode is a code block GitBook writes as HTML when its lines are
// marked: <pre class="language-yaml" data-title="openapi.yaml"><code
// class="lang-yaml">…<strong>marked line
// </strong>…</code></pre>.
type preCode struct {
	lang, title    string
	wrap, numbers  bool
	code           strings.Builder
	marked         [][2]int
	line, markFrom int
}

// htmlBlock writes a raw HTML block as written (the allow-list runs
// afterwards), but GitBook's <pre> code blocks, highlighted as code.
func (r *nodeRenderer) htmlBlock(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	hb := n.(*ast.HTMLBlock)
	var raw strings.Builder
	for i := 0; i < hb.Lines().Len(); i++ {
		seg := hb.Lines().At(i)
		raw.Write(seg.Value(src))
	}
	if hb.HasClosure() {
		raw.Write(hb.ClosureLine.Value(src))
	}
	if pc, ok := readPre(raw.String()); ok {
		pc.write(w)
		return ast.WalkSkipChildren, nil
	}
	_, _ = w.WriteString(raw.String())
	return ast.WalkSkipChildren, nil
}

// readPre reads a <pre><code>…</code></pre> block: its text, its marked
// lines and the attributes GitBook writes; false for anything else.
func readPre(raw string) (*preCode, bool) {
	s := strings.TrimSpace(raw)
	if !strings.HasPrefix(s, "<pre") || !strings.HasSuffix(s, "</pre>") || len(s) > limits.ReaderHighlightBytes {
		return nil, false
	}
	z := html.NewTokenizer(strings.NewReader(s))
	pc := &preCode{markFrom: -1}
	if z.Next() != html.StartTagToken {
		return nil, false
	}
	if pre := z.Token(); pre.Data == "pre" {
		pc.attrs(pre)
	} else {
		return nil, false
	}
	if z.Next() != html.StartTagToken {
		return nil, false
	}
	if code := z.Token(); code.Data != "code" {
		return nil, false
	} else if pc.lang == "" {
		pc.lang = langOf(attr(code, "class"))
	}
	if !pc.body(z) {
		return nil, false
	}
	for tt := z.Next(); tt != html.ErrorToken; tt = z.Next() {
		if tt != html.EndTagToken && (tt != html.TextToken || strings.TrimSpace(string(z.Raw())) != "") {
			return nil, false
		}
	}
	return pc, true
}

// attrs reads the <pre>'s language, title, wrapping and line numbers.
func (pc *preCode) attrs(t html.Token) {
	pc.lang = langOf(attr(t, "class"))
	pc.title = attr(t, "data-title")
	pc.wrap = attr(t, "data-overflow") == "wrap"
	pc.numbers = attr(t, "data-line-numbers") != ""
}

// body reads the code up to </code>: its text, the lines within <strong>
// or <mark> marked; other tags (links) leave their text.
func (pc *preCode) body(z *html.Tokenizer) bool {
	depth := 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			return false
		case html.TextToken:
			pc.text(html.UnescapeString(string(z.Raw())), depth > 0)
		case html.StartTagToken:
			if name, _ := z.TagName(); string(name) == "strong" || string(name) == "mark" {
				depth++
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			switch string(name) {
			case "code":
				return true
			case "strong", "mark":
				depth = max(depth-1, 0)
			}
		}
	}
}

// text adds code text, marking its lines when it is marked.
func (pc *preCode) text(s string, marked bool) {
	for s != "" {
		line, rest, nl := strings.Cut(s, "\n")
		pc.code.WriteString(line)
		if marked && strings.TrimSpace(line) != "" {
			pc.mark(pc.line + 1)
		}
		if !nl {
			return
		}
		pc.code.WriteByte('\n')
		pc.line++
		s = rest
	}
}

// mark marks line n, joining it to the range before it.
func (pc *preCode) mark(n int) {
	if k := len(pc.marked); k > 0 && pc.marked[k-1][1] >= n-1 {
		pc.marked[k-1][1] = n
		return
	}
	pc.marked = append(pc.marked, [2]int{n, n})
}

// write writes the code block as {% code %} does: a figure with its title
// around the highlighted code.
func (pc *preCode) write(w util.BufWriter) {
	cls := "code-block"
	if pc.wrap {
		cls += " wrap"
	}
	fmt.Fprintf(w, `<figure class="%s">`, cls)
	if pc.title != "" {
		fmt.Fprintf(w, `<figcaption class="code-title">%s</figcaption>`, esc(pc.title))
	}
	_, _ = w.WriteString("\n")
	if out, ok := highlight(pc.code.String(), pc.lang, pc.numbers, pc.marked...); ok {
		_, _ = w.WriteString(out)
	} else {
		fmt.Fprintf(w, "<pre class=\"chroma\"><code>%s</code></pre>\n", esc(pc.code.String()))
	}
	_, _ = w.WriteString("</figure>\n")
}

// langOf is the language a class names: "language-yaml" or "lang-yaml".
func langOf(class string) string {
	for _, c := range strings.Fields(class) {
		for _, p := range []string{"language-", "lang-"} {
			if l, ok := strings.CutPrefix(c, p); ok && l != "" {
				return strings.ToLower(l)
			}
		}
	}
	return ""
}
