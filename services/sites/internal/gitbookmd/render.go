package gitbookmd

import (
	"fmt"
	"net/url"
	"path"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/docspub/platform/services/sites/internal/icons"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// nodeRenderer writes Blocks, code and math as HTML.
type nodeRenderer struct{}

func (r *nodeRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(KindBlock, r.block)
	reg.Register(ast.KindFencedCodeBlock, r.code)
	reg.Register(ast.KindCodeBlock, r.code)
	reg.Register(ast.KindHTMLBlock, r.htmlBlock)
	reg.Register(kindMathBlock, r.mathBlock)
	reg.Register(kindMathInline, r.mathInline)
}

// hintStyles are the styles of hints, with their names for screen readers.
var hintStyles = map[string]string{"info": "Info", "success": "Success", "warning": "Warning", "danger": "Danger"}

func esc(s string) string { return string(util.EscapeHTML([]byte(s))) }

// blockTags writes one block's tags: the opening ones when the walk
// enters the block, the closing ones when it leaves.
type blockTags struct {
	w        util.BufWriter
	entering bool
}

// open writes an opening tag (a format and its arguments) on entering.
func (t blockTags) open(format string, args ...any) {
	if t.entering {
		fmt.Fprintf(t.w, format, args...)
	}
}

// shut writes a closing tag on leaving.
func (t blockTags) shut(s string) {
	if !t.entering {
		_, _ = t.w.WriteString(s)
	}
}

// blockKind writes one kind of block and tells the walk what to do next.
type blockKind func(r *nodeRenderer, t blockTags, b *Block) ast.WalkStatus

// blockKinds are the writers of the blocks by name; a name not here is a
// plain <div class="block">.
var blockKinds = map[string]blockKind{
	"":            func(*nodeRenderer, blockTags, *Block) ast.WalkStatus { return ast.WalkSkipChildren },
	"hint":        hintBlock,
	"tabs":        tabsBlock,
	"tab":         tabBlock,
	"stepper":     wrapBlock(`<ol class="stepper" role="list">`+"\n", "</ol>\n"),
	"step":        wrapBlock(`<li class="step" role="listitem"><div class="step-body">`+"\n", "</div></li>\n"),
	"code":        codeBlock,
	"content-ref": contentRefBlock,
	"embed":       embedBlock,
	"file":        fileBlock,
	"columns":     wrapBlock(`<div class="columns">`+"\n", "</div>\n"),
	"column":      columnBlock,
	"updates":     wrapBlock(`<div class="updates">`+"\n", "</div>\n"),
	"update":      updateBlock,
	"prompt":      promptBlock,
	// Shown: the transformer removed it otherwise.
	"if":      func(*nodeRenderer, blockTags, *Block) ast.WalkStatus { return ast.WalkContinue },
	"include": includeBlock,
	// API reference blocks (apiref.go).
	"openapi":           apiBlock,
	"openapi-operation": apiBlock,
	"openapi-schemas":   apiBlock,
	"swagger":           apiBlock,
}

// block writes a Block by its name (blockKinds).
func (r *nodeRenderer) block(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	b := n.(*Block)
	t := blockTags{w: w, entering: entering}
	if kind, ok := blockKinds[b.Name]; ok {
		return kind(r, t, b), nil
	}
	t.open(`<div class="block" data-block="%s">`+"\n", esc(b.Name))
	t.shut("</div>\n")
	return ast.WalkContinue, nil
}

// wrapBlock is the writer of a block that is its opening and closing tags
// around its children.
func wrapBlock(opening, closing string) blockKind {
	return func(_ *nodeRenderer, t blockTags, _ *Block) ast.WalkStatus {
		if t.entering {
			_, _ = t.w.WriteString(opening)
		}
		t.shut(closing)
		return ast.WalkContinue
	}
}

// hintBlock writes a hint of one of hintStyles (info otherwise).
func hintBlock(_ *nodeRenderer, t blockTags, b *Block) ast.WalkStatus {
	style := b.Attr("style")
	label, ok := hintStyles[style]
	if !ok {
		style, label = "info", "Info"
	}
	icon, mark := "", ""
	if name := icons.Lookup(b.Attr("icon")); name != "" {
		icon, mark = IconPlaceholder(name), " has-icon"
	}
	t.open(`<div class="hint hint-%s" role="note" aria-label="%s"><span class="hint-icon%s" aria-hidden="true">%s</span><div class="hint-body">`+"\n",
		style, label, mark, icon)
	t.shut("</div></div>\n")
	return ast.WalkContinue
}

// tabsBlock writes a tabs block: radio inputs first, then the tab list of
// their labels, then the panels (its children): CSS shows the panel of
// the checked input.
func tabsBlock(_ *nodeRenderer, t blockTags, b *Block) ast.WalkStatus {
	if t.entering {
		var tabs []*Block
		for c := b.FirstChild(); c != nil; c = c.NextSibling() {
			if tab, ok := c.(*Block); ok && tab.Name == "tab" && tab.index < MaxTabs {
				tabs = append(tabs, tab)
			}
		}
		w := t.w
		_, _ = w.WriteString(`<div class="tabs">`)
		for _, tab := range tabs {
			checked := ""
			if tab.index == 0 {
				checked = " checked"
			}
			fmt.Fprintf(w, `<input type="radio" class="tab-input" name="tabs-%d" id="tabs-%d-%d"%s>`, b.group, b.group, tab.index, checked)
		}
		_, _ = w.WriteString(`<div class="tab-list" role="tablist">`)
		for _, tab := range tabs {
			fmt.Fprintf(w, `<label class="tab" for="tabs-%d-%d" role="tab">%s%s</label>`, b.group, tab.index,
				IconPlaceholder(tab.Attr("icon")), esc(tabTitle(tab)))
		}
		_, _ = w.WriteString("</div>\n")
	}
	t.shut("</div>\n")
	return ast.WalkContinue
}

// tabBlock writes a tab's panel; past the tabs CSS can switch, a section
// of its own.
func tabBlock(_ *nodeRenderer, t blockTags, b *Block) ast.WalkStatus {
	if b.index >= MaxTabs {
		t.open(`<section class="tab-extra"><p class="tab-extra-title">%s</p>`+"\n", esc(tabTitle(b)))
		t.shut("</section>\n")
		return ast.WalkContinue
	}
	t.open(`<div class="tab-panel" role="tabpanel" aria-label="%s">`+"\n", esc(tabTitle(b)))
	t.shut("</div>\n")
	return ast.WalkContinue
}

// codeBlock writes the figure around a code block, with its title; an
// expandable one is folded in a <details>.
func codeBlock(_ *nodeRenderer, t blockTags, b *Block) ast.WalkStatus {
	expandable := b.Attr("expandable") == "true"
	if expandable {
		lines := 0
		if c, ok := b.FirstChild().(*ast.FencedCodeBlock); ok {
			lines = c.Lines().Len()
		}
		t.open(`<details class="code-expandable"><summary>%s</summary>`, esc(expandSummary(b.Attr("title"), lines)))
	}
	cls := "code-block"
	if b.Attr("overflow") == "wrap" {
		cls += " wrap"
	}
	t.open(`<figure class="%s">`, cls)
	if title := b.Attr("title"); title != "" {
		t.open(`<figcaption class="code-title">%s</figcaption>`, esc(title))
	}
	t.open("\n")
	t.shut("</figure>\n")
	if expandable {
		t.shut("</details>\n")
	}
	return ast.WalkContinue
}

// expandSummary is the summary of an expandable code block.
func expandSummary(title string, lines int) string {
	s := "Show code"
	if title != "" {
		s += ": " + title
	}
	if lines > 1 {
		s += fmt.Sprintf(" (%d lines)", lines)
	}
	return s
}

// contentRefBlock writes a content-ref: a card of the page it leads to
// in place of its link when the page's title is known.
func contentRefBlock(_ *nodeRenderer, t blockTags, b *Block) ast.WalkStatus {
	if b.title != "" {
		if t.entering {
			fmt.Fprintf(t.w, `<div class="content-ref card"><a class="content-ref-link" href="%s">%s</a></div>`+"\n", esc(b.Attr("url")), esc(b.title))
		}
		return ast.WalkSkipChildren
	}
	t.open(`<div class="content-ref card">` + "\n")
	t.shut("</div>\n")
	return ast.WalkContinue
}

// embedBlock writes an embed (see embed), its children as its caption.
func embedBlock(r *nodeRenderer, t blockTags, b *Block) ast.WalkStatus {
	if t.entering {
		r.embed(t.w, b)
	}
	if b.leaf {
		return ast.WalkSkipChildren
	}
	t.shut("</figcaption></figure>\n")
	return ast.WalkContinue
}

// fileBlock writes a file's download card, its children as its caption.
func fileBlock(_ *nodeRenderer, t blockTags, b *Block) ast.WalkStatus {
	if t.entering {
		src := b.Attr("src")
		name := path.Base(src)
		if u, err := url.PathUnescape(name); err == nil {
			name = u
		}
		fmt.Fprintf(t.w, `<div class="file card"><a class="file-link" href="%s" download>%s</a><div class="file-caption">`+"\n",
			esc(src), esc(name))
	}
	if b.leaf {
		_, _ = t.w.WriteString("</div></div>\n")
		return ast.WalkSkipChildren
	}
	t.shut("</div></div>\n")
	return ast.WalkContinue
}

// columnBlock writes a column, with its width when it is a percentage.
func columnBlock(_ *nodeRenderer, t blockTags, b *Block) ast.WalkStatus {
	width := ""
	if v := b.Attr("width"); widthValue.MatchString(v) {
		width = fmt.Sprintf(` data-width="%s"`, v)
	}
	t.open(`<div class="column"%s>`+"\n", width)
	t.shut("</div>\n")
	return ast.WalkContinue
}

// updateBlock writes an update's section, with its date and tags.
func updateBlock(_ *nodeRenderer, t blockTags, b *Block) ast.WalkStatus {
	if t.entering {
		_, _ = t.w.WriteString(`<section class="update">`)
		date, tags := b.Attr("date"), updateTags(b.Attr("tags"))
		if date != "" || len(tags) > 0 {
			_, _ = t.w.WriteString(`<div class="update-meta">`)
			if d, err := time.Parse("2006-01-02", date); err == nil {
				fmt.Fprintf(t.w, `<time class="update-date" datetime="%s">%s</time>`, d.Format("2006-01-02"), d.Format("January 2, 2006"))
			} else if date != "" {
				fmt.Fprintf(t.w, `<span class="update-date">%s</span>`, esc(date))
			}
			for _, tag := range tags {
				fmt.Fprintf(t.w, ` <span class="update-tag" data-tag="%s">%s</span>`, esc(tag), esc(tagLabel(tag)))
			}
			_, _ = t.w.WriteString(`</div>`)
		}
		_, _ = t.w.WriteString("\n")
	}
	t.shut("</section>\n")
	return ast.WalkContinue
}

// updateTags are an update's tags ("new-releases,fixes"), at most 10.
func updateTags(s string) []string {
	var out []string
	for _, tag := range strings.Split(s, ",") {
		if tag = strings.TrimSpace(tag); tag != "" && len(tag) <= 60 && len(out) < 10 {
			out = append(out, tag)
		}
	}
	return out
}

// tagLabel names a tag by its id, as the space's .gitbook/tags.yaml is
// not imported: "new-releases" is "New releases".
func tagLabel(tag string) string {
	s := strings.NewReplacer("-", " ", "_", " ").Replace(tag)
	r, size := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[size:]
}

// promptBlock writes a prompt's card, with its description.
func promptBlock(_ *nodeRenderer, t blockTags, b *Block) ast.WalkStatus {
	t.open(`<div class="prompt card">`)
	if d := b.Attr("description"); d != "" {
		t.open(`<p class="prompt-description">%s%s</p>`, IconPlaceholder(b.Attr("icon")), esc(d))
	}
	t.open("\n")
	t.shut("</div>\n")
	return ast.WalkContinue
}

// includeBlock writes the HTML the transformer rendered for an include.
func includeBlock(_ *nodeRenderer, t blockTags, b *Block) ast.WalkStatus {
	if t.entering {
		_, _ = t.w.WriteString(b.html)
	}
	return ast.WalkSkipChildren
}

func tabTitle(t *Block) string {
	if title := t.Attr("title"); title != "" {
		return title
	}
	return fmt.Sprintf("Tab %d", t.index+1)
}

// MaxTabs is the most tabs of one tabs block that switch (TabsCSS has a
// rule for each); the others are shown after them.
const MaxTabs = 20

// TabsCSS shows the panel of each tabs block's checked input and marks
// its label.
var TabsCSS = func() string {
	var b strings.Builder
	b.WriteString(".tab-panel{display:none}")
	for i := 1; i <= MaxTabs; i++ {
		fmt.Fprintf(&b, ".tab-input:nth-of-type(%d):checked~.tab-panel:nth-of-type(%d){display:block}", i, i+1)
		fmt.Fprintf(&b, ".tab-input:nth-of-type(%d):checked~.tab-list .tab:nth-of-type(%d){color:var(--fg);font-weight:650;border-bottom-color:var(--link)}", i, i)
		fmt.Fprintf(&b, ".tab-input:nth-of-type(%d):focus-visible~.tab-list .tab:nth-of-type(%d){outline:2px solid var(--link);outline-offset:-2px}", i, i)
	}
	return b.String()
}()

var widthValue = regexp.MustCompile(`^\d{1,3}(\.\d+)?%$`)

// embed writes an embed: a sandboxed frame for the providers of
// FrameSources, a link card for anything else.
func (r *nodeRenderer) embed(w util.BufWriter, b *Block) {
	raw := b.Attr("url")
	_, _ = w.WriteString(`<figure class="embed">`)
	if frame, ok := embedFrame(raw); ok {
		fmt.Fprintf(w, `<div class="embed-frame"><iframe src="%s" title="Embedded video" loading="lazy" allowfullscreen sandbox="allow-scripts allow-same-origin allow-presentation"></iframe></div>`, esc(frame))
	}
	label := raw
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		label = strings.TrimPrefix(u.Host, "www.") + u.EscapedPath()
		if u.RawQuery != "" {
			label += "?" + u.RawQuery
		}
	}
	fmt.Fprintf(w, `<a class="embed-card card" href="%s">%s</a>`, esc(raw), esc(label))
	if b.leaf {
		_, _ = w.WriteString("</figure>\n")
		return
	}
	_, _ = w.WriteString("<figcaption>\n")
}

// FrameSources are the origins embeds are framed from (the page's CSP
// frame-src); any other embed is a link.
var FrameSources = []string{"https://www.youtube-nocookie.com", "https://player.vimeo.com", "https://www.loom.com"}

var embedID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// embedFrame maps a video page's URL to its provider's player URL.
func embedFrame(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" && u.Scheme != "http" {
		return "", false
	}
	host := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	segs := strings.Split(strings.Trim(u.Path, "/"), "/")
	id := ""
	var base string
	switch host {
	case "youtube.com", "m.youtube.com":
		base = FrameSources[0] + "/embed/"
		switch {
		case u.Path == "/watch":
			id = u.Query().Get("v")
		case len(segs) == 2 && (segs[0] == "embed" || segs[0] == "shorts"):
			id = segs[1]
		}
	case "youtu.be":
		base = FrameSources[0] + "/embed/"
		if len(segs) == 1 {
			id = segs[0]
		}
	case "vimeo.com":
		base = FrameSources[1] + "/video/"
		if len(segs) == 1 {
			id = segs[0]
		}
	case "loom.com":
		base = FrameSources[2] + "/embed/"
		if len(segs) == 2 && segs[0] == "share" {
			id = segs[1]
		}
	}
	if !embedID.MatchString(id) {
		return "", false
	}
	return base + id, true
}

// frameSrc matches the player URLs embedFrame makes: the only frames the
// sanitizer lets through.
var frameSrc = regexp.MustCompile(`^(https://www\.youtube-nocookie\.com/embed/|https://player\.vimeo\.com/video/|https://www\.loom\.com/embed/)[A-Za-z0-9_-]{1,64}$`)
