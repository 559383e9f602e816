package reader

import (
	"bytes"
	"strings"

	"github.com/docspub/platform/services/sites/internal/limits"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// markdown renders pages: CommonMark with GitHub's extensions (tables,
// strikethrough, autolinks, task lists), an id and an anchor link on each
// heading, links and images to the revision's files ("files/<id>", as
// imports write them) made URLs under the site. Raw HTML is not rendered
// (goldmark leaves it out unless told otherwise) and links with a
// script-running scheme (javascript:, vbscript:, data: but images) are
// emptied: no script written in content runs.
type markdown struct {
	md goldmark.Markdown
}

// filesKey holds, in a parse's context, the URL prefix of the revision's
// files; titleKey the page's title.
var (
	filesKey = parser.NewContextKey()
	titleKey = parser.NewContextKey()
)

func newMarkdown() *markdown {
	return &markdown{md: goldmark.New(
		goldmark.WithExtensions(extension.GFM),
		goldmark.WithParserOptions(parser.WithAutoHeadingID(),
			parser.WithASTTransformers(util.Prioritized(rewriter{}, 100))),
	)}
}

// render renders a page's markdown; files is the URL prefix its files are
// served under. A first heading that repeats the page's title (imports
// keep the page's <h1>) is left out: the layout shows the title. Past
// limits.ReaderPageBytes the markdown is cut at a line end and cut says so.
func (m *markdown) render(src, title, files string) (html string, cut bool) {
	if len(src) > limits.ReaderPageBytes {
		src = src[:limits.ReaderPageBytes]
		if i := strings.LastIndexByte(src, '\n'); i > 0 {
			src = src[:i]
		}
		cut = true
	}
	ctx := parser.NewContext()
	ctx.Set(filesKey, files)
	ctx.Set(titleKey, title)
	var b bytes.Buffer
	if err := m.md.Convert([]byte(src), &b, parser.WithContext(ctx)); err != nil {
		return "", cut // goldmark's HTML writer fails only when the buffer does
	}
	return b.String(), cut
}

// rewriter points links and images at files under the site and gives
// headings an anchor link.
type rewriter struct{}

func (rewriter) Transform(doc *ast.Document, reader text.Reader, pc parser.Context) {
	files, _ := pc.Get(filesKey).(string)
	title, _ := pc.Get(titleKey).(string)
	if h, ok := doc.FirstChild().(*ast.Heading); ok && h.Level == 1 && title != "" &&
		strings.TrimSpace(plainText(h, reader.Source())) == strings.TrimSpace(title) {
		doc.RemoveChild(doc, h)
	}
	var headings []*ast.Heading
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			n.Destination = fileURL(n.Destination, files)
		case *ast.Image:
			n.Destination = fileURL(n.Destination, files)
		case *ast.Heading:
			headings = append(headings, n)
		}
		return ast.WalkContinue, nil
	})
	for _, h := range headings {
		id, ok := h.AttributeString("id")
		raw, isBytes := id.([]byte)
		if !ok || !isBytes {
			continue
		}
		a := ast.NewLink()
		a.Destination = append([]byte("#"), raw...)
		a.SetAttributeString("class", []byte("anchor"))
		a.SetAttributeString("aria-label", []byte("Link to this section"))
		a.AppendChild(a, ast.NewString([]byte("#")))
		h.AppendChild(h, a)
	}
}

// fileURL maps "files/<id>" to the file's URL under the site.
func fileURL(dest []byte, files string) []byte {
	id, ok := bytes.CutPrefix(dest, []byte("files/"))
	if !ok || files == "" || len(id) == 0 || bytes.ContainsAny(id, "/?#") {
		return dest
	}
	return append([]byte(files), id...)
}

// plainText is the text of a node's inline children.
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if t, ok := c.(*ast.Text); ok && entering {
			b.Write(t.Segment.Value(src))
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}
