package gitbookmd

import (
	"bytes"
	"regexp"
	"strings"

	"github.com/docspub/platform/services/sites/internal/limits"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// KindBlock is the kind of a {% tag %} block.
var KindBlock = ast.NewNodeKind("GitBookBlock")

// Block is a {% name args %} … {% endname %} block, or a tag without end
// ({% include %}, an {% embed %} without {% endembed %}).
type Block struct {
	ast.BaseBlock
	// Name is the tag's name ("hint", "tabs", …); "" for a stray or
	// ignored tag, which renders nothing.
	Name string
	// Args is what follows the name, as written ({% if %}'s condition,
	// {% include %}'s path); Attrs its key="value" pairs.
	Args  string
	Attrs map[string]string
	leaf  bool
	open  bool
	// marker is "else" or "elif" for those tags (Name "").
	marker string
	// at is where the opening tag's "{%" is in the source, end where the
	// end tag's is (-1: no end tag was found).
	at, end int
	// refused is an {% if %} past limits.ReaderBlockDepth or
	// limits.ReaderBlocks: it shows no branch; the tags within it are not
	// parsed, nest counts the {% if %} lines within it to find its end.
	refused bool
	nest    int
	// Set while transforming.
	html  string // an include's rendering
	title string // a content-ref's page title
	group int    // a tabs block's number on the page
	index int    // a tab's place among its tabs
}

// Kind implements ast.Node.
func (b *Block) Kind() ast.NodeKind { return KindBlock }

// Dump implements ast.Node.
func (b *Block) Dump(src []byte, level int) {
	ast.DumpHelper(b, src, level, map[string]string{"Name": b.Name, "Args": b.Args}, nil)
}

// Attr is an attribute's value ("" when absent).
func (b *Block) Attr(k string) string { return b.Attrs[k] }

// tagLine matches a line that is a tag alone: {% name args %}.
var tagLine = regexp.MustCompile(`^\s{0,3}\{%-?\s*([A-Za-z][\w-]*)\s*(.*?)\s*-?%\}\s*$`)

// attrPair matches key="value" (also with single, curly or no quotes).
var attrPair = regexp.MustCompile(`([A-Za-z][\w-]*)\s*=\s*(?:"([^"“”]*)["“”]|'([^']*)'|“([^”"]*)[”"]|([^\s"'“”]+))`)

// tag reads a line as a tag.
func tag(line []byte) (name, args string, ok bool) {
	m := tagLine.FindSubmatch(bytes.TrimRight(line, "\r\n"))
	if m == nil {
		return "", "", false
	}
	return string(m[1]), string(m[2]), true
}

func parseAttrs(args string) map[string]string {
	out := map[string]string{}
	for _, m := range attrPair.FindAllStringSubmatch(args, 32) {
		v := m[2] + m[3] + m[4] + m[5]
		out[m[1]] = v
	}
	return out
}

// leafTags never have an end; optionalEnd tags have one only sometimes.
var (
	leafTags    = map[string]bool{"include": true}
	optionalEnd = map[string]bool{"embed": true, "file": true}
)

// blockParser parses {% tag %} lines into Blocks holding the lines up to
// their end tag.
type blockParser struct{}

func (blockParser) Trigger() []byte { return []byte{'{'} }

func (blockParser) Open(parent ast.Node, reader text.Reader, pc parser.Context) (ast.Node, parser.State) {
	line, seg := reader.PeekLine()
	name, args, ok := tag(line)
	if !ok || inRefused(parent) {
		return nil, parser.NoChildren
	}
	b := &Block{Name: name, Args: args, Attrs: parseAttrs(args), at: tagAt(reader.Source(), seg.Start), end: -1}
	reader.AdvanceToEOL()
	st := stateOf(pc)
	depth := 0
	for p := parent; p != nil; p = p.Parent() {
		if _, in := p.(*Block); in {
			depth++
		}
	}
	st.blocks++
	switch {
	case name == "if" && (depth >= limits.ReaderBlockDepth || st.blocks > limits.ReaderBlocks):
		// Too deep or too many: no branch is shown (fail closed).
		b.refused = true
	case name == "else" || name == "elif":
		// A branch of the {% if %} it is in (else nothing).
		b.Name, b.marker, b.leaf = "", name, true
	case strings.HasPrefix(name, "end"):
		// A stray end tag: nothing.
		b.Name, b.leaf = "", true
	case depth >= limits.ReaderBlockDepth || st.blocks > limits.ReaderBlocks:
		// Too deep or too many: the tag is left out, its content shown.
		b.Name, b.leaf = "", true
	case leafTags[name]:
		b.leaf = true
	case optionalEnd[name]:
		b.leaf = !endsAhead(reader, name)
	}
	if b.leaf {
		return b, parser.NoChildren
	}
	b.open = true
	return b, parser.HasChildren
}

// endTags and openTags find the end and the next opening of the tags
// whose end is optional.
var endTags, openTags = func() (map[string]*regexp.Regexp, map[string]*regexp.Regexp) {
	end, open := map[string]*regexp.Regexp{}, map[string]*regexp.Regexp{}
	for name := range optionalEnd {
		end[name] = regexp.MustCompile(`\{%-?\s*end` + regexp.QuoteMeta(name) + `\s*-?%\}`)
		open[name] = regexp.MustCompile(`\{%-?\s*` + regexp.QuoteMeta(name) + `\s`)
	}
	return end, open
}()

// endsAhead tells whether a {% endname %} comes before the next {% name
// (within limits.ReaderBlockLookahead).
func endsAhead(reader text.Reader, name string) bool {
	_, seg := reader.Position()
	src := reader.Source()
	rest := src[min(seg.Start, len(src)):]
	if len(rest) > limits.ReaderBlockLookahead {
		rest = rest[:limits.ReaderBlockLookahead]
	}
	end := endTags[name].FindIndex(rest)
	if end == nil {
		return false
	}
	next := openTags[name].FindIndex(rest)
	return next == nil || end[0] < next[0]
}

func (blockParser) Continue(node ast.Node, reader text.Reader, pc parser.Context) parser.State {
	b := node.(*Block)
	if b.leaf {
		return parser.Close
	}
	line, seg := reader.PeekLine()
	name, _, ok := tag(line)
	if !ok || innerOpen(b, pc) {
		return parser.Continue | parser.HasChildren
	}
	if b.refused && name == "if" {
		b.nest++
	}
	if name == "end"+b.Name {
		if b.refused && b.nest > 0 {
			b.nest--
			return parser.Continue | parser.HasChildren
		}
		b.end = tagAt(reader.Source(), seg.Start)
		reader.AdvanceToEOL()
		return parser.Close
	}
	return parser.Continue | parser.HasChildren
}

// inRefused tells whether n is within a refused {% if %}.
func inRefused(n ast.Node) bool {
	for ; n != nil; n = n.Parent() {
		if b, ok := n.(*Block); ok && b.refused {
			return true
		}
	}
	return false
}

// tagAt is where the tag of the line starting at from begins (its "{").
func tagAt(src []byte, from int) int {
	if i := bytes.IndexByte(src[min(from, len(src)):], '{'); i >= 0 {
		return from + i
	}
	return -1
}

// innerOpen tells whether a block opened inside b is still open and may
// own the line: a block of the same name, or fenced code.
func innerOpen(b *Block, pc parser.Context) bool {
	inside := false
	for _, o := range pc.OpenedBlocks() {
		if o.Node == b {
			inside = true
			continue
		}
		if !inside {
			continue
		}
		switch n := o.Node.(type) {
		case *Block:
			if n.open && n.Name == b.Name {
				return true
			}
		case *ast.FencedCodeBlock:
			return true
		}
	}
	return false
}

func (blockParser) Close(node ast.Node, reader text.Reader, pc parser.Context) {
	node.(*Block).open = false
}

func (blockParser) CanInterruptParagraph() bool { return true }

func (blockParser) CanAcceptIndentedLine() bool { return false }
