package importer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/services/content/internal/limits"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Why a page is skipped.
var (
	errTooMuchMarkdown = errors.New("page converts to too much markdown") // more than limits.PageMarkdown
	errUnconvertible   = errors.New("page cannot be converted")
)

// parse reads at most limits.PageHTML bytes of a page and parses them (a
// page cut short still parses: HTML closes what is left open).
func parse(r io.Reader) (*html.Node, error) {
	doc, err := html.Parse(io.LimitReader(r, limits.PageHTML))
	if err != nil {
		return nil, fmt.Errorf("parse page: %w", err)
	}
	return doc, nil
}

// extract finds a page's title (of <title>, else of the first <h1>) and its
// main content (<main>, <article> or <body> without its navigation, header
// and footer), with scripts, styles and frames removed.
func extract(doc *html.Node) (title string, content *html.Node) {
	var h1, mainEl, article, body *html.Node
	var drop []*html.Node
	for n := range doc.Descendants() {
		if n.Type != html.ElementNode {
			continue
		}
		switch n.DataAtom {
		case atom.Title:
			if title == "" {
				title = text(n)
			}
		case atom.H1:
			if h1 == nil {
				h1 = n
			}
		case atom.Main:
			if mainEl == nil {
				mainEl = n
			}
		case atom.Article:
			if article == nil {
				article = n
			}
		case atom.Body:
			body = n
		case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Iframe:
			drop = append(drop, n)
		}
	}
	if title == "" && h1 != nil {
		title = text(h1)
	}
	remove(drop)
	content = body
	switch {
	case mainEl != nil:
		content = mainEl
	case article != nil:
		content = article
	case body != nil:
		drop = drop[:0]
		for n := range body.Descendants() {
			if n.Type == html.ElementNode && (n.DataAtom == atom.Nav || n.DataAtom == atom.Header || n.DataAtom == atom.Footer) {
				drop = append(drop, n)
			}
		}
		remove(drop)
	}
	if content == nil {
		content = doc
	}
	return cleanTitle(title), content
}

func remove(ns []*html.Node) {
	for _, n := range ns {
		if n.Parent != nil {
			n.Parent.RemoveChild(n)
		}
	}
}

// toMarkdown converts content: its nesting cut first (flatten), so that the
// converter's work and output stay proportional to the page; more than
// limits.PageMarkdown of markdown is errTooMuchMarkdown. A converter panic
// is an error, never a crash.
func toMarkdown(ctx context.Context, content *html.Node) (md string, err error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	flatten(content, limits.HTMLDepth, limits.HTMLQuoteDepth)
	defer func() {
		if p := recover(); p != nil {
			md, err = "", fmt.Errorf("%w: %v", errUnconvertible, p)
		}
	}()
	out, err := htmltomarkdown.ConvertNode(content, converter.WithContext(ctx))
	if err != nil {
		return "", fmt.Errorf("%w: %w", errUnconvertible, err)
	}
	if len(out) > limits.PageMarkdown {
		return "", errTooMuchMarkdown
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)) + "\n", nil
}

// nests reports the elements whose every level prefixes each line of the
// markdown inside (quotes) or indents it (lists).
func nests(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Blockquote, atom.Ul, atom.Ol, atom.Dl, atom.Menu:
		return true
	}
	return false
}

// flatten unwraps (replaces by their children) the elements of n nested
// deeper than maxDepth, and the quotes and lists nested deeper than
// maxQuotes: their text stays, their nesting goes.
func flatten(n *html.Node, maxDepth, maxQuotes int) {
	var walk func(n *html.Node, depth, quotes int)
	walk = func(n *html.Node, depth, quotes int) {
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			if c.Type != html.ElementNode {
				c = next
				continue
			}
			q := quotes
			if nests(c) {
				q++
			}
			if depth+1 > maxDepth || q > maxQuotes {
				first := c.FirstChild
				for ch := c.FirstChild; ch != nil; {
					after := ch.NextSibling
					c.RemoveChild(ch)
					n.InsertBefore(ch, c)
					ch = after
				}
				n.RemoveChild(c)
				if first != nil {
					next = first // the children take c's place and are looked at in turn
				}
				c = next
				continue
			}
			walk(c, depth+1, q)
			c = next
		}
	}
	walk(n, 0, 0)
}

// cleanTitle makes a single-line title of imported text; "" stays "".
func cleanTitle(s string) string { return clean(s, limits.PageTitle) }

// clean makes imported text fit a single-line title or name: the characters
// apierr.TextProblem refuses (control characters, NUL, invisible format
// characters) dropped, runs of white space one space, at most max
// characters.
func clean(s string, max int) string {
	var b strings.Builder
	n := 0
	for _, word := range strings.Fields(s) {
		if n >= max {
			break
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
			n++
		}
		for _, r := range word {
			if n >= max {
				break
			}
			if r == utf8.RuneError || apierr.TextProblem(string(r)) != "" {
				continue
			}
			b.WriteRune(r)
			n++
		}
	}
	return strings.TrimSpace(b.String())
}

func text(n *html.Node) string {
	var b strings.Builder
	for d := range n.Descendants() {
		if d.Type == html.TextNode && b.Len() < 4*limits.PageTitle {
			b.WriteString(d.Data)
		}
	}
	return b.String()
}
