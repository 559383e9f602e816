// Package gitbookmd renders GitBook's markdown dialect to safe HTML, as
// repositories synced with GitBook hold it: CommonMark with GitHub's
// extensions, GitBook's {% tag %} … {% endtag %} blocks (hints, tabs,
// steppers, code with a title, content references, embeds, files,
// columns, updates, prompts, includes and {% if %} adaptive blocks),
// $$ math $$, mermaid code blocks and the raw HTML GitBook writes
// (figures, card tables, <details>, buttons, icons).
//
// Blocks are goldmark parsers, AST nodes and renderers; code is
// highlighted with chroma. Raw HTML is rendered, then the whole body goes
// once through one bluemonday allow-list, after links and asset paths are
// resolved by the caller's Links: nothing that runs a script survives.
// Every bound is in limits.
package gitbookmd

import (
	"bytes"
	"log/slog"
	"strings"

	"github.com/docspub/platform/services/sites/internal/limits"
	"github.com/yuin/goldmark"
	emoji "github.com/yuin/goldmark-emoji"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/util"
)

// Links resolves what a page points at. Dest is a link's or an image's
// destination as written (relative, absolute, or a URL).
type Links interface {
	// Resolve returns the URL to write for dest, and ok false when dest
	// names a page or file of the site that is not published: the link
	// becomes plain text, the image is left out.
	Resolve(dest string) (url string, ok bool)
}

// Options are what one rendering depends on besides the markdown.
type Options struct {
	// Title is the page's title: a first level-1 heading that repeats it
	// is left out (the layout shows it).
	Title string
	// Links resolves links and images (nil: kept as written, then
	// sanitized).
	Links Links
	// Cond tells whether an {% if %} block's condition holds for the
	// reader (Evaluate); nil, or an error, hides the branch.
	Cond func(expr string) bool
	// PageTitle names the page a link leads to ({% content-ref %} cards
	// show it); false when dest is no page (nil: cards show their link).
	PageTitle func(dest string) (string, bool)
	// Include returns the markdown of an {% include "path" %} (path as
	// written); false when there is none: the include renders nothing.
	Include func(path string) (string, bool)
	// Math typesets a formula's TeX (display: a block) as HTML, which is
	// written as given (not sanitized); false leaves the formula its
	// source (nil: every formula is).
	Math func(tex string, display bool) (html string, ok bool)
	// API renders an API reference block's operation or schemas as HTML
	// (sanitized with the page); "" (or a nil API) shows the block as a
	// card of what it holds.
	API func(ref APIRef) string
	// Log receives what could not be rendered (missing includes); nil is
	// slog.Default().
	Log *slog.Logger
}

// Heading is a heading of the page, for its outline.
type Heading struct {
	Level    int
	ID, Text string
}

// Result is a rendered page.
type Result struct {
	HTML string
	// Headings are the page's level 2 and 3 headings outside blocks.
	Headings []Heading
	// Conditional is true when the page holds {% if %} blocks: the HTML
	// depends on the reader's claims.
	Conditional bool
	// Math is true when the page holds formulas (typeset ones need
	// KaTeX's stylesheet), Diagrams when it holds mermaid diagrams (drawn
	// by Mermaid's script).
	Math, Diagrams bool
}

// Renderer renders pages; it is safe for concurrent use.
type Renderer struct {
	md goldmark.Markdown
}

// New returns a renderer.
func New() *Renderer {
	return &Renderer{md: goldmark.New(
		goldmark.WithExtensions(extension.GFM, emoji.Emoji, dialect{}),
		goldmark.WithRendererOptions(html.WithUnsafe()), // raw HTML is sanitized afterwards
	)}
}

// dialect adds GitBook's blocks, math, headings and code to goldmark.
type dialect struct{}

func (dialect) Extend(m goldmark.Markdown) {
	m.Parser().AddOptions(
		parser.WithBlockParsers(util.Prioritized(blockParser{}, 50), util.Prioritized(mathBlockParser{}, 60)),
		parser.WithInlineParsers(util.Prioritized(mathInlineParser{}, 50)),
		parser.WithASTTransformers(util.Prioritized(transformer{}, 100)),
	)
	m.Renderer().AddOptions(renderer.WithNodeRenderers(util.Prioritized(&nodeRenderer{}, 50)))
}

// state is one rendering's: its options, what the parse found and the
// counters bounding it.
type state struct {
	r           *Renderer
	opts        Options
	depth       int // of includes
	includes    *int
	headings    []Heading
	conditional bool
	blocks      int
	tabs        *int // tab groups of the page, includes' too
	ids         *headingIDs
	// evaluating: the parse only settles {% if %} blocks (Evaluate), the
	// transformer leaves the tree as parsed.
	evaluating bool
}

var stateKey = parser.NewContextKey()

// Render renders a page's markdown.
func (r *Renderer) Render(src string, opts Options) Result {
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	n, tabs := 0, 0
	st := &state{r: r, opts: opts, includes: &n, tabs: &tabs, ids: newHeadingIDs()}
	body, math := typeset(sanitize(r.render(src, st), opts.Links), opts.Math)
	return Result{HTML: body, Headings: st.headings, Conditional: st.conditional,
		Math: math, Diagrams: strings.Contains(body, `<pre class="mermaid">`)}
}

// render renders markdown to unsanitized HTML (includes render through
// it), its {% if %} blocks settled first (Evaluate).
func (r *Renderer) render(src string, st *state) string {
	src, conditional := r.evaluate(stripFrontMatter(src), st.opts)
	st.conditional = st.conditional || conditional
	ctx := parser.NewContext()
	ctx.Set(stateKey, st)
	var b bytes.Buffer
	if err := r.md.Convert([]byte(src), &b, parser.WithContext(ctx)); err != nil {
		return "" // goldmark's HTML writer fails only when the buffer does
	}
	return b.String()
}

// stripFrontMatter leaves out a YAML front matter ("---" lines around it).
func stripFrontMatter(src string) string {
	if !strings.HasPrefix(src, "---\n") && !strings.HasPrefix(src, "---\r\n") {
		return src
	}
	rest := src[strings.IndexByte(src, '\n')+1:]
	for off := 0; off < len(rest); {
		end := strings.IndexByte(rest[off:], '\n')
		line := rest[off:]
		if end >= 0 {
			line = rest[off : off+end]
		}
		if strings.TrimRight(line, "\r ") == "---" {
			if end < 0 {
				return ""
			}
			return rest[off+end+1:]
		}
		if end < 0 {
			break
		}
		off += end + 1
	}
	return src
}

func stateOf(pc parser.Context) *state {
	if st, ok := pc.Get(stateKey).(*state); ok {
		return st
	}
	n, tabs := 0, 0
	return &state{r: New(), includes: &n, tabs: &tabs, ids: newHeadingIDs(), opts: Options{Log: slog.Default()}}
}

// include renders an include's markdown within the page, bounded.
func (r *Renderer) include(path string, st *state) (string, bool) {
	if st.opts.Include == nil {
		return "", false
	}
	if st.depth >= limits.ReaderIncludeDepth || *st.includes >= limits.ReaderIncludes {
		st.opts.Log.Warn("include not rendered: too many or too deep", "include", path)
		return "", false
	}
	*st.includes++
	src, ok := st.opts.Include(path)
	if !ok {
		st.opts.Log.Warn("include not found", "include", path)
		return "", false
	}
	inner := &state{r: r, opts: st.opts, depth: st.depth + 1, includes: st.includes, tabs: st.tabs, ids: st.ids}
	inner.opts.Title = ""
	out := r.render(src, inner)
	st.conditional = st.conditional || inner.conditional
	return out, true
}
