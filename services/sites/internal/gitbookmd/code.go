package gitbookmd

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
	"github.com/docspub/platform/services/sites/internal/limits"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/util"
)

// code writes a code block highlighted by chroma (classes, styled by
// CSS), with line numbers when its {% code %} asks; mermaid diagrams and
// code past limits.ReaderHighlightBytes are written plain.
func (r *nodeRenderer) code(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkSkipChildren, nil
	}
	var body bytes.Buffer
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		body.Write(seg.Value(src))
	}
	lang := ""
	if fc, ok := n.(*ast.FencedCodeBlock); ok && fc.Info != nil {
		lang = strings.ToLower(strings.Fields(string(fc.Info.Segment.Value(src)) + " ")[0])
	}
	numbers := false
	if b, ok := n.Parent().(*Block); ok && b.Name == "code" {
		numbers = b.Attr("lineNumbers") == "true"
	}
	if lang == "mermaid" {
		fmt.Fprintf(w, "<pre class=\"mermaid\"><code class=\"language-mermaid\">%s</code></pre>\n", esc(body.String()))
		return ast.WalkSkipChildren, nil
	}
	if body.Len() <= limits.ReaderHighlightBytes {
		if out, ok := highlight(body.String(), lang, numbers); ok {
			_, _ = w.WriteString(out)
			return ast.WalkSkipChildren, nil
		}
	}
	cls := ""
	if lang != "" {
		cls = fmt.Sprintf(` class="language-%s"`, esc(lang))
	}
	fmt.Fprintf(w, "<pre class=\"chroma\"><code%s>%s</code></pre>\n", cls, esc(body.String()))
	return ast.WalkSkipChildren, nil
}

var (
	plainFormatter   = chromahtml.New(chromahtml.WithClasses(true), chromahtml.TabWidth(4))
	numbersFormatter = chromahtml.New(chromahtml.WithClasses(true), chromahtml.TabWidth(4), chromahtml.WithLineNumbers(true))
)

// highlight highlights code in lang, with line numbers, marking the
// lines of marked (from 1).
func highlight(code, lang string, numbers bool, marked ...[2]int) (string, bool) {
	lexer := lexers.Get(lang)
	if lexer == nil {
		lexer = lexers.Fallback
	}
	lexer = chroma.Coalesce(lexer)
	it, err := lexer.Tokenise(nil, code)
	if err != nil {
		return "", false
	}
	f := plainFormatter
	switch {
	case len(marked) > 0:
		f = chromahtml.New(chromahtml.WithClasses(true), chromahtml.TabWidth(4), chromahtml.WithLineNumbers(numbers),
			chromahtml.HighlightLines(marked))
	case numbers:
		f = numbersFormatter
	}
	var b strings.Builder
	if err := f.Format(&b, styles.Get("github"), it); err != nil {
		return "", false
	}
	b.WriteByte('\n')
	return b.String(), true
}

// CodeCSS is the stylesheet of highlighted code: GitHub's colours, and
// GitHub dark's when the reader prefers a dark scheme.
// Chroma writes a style's rule for a class only where it differs from the
// style's text, so a class GitHub's light style colours and its dark
// style leaves as text would keep its light colour (near-black on the dark
// background): the dark section gives such classes the dark text colour.
var CodeCSS = func() string {
	var light, dark bytes.Buffer
	_ = plainFormatter.WriteCSS(&light, styles.Get("github"))
	darkStyle := styles.Get("github-dark")
	_ = plainFormatter.WriteCSS(&dark, darkStyle)
	coloured := map[string]bool{}
	for _, m := range cssRule.FindAllStringSubmatch(dark.String(), -1) {
		coloured[m[1]] = textColour.MatchString(m[2])
	}
	text := darkStyle.Get(chroma.Text).Colour.String()
	for _, m := range cssRule.FindAllStringSubmatch(light.String(), -1) {
		if !coloured[m[1]] && textColour.MatchString(m[2]) {
			fmt.Fprintf(&dark, ".chroma .%s { color: %s }\n", m[1], text)
		}
	}
	return light.String() + "@media (prefers-color-scheme: dark){" + dark.String() + "}"
}()

// cssRule is a rule of chroma's stylesheet for a class of .chroma: the
// class and the declarations.
var (
	cssRule    = regexp.MustCompile(`\.chroma \.([A-Za-z0-9_-]+) \{([^}]*)\}`)
	textColour = regexp.MustCompile(`(^|[^-])color: #`)
)
