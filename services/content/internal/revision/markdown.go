package revision

import (
	"regexp"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// Link relations: how a page's markdown refers to a target.
const (
	RelationLink  = "link"  // [text](href), <https://...>, a bare URL, <a href>
	RelationImage = "image" // ![alt](src), <img src>
	RelationFile  = "file"  // {% file src="..." %}
	RelationEmbed = "embed" // {% embed url="..." %}
)

// MarkdownLink is one reference to a target in markdown, as written.
type MarkdownLink struct {
	Href     string
	Relation string
}

// markdown is the CommonMark parser with the GitHub extensions that make
// links: bare URLs (linkify) and strikethrough (for the document form).
// Tables stay paragraphs of text.
var markdown = goldmark.New(goldmark.WithExtensions(extension.Linkify, extension.Strikethrough))

// parse parses markdown into its syntax tree.
func parse(src []byte) ast.Node { return markdown.Parser().Parse(text.NewReader(src)) }

var (
	// GitBook's block tags: {% file src="..." %} and {% embed url="..." %}.
	liquidTag = regexp.MustCompile(`\{%\s*(file|embed)\s+(?:src|url)\s*=\s*"([^"]*)"`)
	// href and src attributes of raw HTML.
	htmlAttr = regexp.MustCompile(`(?i)<(a|img)\b[^>]*?\b(href|src)\s*=\s*(?:"([^"]*)"|'([^']*)')`)
)

// ParseLinks lists the links of markdown in document order: links, images,
// autolinks and bare URLs (resolved reference links included), href/src of
// raw HTML <a> and <img>, and GitBook's {% file %} and {% embed %} tags.
// Nothing inside code spans or code blocks is a link.
func ParseLinks(markdown string) []MarkdownLink {
	src := []byte(markdown)
	var out []MarkdownLink
	add := func(href, rel string) {
		if href = strings.TrimSpace(href); href != "" {
			out = append(out, MarkdownLink{Href: href, Relation: rel})
		}
	}
	_ = ast.Walk(parse(src), func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.CodeSpan, *ast.CodeBlock, *ast.FencedCodeBlock:
			return ast.WalkSkipChildren, nil
		case *ast.Link:
			add(string(n.Destination), RelationLink)
		case *ast.Image:
			add(string(n.Destination), RelationImage)
		case *ast.AutoLink:
			add(autoLinkURL(n, src), RelationLink)
		case *ast.Paragraph:
			for _, m := range liquidTag.FindAllStringSubmatch(linesText(n, src), -1) {
				add(m[2], m[1])
			}
		case *ast.HTMLBlock:
			htmlLinks(linesText(n, src)+closure(n, src), add)
		case *ast.RawHTML:
			var b strings.Builder
			for i := range n.Segments.Len() {
				s := n.Segments.At(i)
				b.Write(s.Value(src))
			}
			htmlLinks(b.String(), add)
		}
		return ast.WalkContinue, nil
	})
	return out
}

func htmlLinks(s string, add func(href, rel string)) {
	for _, m := range htmlAttr.FindAllStringSubmatch(s, -1) {
		rel := RelationLink
		if strings.EqualFold(m[1], "img") {
			rel = RelationImage
		}
		add(m[3]+m[4], rel)
	}
}

// autoLinkURL is the URL an autolink points at: an email address becomes a
// mailto: URL and a bare "www." address an http one.
func autoLinkURL(n *ast.AutoLink, src []byte) string {
	u := string(n.URL(src))
	if n.AutoLinkType == ast.AutoLinkEmail && !strings.HasPrefix(strings.ToLower(u), "mailto:") {
		return "mailto:" + u
	}
	if !strings.Contains(u, ":") {
		return "http://" + u
	}
	return u
}

// linesText is the raw source of a block's lines.
func linesText(n ast.Node, src []byte) string {
	var b strings.Builder
	lines := n.Lines()
	for i := range lines.Len() {
		s := lines.At(i)
		b.Write(s.Value(src))
	}
	return b.String()
}

func closure(n *ast.HTMLBlock, src []byte) string {
	if !n.HasClosure() {
		return ""
	}
	return string(n.ClosureLine.Value(src))
}
