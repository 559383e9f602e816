package gitbookmd

import (
	"bytes"
	"net/url"
	"regexp"
	"strings"

	"github.com/docspub/platform/services/sites/internal/icons"
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

// sanitize resolves the body's links and images, lays out card tables,
// marks hidden table columns and icons, runs the allow-list, then draws
// the icons.
func sanitize(body string, links Links) string {
	return drawIcons(policy.Sanitize(rewrite(body, links)))
}

// rewriter is the state of one rewrite: the body written so far, the
// open anchors and tables, and the tokens being left out.
type rewriter struct {
	b       bytes.Buffer
	links   Links
	anchors []anchorState // per open <a>
	tables  []*table
	// skipText: inside a cover cell's link, written as an image, or a
	// dark cover's, kept for the cover's <picture>.
	skipText bool
	// icon counts the <i> elements open within an icon's <i>, whose
	// content (its :name: shortcode) is left out.
	icon int
}

// anchorState is how an open <a>'s end tag is written.
type anchorState int

const (
	anchorKept    anchorState = iota
	anchorDropped             // its target is not published: its text only
	anchorCover               // a cover's link, written as an image
)

// rewrite resolves every a[href], img[src] and srcset through links (a
// link to a page or file that is not published becomes its text, such an
// image is left out), lays out card tables (tables.go), hides the hidden
// columns of tables and writes icons (<i class="fa-…">, data-icon) as
// placeholders drawIcons draws.
func rewrite(body string, links Links) string {
	z := html.NewTokenizer(strings.NewReader(body))
	rw := &rewriter{links: links}
	rw.b.Grow(len(body) + len(body)/8)
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return rw.b.String()
		}
		if rw.icon > 0 {
			rw.inIcon(tt, z)
			continue
		}
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken:
			t := z.Token()
			if rw.startTag(tt, &t) {
				rw.b.WriteString(t.String())
				rw.afterStart(&t)
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			if rw.endTag(string(name)) {
				rw.b.Write(z.Raw())
			}
		case html.TextToken:
			rw.text(z.Raw())
		default:
			rw.b.Write(z.Raw())
		}
	}
}

// inIcon leaves out a token of an icon's <i>, counting the <i> elements
// open in it.
func (rw *rewriter) inIcon(tt html.TokenType, z *html.Tokenizer) {
	name, _ := z.TagName()
	switch {
	case tt == html.StartTagToken && string(name) == "i":
		rw.icon++
	case tt == html.EndTagToken && string(name) == "i":
		rw.icon--
	}
}

// text writes a text token, but in a cover cell's link; a card's title
// is read from it.
func (rw *rewriter) text(raw []byte) {
	if rw.skipText {
		return
	}
	if tb := top(rw.tables); tb != nil {
		tb.readTitle(raw)
	}
	rw.b.Write(raw)
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
	case "i":
		return rw.iconTag(tt, t)
	case "table", "tr", "th", "td":
		rw.tableTag(tt, t)
	}
	return true
}

// afterStart writes what follows a start tag written: a button's icon.
func (rw *rewriter) afterStart(t *html.Token) {
	if t.Data == "a" && t.Type == html.StartTagToken {
		if name := attr(*t, "data-icon"); name != "" {
			rw.b.WriteString(IconPlaceholder(name))
		}
	}
}

// iconTag writes an icon's <i class="fa-…"> as its placeholder and leaves
// out its content; any other <i> is written.
func (rw *rewriter) iconTag(tt html.TokenType, t *html.Token) bool {
	name := ""
	for _, c := range strings.Fields(attr(*t, "class")) {
		if n, ok := strings.CutPrefix(c, "fa-"); ok && n != "" && name == "" && !faStyles[n] {
			name = n
		}
	}
	if name == "" {
		return true
	}
	rw.b.WriteString(IconPlaceholder(name))
	if tt == html.StartTagToken {
		rw.icon = 1
	}
	return false
}

// faStyles are Font Awesome's style classes, which name no icon.
var faStyles = map[string]bool{"solid": true, "regular": true, "brands": true, "light": true, "thin": true,
	"duotone": true, "sharp": true, "fw": true}

// IconPlaceholder is what stands for icon name in the HTML until
// drawIcons draws it: an empty span the allow-list keeps.
func IconPlaceholder(name string) string {
	name = strings.ToLower(strings.TrimSpace(name))
	if !icons.Name.MatchString(name) {
		return ""
	}
	return `<span class="icon" data-icon="` + name + `"></span>`
}

var iconPlaceholder = regexp.MustCompile(`<span class="icon" data-icon="([a-z0-9-]{1,80})"></span>`)

// drawIcons replaces the icons' placeholders of sanitized HTML with their
// inline SVG, or nothing for an icon that is not drawn.
func drawIcons(s string) string {
	if !strings.Contains(s, `data-icon="`) {
		return s
	}
	return iconPlaceholder.ReplaceAllStringFunc(s, func(m string) string {
		svg, _ := icons.SVG(iconPlaceholder.FindStringSubmatch(m)[1])
		return svg
	})
}

// anchor resolves an <a>'s href and tells whether to write the tag: not
// when its target is not published, nor in a cover cell, where the link
// is written as an image of its target instead.
func (rw *rewriter) anchor(tt html.TokenType, t *html.Token) bool {
	state := anchorKept
	for i, a := range t.Attr {
		if a.Key == "href" {
			u, ok := rw.resolve(a.Val)
			t.Attr[i].Val = u
			if !ok {
				state = anchorDropped
			}
		}
	}
	if tb := top(rw.tables); tb != nil && tb.cards && tt == html.StartTagToken {
		if rw.cardAnchor(tb, t, state == anchorKept) {
			state = anchorCover
		}
	}
	if tt == html.StartTagToken {
		rw.anchors = append(rw.anchors, state)
	}
	return state == anchorKept
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
			state := rw.anchors[n-1]
			rw.anchors = rw.anchors[:n-1]
			if state == anchorCover {
				rw.skipText = false
			}
			return state == anchorKept
		}
	case "table", "tr", "td", "th":
		rw.endTableTag(name)
	}
	return true
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
