package gitbookmd

import (
	"net/url"
	"regexp"
	"strings"

	"github.com/microcosm-cc/bluemonday"
	"golang.org/x/net/html"
)

// policy is the allow-list every rendered body goes through once, raw
// HTML written in pages and what the renderer wrote alike: GitHub-like
// user content (bluemonday's UGC policy: http, https and mailto links,
// relative URLs, no scripts, no event handlers, no styles) with the
// elements GitBook writes and the renderer's own.
var policy = func() *bluemonday.Policy {
	p := bluemonday.UGCPolicy()
	p.RequireNoFollowOnLinks(false)
	p.RequireNoFollowOnFullyQualifiedLinks(true)
	p.AddTargetBlankToFullyQualifiedLinks(false)
	p.AllowURLSchemes("http", "https", "mailto")
	p.AllowRelativeURLs(true)
	p.AllowElements("figure", "figcaption", "picture", "source", "kbd", "mark", "sub", "sup", "details", "summary",
		"br", "section", "time", "label", "span", "div", "i", "ol", "li")
	p.AllowAttrs("class").Matching(regexp.MustCompile(`^[A-Za-z0-9 _-]{1,200}$`)).Globally()
	p.AllowAttrs("id").Matching(regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.:-]{0,127}$`)).Globally()
	p.AllowAttrs("role").Matching(regexp.MustCompile(`^(note|tablist|tab|tabpanel|list|listitem|math|presentation)$`)).Globally()
	p.AllowAttrs("aria-label").Matching(regexp.MustCompile(`^[^\x00-\x1f]{1,100}$`)).Globally()
	p.AllowAttrs("aria-hidden").Matching(regexp.MustCompile(`^(true|false)$`)).Globally()
	p.AllowDataAttributes()
	p.AllowAttrs("srcset").OnElements("source", "img")
	p.AllowAttrs("media").Matching(regexp.MustCompile(`^\(prefers-color-scheme: (dark|light)\)$`)).OnElements("source")
	p.AllowAttrs("type").Matching(regexp.MustCompile(`^image/[a-z0-9.+-]+$`)).OnElements("source")
	p.AllowAttrs("open").Matching(regexp.MustCompile(`^(|open)$`)).OnElements("details")
	p.AllowAttrs("datetime").Matching(regexp.MustCompile(`^[0-9T:.+Z-]{4,40}$`)).OnElements("time")
	p.AllowAttrs("download").OnElements("a")
	p.AllowAttrs("tabindex").Matching(regexp.MustCompile(`^0$`)).OnElements("pre")
	// Tabs (radio inputs and their labels) and task lists (disabled
	// checkboxes), nothing else of forms.
	p.AllowElements("input")
	p.AllowAttrs("type").Matching(regexp.MustCompile(`^(radio|checkbox)$`)).OnElements("input")
	p.AllowAttrs("disabled").Matching(regexp.MustCompile(`^(|disabled)$`)).OnElements("input")
	p.AllowAttrs("name").Matching(regexp.MustCompile(`^tabs-[0-9]{1,6}$`)).OnElements("input")
	p.AllowAttrs("checked").Matching(regexp.MustCompile(`^(|checked)$`)).OnElements("input")
	p.AllowAttrs("for").Matching(regexp.MustCompile(`^tabs-[0-9]{1,6}-[0-9]{1,6}$`)).OnElements("label")
	// Embeds: frames of the allowed players only, always sandboxed.
	p.AllowElements("iframe")
	p.AllowAttrs("src").Matching(frameSrc).OnElements("iframe")
	p.AllowAttrs("title", "loading", "allowfullscreen", "sandbox").OnElements("iframe")
	p.RequireSandboxOnIFrame(bluemonday.SandboxAllowScripts, bluemonday.SandboxAllowSameOrigin, bluemonday.SandboxAllowPresentation)
	return p
}()

// sanitize resolves the body's links and images, marks the columns of
// card tables, then runs the allow-list.
func sanitize(body string, links Links) string {
	return policy.Sanitize(rewrite(body, links))
}

// cardTable is a <table data-view="cards"> being rewritten: what each
// column holds, from its header's data attributes.
type cardTable struct {
	cols []string
	col  int
}

// rewriter is the state of one rewrite: the body written so far, the
// open anchors and tables, whether a cover cell's link is being written
// as an image.
type rewriter struct {
	b       strings.Builder
	links   Links
	anchors []bool // per open <a>: its tags are dropped
	tables  []*cardTable
	inCover bool // inside a cover cell's link, written as an image
}

// rewrite resolves every a[href], img[src] and srcset through links (a
// link to a page or file that is not published becomes its text, such an
// image is left out) and gives the cells of card tables the class of
// their column ("card-cover" cells show their file as an image).
func rewrite(body string, links Links) string {
	z := html.NewTokenizer(strings.NewReader(body))
	rw := &rewriter{links: links}
	rw.b.Grow(len(body) + len(body)/8)
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return rw.b.String()
		case html.StartTagToken, html.SelfClosingTagToken:
			t := z.Token()
			if rw.startTag(tt, &t) {
				rw.b.WriteString(t.String())
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			if rw.endTag(string(name)) {
				rw.b.Write(z.Raw())
			}
		case html.TextToken:
			if !rw.inCover {
				rw.b.Write(z.Raw())
			}
		default:
			rw.b.Write(z.Raw())
		}
	}
}

// resolve resolves a URL through the links (any URL without them).
func (rw *rewriter) resolve(u string) (string, bool) {
	if rw.links == nil {
		return u, true
	}
	return rw.links.Resolve(u)
}

// startTag rewrites a start (or self-closing) tag in place and tells
// whether to write it.
func (rw *rewriter) startTag(tt html.TokenType, t *html.Token) bool {
	switch t.Data {
	case "a":
		return rw.anchor(tt, t)
	case "img", "source":
		return rw.image(t)
	case "table":
		if tt == html.StartTagToken {
			if attr(*t, "data-view") == "cards" {
				rw.tables = append(rw.tables, &cardTable{})
			} else {
				rw.tables = append(rw.tables, nil)
			}
		}
	case "tr":
		if ct := top(rw.tables); ct != nil {
			ct.col = 0
		}
	case "th":
		if ct := top(rw.tables); ct != nil {
			ct.cols = append(ct.cols, columnKind(*t))
		}
	case "td":
		if ct := top(rw.tables); ct != nil {
			if k := ct.kind(); k != "" {
				t.Attr = append(t.Attr, html.Attribute{Key: "class", Val: k})
			}
		}
	}
	return true
}

// anchor resolves an <a>'s href and tells whether to write the tag: not
// when its target is not published, nor in a cover cell, where the link
// is written as an image of its target instead.
func (rw *rewriter) anchor(tt html.TokenType, t *html.Token) bool {
	drop := false
	for i, a := range t.Attr {
		if a.Key == "href" {
			u, ok := rw.resolve(a.Val)
			t.Attr[i].Val, drop = u, !ok
		}
	}
	if tt == html.StartTagToken {
		rw.anchors = append(rw.anchors, drop)
	}
	if ct := top(rw.tables); ct != nil && ct.kind() == "card-cover" && !drop && tt == html.StartTagToken {
		if href := attr(*t, "href"); href != "" {
			rw.b.WriteString((&html.Token{Type: html.StartTagToken, Data: "img",
				Attr: []html.Attribute{{Key: "src", Val: href}, {Key: "alt", Val: ""}}}).String())
			rw.inCover = true
			return false
		}
	}
	return !drop
}

// image resolves an <img>'s or <source>'s src and srcset and tells
// whether to write the tag: not when its src is not published.
func (rw *rewriter) image(t *html.Token) bool {
	keep := true
	for i, a := range t.Attr {
		switch a.Key {
		case "src":
			u, ok := rw.resolve(a.Val)
			t.Attr[i].Val, keep = u, keep && ok
		case "srcset":
			t.Attr[i].Val = resolveSrcset(a.Val, rw.resolve)
		}
	}
	return keep
}

// endTag closes what startTag opened and tells whether to write the end
// tag: not the end of a dropped anchor or of a cover cell's link.
func (rw *rewriter) endTag(name string) bool {
	switch name {
	case "a":
		if n := len(rw.anchors); n > 0 {
			drop := rw.anchors[n-1]
			rw.anchors = rw.anchors[:n-1]
			if rw.inCover {
				rw.inCover = false
				return false
			}
			if drop {
				return false
			}
		}
	case "table":
		if n := len(rw.tables); n > 0 {
			rw.tables = rw.tables[:n-1]
		}
	case "td":
		if ct := top(rw.tables); ct != nil {
			ct.col++
		}
	}
	return true
}

func top(tables []*cardTable) *cardTable {
	if len(tables) == 0 {
		return nil
	}
	return tables[len(tables)-1]
}

// kind is the class of the current cell's column.
func (ct *cardTable) kind() string {
	if ct.col < len(ct.cols) {
		return ct.cols[ct.col]
	}
	return ""
}

func columnKind(t html.Token) string {
	has := func(k string) bool {
		for _, a := range t.Attr {
			if a.Key == k {
				return true
			}
		}
		return false
	}
	switch {
	case has("data-card-cover"):
		return "card-cover"
	case has("data-card-cover-dark"), has("data-hidden") && !has("data-card-target"):
		return "card-hidden"
	case has("data-card-target"):
		return "card-target"
	}
	return ""
}

func attr(t html.Token, key string) string {
	for _, a := range t.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// resolveSrcset resolves each URL of a srcset ("a.png 1x, b.png 2x");
// one that does not resolve is left out.
func resolveSrcset(v string, resolve func(string) (string, bool)) string {
	var out []string
	for _, c := range strings.Split(v, ",") {
		f := strings.Fields(c)
		if len(f) == 0 {
			continue
		}
		// A srcset URL may hold spaces as GitBook writes file names: the
		// descriptor is the last field when it looks like one.
		desc := ""
		if n := len(f); n > 1 && descriptor.MatchString(f[n-1]) {
			desc, f = f[n-1], f[:n-1]
		}
		u, ok := resolve(strings.Join(f, " "))
		if !ok || !safeURL(u) {
			continue
		}
		if desc != "" {
			u += " " + desc
		}
		out = append(out, u)
	}
	return strings.Join(out, ", ")
}

var descriptor = regexp.MustCompile(`^[0-9.]+[wx]$`)

// safeURL tells whether u is relative or http(s): bluemonday checks the
// schemes of href and src, not of srcset.
func safeURL(u string) bool {
	p, err := url.Parse(u)
	return err == nil && (p.Scheme == "" && !strings.HasPrefix(strings.TrimSpace(u), "//") || p.Scheme == "http" || p.Scheme == "https")
}
