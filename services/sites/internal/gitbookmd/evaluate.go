package gitbookmd

import (
	"cmp"
	"slices"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// Evaluate settles a page's {% if %} blocks for a reader: of each block,
// the branch whose condition cond holds first ({% if %}, {% elif %}, then
// {% else %}) is kept without its tags, the others are cut out, nested
// blocks within the kept branch likewise. A condition cond refuses, or nil
// cond, is false. A block without its {% endif %} cuts the rest of the
// page, one past limits.ReaderBlockDepth or limits.ReaderBlocks shows no
// branch: what cannot be settled is hidden. Tags in code are code, front
// matter is kept as written. conditional tells whether the page held
// {% if %} blocks.
//
// Every output of a page reads it through Evaluate: its HTML (Render),
// its markdown, llms-full.txt and the reader's search, so that a branch
// hidden from a reader is hidden from them everywhere.
func (r *Renderer) Evaluate(src string, cond func(string) bool) (out string, conditional bool) {
	body := stripFrontMatter(src)
	fm := src[:len(src)-len(body)]
	if !strings.Contains(body, "{%") {
		return src, false
	}
	out, conditional = r.evaluate(body, Options{Cond: cond})
	return fm + out, conditional
}

// evaluate is Evaluate of markdown without front matter.
func (r *Renderer) evaluate(src string, opts Options) (string, bool) {
	b := []byte(src)
	n, tabs := 0, 0
	st := &state{r: r, opts: opts, includes: &n, tabs: &tabs, ids: newHeadingIDs(), evaluating: true}
	ctx := parser.NewContext()
	ctx.Set(stateKey, st)
	doc := r.md.Parser().Parse(text.NewReader(b), parser.WithContext(ctx))
	var cuts []span
	conditional := settle(doc, b, st, &cuts)
	if len(cuts) == 0 {
		return src, conditional
	}
	slices.SortFunc(cuts, func(a, b span) int { return cmp.Compare(a.from, b.from) })
	var out strings.Builder
	at := 0
	for _, c := range cuts {
		if c.from > at {
			out.Write(b[at:c.from])
		}
		at = max(at, c.to)
	}
	if at < len(b) {
		out.Write(b[at:])
	}
	return out.String(), conditional
}

// span is a part of the source [from, to) cut out.
type span struct{ from, to int }

// settle adds the cuts of the {% if %} blocks within n; true when it
// found one.
func settle(n ast.Node, src []byte, st *state, cuts *[]span) bool {
	found := false
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if b, ok := c.(*Block); ok && b.Name == "if" {
			settleIf(b, src, st, cuts)
			found = true
			continue
		}
		found = settle(c, src, st, cuts) || found
	}
	return found
}

// arm is a branch of an {% if %} block: its condition, its tag and its
// nodes.
type arm struct {
	cond   string
	always bool // {% else %}
	at     int  // of its tag
	nodes  []ast.Node
}

// settleIf adds the cuts of an {% if %} block: its tags, the branches not
// chosen (whole lines), and those within the chosen one.
func settleIf(b *Block, src []byte, st *state, cuts *[]span) {
	if b.at < 0 {
		return
	}
	if b.end < 0 {
		*cuts = append(*cuts, span{b.at, len(src)})
		return
	}
	arms := []*arm{{cond: strings.TrimSpace(b.Args), at: b.at}}
	for c := b.FirstChild(); c != nil; c = c.NextSibling() {
		if m, ok := c.(*Block); ok && m.marker != "" && m.at >= 0 {
			arms = append(arms, &arm{cond: strings.TrimSpace(m.Args), always: m.marker == "else", at: m.at})
			continue
		}
		a := arms[len(arms)-1]
		a.nodes = append(a.nodes, c)
	}
	chosen := -1
	if !b.refused {
		chosen = choose(arms, st.opts.Cond)
	}
	if chosen < 0 {
		*cuts = append(*cuts, span{tagCut(src, b.at).from, tagCut(src, b.end).to})
		return
	}
	for i, a := range arms {
		*cuts = append(*cuts, tagCut(src, a.at))
		next := b.end
		if i+1 < len(arms) {
			next = arms[i+1].at
		}
		if i != chosen {
			*cuts = append(*cuts, span{min(lineEnd(src, a.at)+1, len(src)), lineStart(src, next)})
			continue
		}
		for _, n := range a.nodes {
			if c, ok := n.(*Block); ok && c.Name == "if" {
				settleIf(c, src, st, cuts)
				continue
			}
			settle(n, src, st, cuts)
		}
	}
	*cuts = append(*cuts, tagCut(src, b.end))
}

// tagCut is the cut of the tag at at, up to its line's end: the line
// stays, blank (or a quote's "> "), and separates blocks as the tag did.
func tagCut(src []byte, at int) span { return span{at, lineEnd(src, at)} }

// choose is the index of the first arm whose condition holds (an else
// always does); -1 when none. A nil cond holds for none.
func choose(arms []*arm, cond func(string) bool) int {
	for i, a := range arms {
		if a.always || (cond != nil && cond(a.cond)) {
			return i
		}
	}
	return -1
}

// lineEnd is where the line holding at ends (its "\n", or the end).
func lineEnd(src []byte, at int) int {
	for i := at; i < len(src); i++ {
		if src[i] == '\n' {
			return i
		}
	}
	return len(src)
}

// lineStart is where the line holding at starts.
func lineStart(src []byte, at int) int {
	for i := min(at, len(src)); i > 0; i-- {
		if src[i-1] == '\n' {
			return i
		}
	}
	return 0
}
