package revision

import (
	"strings"

	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
)

// Node is a node of a JSON document (the API's "document" format): a
// block, an inline, a text with its leaves, or a mark.
type Node = map[string]any

// ToDocument converts markdown to the JSON document form: paragraphs,
// headings (levels past 3 become heading-3), ordered and unordered lists,
// block quotes, code blocks, dividers and images; inline links, images
// and bold, italic, code and strikethrough marks. Raw HTML is kept as
// text. resolve names a link's target (nil: every link is a URL).
func ToDocument(markdown string, resolve func(href string) Target) Node {
	src := []byte(markdown)
	c := &converter{src: src, resolve: resolve}
	return Node{
		"object": "document",
		"data":   Node{"schemaVersion": 1},
		"nodes":  c.blocks(parse(src), inTop),
	}
}

type converter struct {
	src     []byte
	resolve func(string) Target
}

// Where a block stands decides which blocks may stand there.
const (
	inTop   = iota // the document: every block
	inItem         // a list item: no images block
	inQuote        // a quote: no images, no code
)

// blocks converts the block children of n. Code in a quote becomes
// paragraphs of code-marked text; images in a quote or a list item are
// inline images of a paragraph.
func (c *converter) blocks(n ast.Node, in int) []any {
	out := []any{}
	for ch := n.FirstChild(); ch != nil; ch = ch.NextSibling() {
		out = append(out, c.block(ch, in)...)
	}
	return out
}

func (c *converter) block(n ast.Node, in int) []any {
	switch n := n.(type) {
	case *ast.Paragraph, *ast.TextBlock:
		if imgs := c.images(n); imgs != nil && in == inTop {
			return []any{imgs}
		}
		return []any{block("paragraph", nil, c.inlines(n, nil))}
	case *ast.Heading:
		level := min(max(n.Level, 1), 3)
		data := Node{}
		if id := Slugify(c.plain(n)); id != "" {
			data["id"] = id
		}
		return []any{block("heading-"+string(rune('0'+level)), data, c.inlines(n, nil))}
	case *ast.List:
		items := []any{}
		for it := n.FirstChild(); it != nil; it = it.NextSibling() {
			items = append(items, block("list-item", nil, c.blocks(it, inItem)))
		}
		if n.IsOrdered() {
			return []any{block("list-ordered", Node{"start": n.Start}, items)}
		}
		return []any{block("list-unordered", Node{}, items)}
	case *ast.Blockquote:
		return []any{block("blockquote", nil, c.blocks(n, inQuote))}
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		lines := c.codeLines(n)
		if in == inQuote {
			out := make([]any, len(lines))
			for i, l := range lines {
				out[i] = block("paragraph", nil, []any{textNode(l, []any{mark("code")})})
			}
			return out
		}
		data := Node{}
		if f, ok := n.(*ast.FencedCodeBlock); ok {
			if lang := string(f.Language(c.src)); lang != "" {
				data["syntax"] = lang
			}
		}
		nodes := make([]any, len(lines))
		for i, l := range lines {
			nodes[i] = block("code-line", Node{}, []any{textNode(l, nil)})
		}
		return []any{block("code", data, nodes)}
	case *ast.ThematicBreak:
		return []any{Node{"object": "block", "type": "divider", "isVoid": true, "data": Node{}}}
	case *ast.HTMLBlock:
		s := strings.TrimRight(linesText(n, c.src)+closure(n, c.src), "\n")
		if s == "" {
			return nil
		}
		return []any{block("paragraph", nil, []any{textNode(s, nil)})}
	}
	// Anything else (a link reference definition leaves nothing): its blocks.
	return c.blocks(n, in)
}

func block(typ string, data Node, nodes []any) Node {
	b := Node{"object": "block", "type": typ, "nodes": nodes}
	if data != nil {
		b["data"] = data
	}
	return b
}

func textNode(s string, marks []any) Node {
	if marks == nil {
		marks = []any{}
	}
	return Node{"object": "text", "leaves": []any{Node{"object": "leaf", "text": s, "marks": marks}}}
}

func mark(typ string) Node { return Node{"object": "mark", "type": typ} }

// codeLines are the lines of a code block without their line ends.
func (c *converter) codeLines(n ast.Node) []string {
	s := strings.TrimSuffix(linesText(n, c.src), "\n")
	return strings.Split(s, "\n")
}

// images converts a paragraph made of images alone (and blanks) to an
// images block; nil otherwise.
func (c *converter) images(n ast.Node) Node {
	var imgs []any
	for ch := n.FirstChild(); ch != nil; ch = ch.NextSibling() {
		switch ch := ch.(type) {
		case *ast.Image:
			imgs = append(imgs, Node{
				"object": "block", "type": "image", "isVoid": true, "fragments": []any{},
				"data": Node{"ref": c.imageRef(string(ch.Destination)), "alt": c.plain(ch)},
			})
		case *ast.Text:
			if strings.TrimSpace(string(ch.Segment.Value(c.src))) != "" {
				return nil
			}
		default:
			return nil
		}
	}
	if imgs == nil {
		return nil
	}
	b := block("images", Node{}, imgs)
	b["isVoid"] = false
	return b
}

// inlines converts the inline children of n, with the marks of its
// ancestors, merging runs of text into one text node.
func (c *converter) inlines(n ast.Node, marks []any) []any {
	out := []any{}
	var leaves []any
	flush := func() {
		if leaves != nil {
			out = append(out, Node{"object": "text", "leaves": leaves})
			leaves = nil
		}
	}
	leaf := func(s string, marks []any) {
		if s != "" {
			leaves = append(leaves, Node{"object": "leaf", "text": s, "marks": append([]any{}, marks...)})
		}
	}
	var walk func(n ast.Node, marks []any)
	walk = func(n ast.Node, marks []any) {
		for ch := n.FirstChild(); ch != nil; ch = ch.NextSibling() {
			switch ch := ch.(type) {
			case *ast.Text:
				leaf(string(ch.Segment.Value(c.src)), marks)
				if ch.HardLineBreak() {
					leaf("\n", marks)
				} else if ch.SoftLineBreak() {
					leaf(" ", marks)
				}
			case *ast.String:
				leaf(string(ch.Value), marks)
			case *ast.CodeSpan:
				leaf(c.plain(ch), append(append([]any{}, marks...), mark("code")))
			case *ast.Emphasis:
				m := "italic"
				if ch.Level >= 2 {
					m = "bold"
				}
				walk(ch, append(append([]any{}, marks...), mark(m)))
			case *extast.Strikethrough:
				walk(ch, append(append([]any{}, marks...), mark("strikethrough")))
			case *ast.Link:
				flush()
				out = append(out, c.link(string(ch.Destination), c.inlines(ch, marks), ""))
			case *ast.AutoLink:
				flush()
				out = append(out, c.link(autoLinkURL(ch, c.src), nil, string(ch.Label(c.src))))
			case *ast.Image:
				flush()
				out = append(out, Node{
					"object": "inline", "type": "inline-image", "isVoid": true,
					"data": Node{"ref": c.imageRef(string(ch.Destination)), "alt": c.plain(ch)},
				})
			case *ast.RawHTML:
				var b strings.Builder
				for i := range ch.Segments.Len() {
					s := ch.Segments.At(i)
					b.Write(s.Value(c.src))
				}
				leaf(b.String(), marks)
			default:
				walk(ch, marks)
			}
		}
	}
	walk(n, marks)
	flush()
	return out
}

// link is an inline link; its nodes may hold only texts and inline images.
func (c *converter) link(href string, nodes []any, label string) Node {
	kept := []any{}
	for _, n := range nodes {
		if m, ok := n.(Node); ok && (m["object"] == "text" || m["type"] == "inline-image") {
			kept = append(kept, m)
		}
	}
	if len(kept) == 0 {
		if label == "" {
			label = href
		}
		kept = []any{textNode(label, nil)}
	}
	return Node{"object": "inline", "type": "link", "isVoid": false, "nodes": kept, "data": Node{"ref": c.ref(href)}}
}

// ref is the content reference of a link target.
func (c *converter) ref(href string) Node {
	t := Target{Kind: TargetURL, URL: href}
	if c.resolve != nil {
		t = c.resolve(href)
	}
	switch t.Kind {
	case TargetPage:
		return Node{"kind": "page", "page": t.Page}
	case TargetFile:
		return Node{"kind": "file", "file": t.File}
	}
	return Node{"kind": "url", "url": href}
}

// imageRef is the reference of an image: a file or a URL.
func (c *converter) imageRef(src string) Node {
	r := c.ref(src)
	if r["kind"] == "page" {
		return Node{"kind": "url", "url": src}
	}
	return r
}

// plain is the text of n's inline descendants.
func (c *converter) plain(n ast.Node) string {
	var b strings.Builder
	_ = ast.Walk(n, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Text:
			b.Write(n.Segment.Value(c.src))
			if n.SoftLineBreak() || n.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(n.Value)
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}
