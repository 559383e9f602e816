package gitbookmd

import (
	"bytes"
	"github.com/docspub/platform/libs/slug"
	"regexp"
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"golang.org/x/net/html"
)

// transformer settles what the page shows before it renders: includes are
// rendered, tabs numbered, headings given ids made of their text and an
// anchor link, API blocks rendered (legacy {% swagger %} ones last, their
// parts transformed). {% if %} blocks were settled before the parse
// (Evaluate): one left is removed.
type transformer struct{}

func (transformer) Transform(doc *ast.Document, reader text.Reader, pc parser.Context) {
	st := stateOf(pc)
	if st.evaluating {
		return
	}
	src := reader.Source()
	if h, ok := doc.FirstChild().(*ast.Heading); ok && h.Level == 1 && st.opts.Title != "" &&
		strings.TrimSpace(plainText(h, src)) == strings.TrimSpace(st.opts.Title) {
		doc.RemoveChild(doc, h)
	}
	var remove []ast.Node
	var headings []*ast.Heading
	var legacy []*Block
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *Block:
			switch n.Name {
			case "if":
				st.conditional = true
				remove = append(remove, n)
				return ast.WalkSkipChildren, nil
			case "include":
				n.html, _ = st.r.include(includePath(n.Args), st)
			case "openapi", "openapi-operation", "openapi-schemas", "swagger":
				if isLegacySwagger(n) {
					legacy = append(legacy, n) // rendered once its parts are transformed
					break
				}
				if ref, ok := apiRef(n); ok && st.opts.API != nil {
					n.html = st.opts.API(ref)
				}
				return ast.WalkSkipChildren, nil
			case "content-ref":
				if st.opts.PageTitle != nil {
					if title, ok := st.opts.PageTitle(n.Attr("url")); ok {
						n.title = title
					}
				}
			case "tabs":
				*st.tabs++
				n.group = *st.tabs
				i := 0
				for c := n.FirstChild(); c != nil; c = c.NextSibling() {
					if t, ok := c.(*Block); ok && t.Name == "tab" {
						t.group, t.index = n.group, i
						i++
					}
				}
			}
		case *ast.Heading:
			headings = append(headings, n)
		case *ast.Link:
			mention(n, st)
		}
		return ast.WalkContinue, nil
	})
	for _, n := range remove {
		n.Parent().RemoveChild(n.Parent(), n)
	}
	for _, h := range headings {
		if h.Parent() != nil {
			anchorHeading(h, src, st)
		}
	}
	for _, n := range legacy {
		if n.Parent() != nil {
			n.html = st.r.legacySwagger(n, src)
		}
	}
}

// anchorHeading gives h its id (its explicit one, else one made of its
// text), an anchor link to it, and a place in the page's outline.
func anchorHeading(h *ast.Heading, src []byte, st *state) {
	txt := strings.TrimSpace(plainText(h, src))
	id, ok := explicitID(h, src)
	if ok && !st.ids.used[id] {
		st.ids.used[id] = true
	} else {
		id = st.ids.make(txt)
	}
	h.SetAttributeString("id", []byte(id))
	if _, top := h.Parent().(*ast.Document); top && st.depth == 0 && (h.Level == 2 || h.Level == 3) {
		st.headings = append(st.headings, Heading{Level: h.Level, ID: id, Text: txt})
	}
	a := ast.NewLink()
	a.Destination = []byte("#" + id)
	a.SetAttributeString("class", []byte("anchor"))
	a.AppendChild(a, ast.NewString([]byte("#")))
	h.AppendChild(h, a)
}

// mention shows a GitBook mention, [file.md](file.md "mention"), as
// GitBook does: titled with the page it leads to (PageTitle). A mention of
// no page keeps its text; the "mention" title is never shown.
func mention(n *ast.Link, st *state) {
	if string(n.Title) != "mention" {
		return
	}
	n.Title = nil
	if st.opts.PageTitle == nil {
		return
	}
	title, ok := st.opts.PageTitle(string(n.Destination))
	if !ok || strings.TrimSpace(title) == "" {
		return
	}
	for c := n.FirstChild(); c != nil; {
		next := c.NextSibling()
		n.RemoveChild(n, c)
		c = next
	}
	n.AppendChild(n, ast.NewString([]byte(title)))
}

// explicitID finds the anchor GitBook writes in a heading,
// "Title <a href="#x" id="x"></a>", removes it and returns its id.
func explicitID(h *ast.Heading, src []byte) (string, bool) {
	for c := h.FirstChild(); c != nil; c = c.NextSibling() {
		raw, ok := c.(*ast.RawHTML)
		if !ok {
			continue
		}
		end, ok := c.NextSibling().(*ast.RawHTML)
		if !ok || strings.TrimSpace(string(rawText(end, src))) != "</a>" {
			continue
		}
		z := html.NewTokenizer(bytes.NewReader(rawText(raw, src)))
		if z.Next() != html.StartTagToken {
			continue
		}
		t := z.Token()
		if t.Data != "a" {
			continue
		}
		for _, a := range t.Attr {
			if a.Key == "id" && slug.Heading(a.Val) != "" && idValue.MatchString(a.Val) {
				h.RemoveChild(h, raw)
				h.RemoveChild(h, end)
				return a.Val, true
			}
		}
	}
	return "", false
}

var idValue = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.:-]{0,127}$`)

func rawText(n *ast.RawHTML, src []byte) []byte {
	var b bytes.Buffer
	for i := 0; i < n.Segments.Len(); i++ {
		s := n.Segments.At(i)
		b.Write(s.Value(src))
	}
	return b.Bytes()
}

// includePath reads {% include "path" %}'s path.
func includePath(args string) string {
	args = strings.TrimSpace(args)
	if len(args) >= 2 && (args[0] == '"' || args[0] == '\'') {
		if end := strings.IndexByte(args[1:], args[0]); end >= 0 {
			return args[1 : 1+end]
		}
	}
	if f := strings.Fields(args); len(f) > 0 {
		return f[0]
	}
	return ""
}

// plainText is the text of a node's inline children, raw HTML left out.
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.RawHTML:
			return ast.WalkSkipChildren, nil
		case *ast.Text:
			b.Write(c.Segment.Value(src))
			if c.SoftLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(c.Value)
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// headingIDs makes heading ids unique within a page: "setup", "setup-1",
// "setup-2".
type headingIDs struct {
	used map[string]bool
	next map[string]int
}

func newHeadingIDs() *headingIDs {
	return &headingIDs{used: map[string]bool{}, next: map[string]int{}}
}

func (h *headingIDs) make(text string) string {
	base := slug.Heading(text)
	if base == "" {
		base = "section"
	}
	n := h.next[base]
	id := base
	if n > 0 {
		id = base + "-" + strconv.Itoa(n)
	}
	for h.used[id] {
		n++
		id = base + "-" + strconv.Itoa(n)
	}
	h.next[base] = n + 1
	h.used[id] = true
	return id
}
