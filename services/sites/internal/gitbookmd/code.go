package gitbookmd

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"strconv"
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
// GitHub dark's in the dark scheme: the reader's system's
// (prefers-color-scheme) unless the page is set light (data-theme="light"
// on <html>), or the one the reader picked (data-theme="dark").
// Chroma writes a style's rule for a class only where it differs from the
// style's text, so a class GitHub's light style colours and its dark
// style leaves as text would keep its light colour (near-black on the dark
// background): the dark rules give such classes the dark text colour.
// A token colour under WCAG's 4.5:1 on its scheme's background is moved
// towards black (light) or white (dark) until it is readable.
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
	darkCSS := readable(dark.String())
	return readable(light.String()) +
		"@media (prefers-color-scheme: dark){" + scoped(darkCSS, ":root:not([data-theme=light]) ") + "}" +
		scoped(darkCSS, ":root[data-theme=dark] ")
}()

// cssRule is a rule of chroma's stylesheet for a class of .chroma: the
// class and the declarations.
var (
	cssRule    = regexp.MustCompile(`\.chroma \.([A-Za-z0-9_-]+) \{([^}]*)\}`)
	textColour = regexp.MustCompile(`(^|[^-])color: #`)
	ruleColour = regexp.MustCompile(`(^|[^-])color: (#[0-9a-fA-F]{6})`)
	background = regexp.MustCompile(`\.chroma \{[^}]*background-color: (#[0-9a-fA-F]{6})`)
	selector   = regexp.MustCompile(`(?m)(^|\*/ )\.(bg|chroma)\b`)
)

// glyphless are classes of chroma's stylesheet whose colour is no token's
// glyphs (line numbers, highlighted lines, whitespace) or that bring their
// own background (errors, diff lines).
var glyphless = map[string]bool{"ln": true, "lnt": true, "hl": true, "w": true, "err": true, "gd": true, "gi": true}

// readable moves each token colour of a chroma stylesheet that has less
// than 4.5:1 on the stylesheet's background towards black or white until
// it has.
func readable(css string) string {
	bg := background.FindStringSubmatch(css)
	if bg == nil {
		return css
	}
	towards := "#000000"
	if luminance(bg[1]) < 0.18 {
		towards = "#ffffff"
	}
	return cssRule.ReplaceAllStringFunc(css, func(rule string) string {
		m := cssRule.FindStringSubmatch(rule)
		c := ruleColour.FindStringSubmatch(m[2])
		if glyphless[m[1]] || c == nil || contrast(c[2], bg[1]) >= 4.5 {
			return rule
		}
		colour := c[2]
		for i := 1; i <= 20 && contrast(colour, bg[1]) < 4.5; i++ {
			colour = mix(c[2], towards, float64(i)/20)
		}
		return strings.Replace(rule, c[0], c[1]+"color: "+colour, 1)
	})
}

// scoped puts prefix before every selector of a chroma stylesheet.
func scoped(css, prefix string) string {
	return selector.ReplaceAllString(css, "${1}"+prefix+".$2")
}

// mix is the #rrggbb colour a share t of the way from a to b.
func mix(a, b string, t float64) string {
	out := "#"
	for i := 1; i < 7; i += 2 {
		x, _ := strconv.ParseUint(a[i:i+2], 16, 8)
		y, _ := strconv.ParseUint(b[i:i+2], 16, 8)
		out += fmt.Sprintf("%02x", int(math.Round(float64(x)+(float64(y)-float64(x))*t)))
	}
	return out
}

// contrast is WCAG's contrast ratio of two #rrggbb colours.
func contrast(a, b string) float64 {
	la, lb := luminance(a), luminance(b)
	return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
}

// luminance is WCAG's relative luminance of a #rrggbb colour.
func luminance(hex string) float64 {
	var l float64
	for i, w := range []float64{0.2126, 0.7152, 0.0722} {
		v, _ := strconv.ParseUint(hex[1+2*i:3+2*i], 16, 8)
		c := float64(v) / 255
		if c <= 0.03928 {
			c /= 12.92
		} else {
			c = math.Pow((c+0.055)/1.055, 2.4)
		}
		l += w * c
	}
	return l
}
