package gitbookmd

import (
	"bytes"
	"fmt"
	"html"
	"regexp"
	"strings"

	"github.com/docspub/platform/services/sites/internal/limits"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Math is written as GitBook writes it, $$TeX$$ inline and on lines of
// its own, and rendered as its TeX source in a math element; once the
// page is sanitized, each is typeset by Options.Math (KaTeX's HTML and
// MathML, which the allow-list would not keep), or stays its source.
var (
	kindMathBlock  = ast.NewNodeKind("MathBlock")
	kindMathInline = ast.NewNodeKind("MathInline")
)

type mathBlock struct {
	ast.BaseBlock
	closed bool
}

func (n *mathBlock) Kind() ast.NodeKind         { return kindMathBlock }
func (n *mathBlock) IsRaw() bool                { return true }
func (n *mathBlock) Dump(src []byte, level int) { ast.DumpHelper(n, src, level, nil, nil) }

// mathBlockParser reads a block that starts with a line "$$…" and ends
// with a line ending in "$$".
type mathBlockParser struct{}

func (mathBlockParser) Trigger() []byte { return []byte{'$'} }

func (mathBlockParser) Open(parent ast.Node, reader text.Reader, pc parser.Context) (ast.Node, parser.State) {
	line, seg := reader.PeekLine()
	t := bytes.TrimSpace(line)
	if !bytes.HasPrefix(t, []byte("$$")) {
		return nil, parser.NoChildren
	}
	if i := bytes.Index(t[2:], []byte("$$")); i >= 0 && i != len(t)-4 {
		return nil, parser.NoChildren // inline math in a paragraph
	}
	n := &mathBlock{}
	start := seg.Start + bytes.Index(line, []byte("$$")) + 2
	inner := t[2:]
	if len(inner) >= 2 && bytes.HasSuffix(inner, []byte("$$")) {
		// $$…$$ on one line: a block only when nothing follows.
		stop := start + len(inner) - 2
		n.Lines().Append(text.NewSegment(start, stop))
		n.closed = true
		reader.AdvanceToEOL()
		return n, parser.NoChildren
	}
	if len(bytes.TrimSpace(inner)) > 0 {
		n.Lines().Append(text.NewSegment(start, seg.Stop))
	}
	reader.AdvanceToEOL()
	return n, parser.NoChildren
}

func (mathBlockParser) Continue(node ast.Node, reader text.Reader, pc parser.Context) parser.State {
	n := node.(*mathBlock)
	if n.closed {
		return parser.Close
	}
	line, seg := reader.PeekLine()
	if line == nil {
		return parser.Close
	}
	t := bytes.TrimRight(line, " \t\r\n")
	if bytes.HasSuffix(t, []byte("$$")) {
		if len(t) > 2 {
			n.Lines().Append(text.NewSegment(seg.Start, seg.Start+len(t)-2))
		}
		reader.AdvanceToEOL()
		return parser.Close
	}
	n.Lines().Append(seg)
	reader.AdvanceToEOL()
	return parser.Continue | parser.NoChildren
}

func (mathBlockParser) Close(ast.Node, text.Reader, parser.Context) {}
func (mathBlockParser) CanInterruptParagraph() bool                 { return false }
func (mathBlockParser) CanAcceptIndentedLine() bool                 { return false }

type mathInline struct {
	ast.BaseInline
	tex []byte
}

func (n *mathInline) Kind() ast.NodeKind         { return kindMathInline }
func (n *mathInline) Dump(src []byte, level int) { ast.DumpHelper(n, src, level, nil, nil) }

// mathInlineParser reads $$TeX$$ within a line.
type mathInlineParser struct{}

func (mathInlineParser) Trigger() []byte { return []byte{'$'} }

func (mathInlineParser) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	line, _ := block.PeekLine()
	if !bytes.HasPrefix(line, []byte("$$")) {
		return nil
	}
	end := bytes.Index(line[2:], []byte("$$"))
	if end <= 0 {
		return nil
	}
	n := &mathInline{tex: append([]byte(nil), line[2:2+end]...)}
	block.Advance(end + 4)
	return n
}

func (r *nodeRenderer) mathBlock(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkSkipChildren, nil
	}
	var b bytes.Buffer
	for i := 0; i < n.Lines().Len(); i++ {
		s := n.Lines().At(i)
		b.Write(s.Value(src))
	}
	fmt.Fprintf(w, "<div class=\"math math-display\" role=\"math\"><code class=\"language-math\">%s</code></div>\n",
		esc(string(bytes.TrimSpace(b.Bytes()))))
	return ast.WalkSkipChildren, nil
}

func (r *nodeRenderer) mathInline(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		fmt.Fprintf(w, `<code class="math math-inline" role="math">%s</code>`, esc(string(n.(*mathInline).tex)))
	}
	return ast.WalkSkipChildren, nil
}

// formula finds the math elements the renderer writes, once sanitized:
// an inline one (1: its escaped TeX) or a block (2).
var formula = regexp.MustCompile(`<code class="math math-inline" role="math">([^<]*)</code>|` +
	`<div class="math math-display" role="math"><code class="language-math">([^<]*)</code></div>`)

// typeset replaces the page's formulas by what math makes of them (HTML
// of its own, trusted: it is not sanitized), the first limits.ReaderFormulas
// of them, each up to limits.ReaderFormulaBytes; a formula math refuses,
// or past a bound, stays its source. It tells whether the page has math.
func typeset(body string, math func(tex string, display bool) (string, bool)) (string, bool) {
	if !strings.Contains(body, `role="math"`) {
		return body, false
	}
	found, n := false, 0
	out := formula.ReplaceAllStringFunc(body, func(m string) string {
		found = true
		if math == nil || n >= limits.ReaderFormulas {
			return m
		}
		sub := formula.FindStringSubmatch(m)
		display := sub[1] == "" && strings.HasPrefix(m, "<div")
		tex := html.UnescapeString(sub[1] + sub[2])
		if len(tex) > limits.ReaderFormulaBytes {
			return m
		}
		n++
		h, ok := math(tex, display)
		if !ok {
			return m
		}
		if display {
			return `<div class="math math-display">` + h + `</div>`
		}
		return `<span class="math math-inline">` + h + `</span>`
	})
	return out, found
}
