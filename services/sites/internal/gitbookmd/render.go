package gitbookmd

import (
	"fmt"
	"net/url"
	"path"
	"regexp"
	"strings"

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
	reg.Register(kindMathBlock, r.mathBlock)
	reg.Register(kindMathInline, r.mathInline)
}

// hintStyles are the styles of hints, with their names for screen readers.
var hintStyles = map[string]string{"info": "Info", "success": "Success", "warning": "Warning", "danger": "Danger"}

func esc(s string) string { return string(util.EscapeHTML([]byte(s))) }

func (r *nodeRenderer) block(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	b := n.(*Block)
	open := func(format string, args ...any) {
		if entering {
			fmt.Fprintf(w, format, args...)
		}
	}
	shut := func(s string) {
		if !entering {
			_, _ = w.WriteString(s)
		}
	}
	switch b.Name {
	case "":
		return ast.WalkSkipChildren, nil
	case "hint":
		style := b.Attr("style")
		label, ok := hintStyles[style]
		if !ok {
			style, label = "info", "Info"
		}
		open(`<div class="hint hint-%s" role="note" aria-label="%s"><span class="hint-icon" aria-hidden="true"></span><div class="hint-body">`+"\n", style, label)
		shut("</div></div>\n")
	case "tabs":
		if entering {
			// Radio inputs first, then the tab list of their labels, then
			// the panels: CSS shows the panel of the checked input.
			var tabs []*Block
			for c := b.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*Block); ok && t.Name == "tab" && t.index < MaxTabs {
					tabs = append(tabs, t)
				}
			}
			_, _ = w.WriteString(`<div class="tabs">`)
			for _, t := range tabs {
				checked := ""
				if t.index == 0 {
					checked = " checked"
				}
				fmt.Fprintf(w, `<input type="radio" class="tab-input" name="tabs-%d" id="tabs-%d-%d"%s>`, b.group, b.group, t.index, checked)
			}
			_, _ = w.WriteString(`<div class="tab-list" role="tablist">`)
			for _, t := range tabs {
				fmt.Fprintf(w, `<label class="tab" for="tabs-%d-%d" role="tab">%s</label>`, b.group, t.index, esc(tabTitle(t)))
			}
			_, _ = w.WriteString("</div>\n")
		}
		shut("</div>\n")
	case "tab":
		if b.index >= MaxTabs {
			// Past the tabs CSS can switch: shown as a section of its own.
			open(`<section class="tab-extra"><p class="tab-extra-title">%s</p>`+"\n", esc(tabTitle(b)))
			shut("</section>\n")
			break
		}
		open(`<div class="tab-panel" role="tabpanel" aria-label="%s">`+"\n", esc(tabTitle(b)))
		shut("</div>\n")
	case "stepper":
		open(`<ol class="stepper" role="list">` + "\n")
		shut("</ol>\n")
	case "step":
		open(`<li class="step" role="listitem"><div class="step-body">` + "\n")
		shut("</div></li>\n")
	case "code":
		cls := "code-block"
		if b.Attr("overflow") == "wrap" {
			cls += " wrap"
		}
		open(`<figure class="%s">`, cls)
		if t := b.Attr("title"); t != "" {
			open(`<figcaption class="code-title">%s</figcaption>`, esc(t))
		}
		open("\n")
		shut("</figure>\n")
	case "content-ref":
		if b.title != "" {
			// A card of the page it leads to, in place of its link.
			if entering {
				fmt.Fprintf(w, `<div class="content-ref card"><a class="content-ref-link" href="%s">%s</a></div>`+"\n", esc(b.Attr("url")), esc(b.title))
			}
			return ast.WalkSkipChildren, nil
		}
		open(`<div class="content-ref card">` + "\n")
		shut("</div>\n")
	case "embed":
		if entering {
			r.embed(w, b)
		}
		if b.leaf {
			return ast.WalkSkipChildren, nil
		}
		shut("</figcaption></figure>\n")
	case "file":
		if entering {
			src := b.Attr("src")
			name := path.Base(src)
			if u, err := url.PathUnescape(name); err == nil {
				name = u
			}
			fmt.Fprintf(w, `<div class="file card"><a class="file-link" href="%s" download>%s</a><div class="file-caption">`+"\n",
				esc(src), esc(name))
		}
		if b.leaf {
			_, _ = w.WriteString("</div></div>\n")
			return ast.WalkSkipChildren, nil
		}
		shut("</div></div>\n")
	case "columns":
		open(`<div class="columns">` + "\n")
		shut("</div>\n")
	case "column":
		width := ""
		if v := b.Attr("width"); widthValue.MatchString(v) {
			width = fmt.Sprintf(` data-width="%s"`, v)
		}
		open(`<div class="column"%s>`+"\n", width)
		shut("</div>\n")
	case "updates":
		open(`<div class="updates">` + "\n")
		shut("</div>\n")
	case "update":
		if entering {
			_, _ = w.WriteString(`<section class="update">`)
			if d := b.Attr("date"); d != "" {
				fmt.Fprintf(w, `<time class="update-date" datetime="%s">%s</time>`, esc(d), esc(d))
			}
			_, _ = w.WriteString("\n")
		}
		shut("</section>\n")
	case "prompt":
		open(`<div class="prompt card">`)
		if d := b.Attr("description"); d != "" {
			open(`<p class="prompt-description">%s</p>`, esc(d))
		}
		open("\n")
		shut("</div>\n")
	case "if":
		// Shown: the transformer removed it otherwise.
		return ast.WalkContinue, nil
	case "include":
		if entering {
			_, _ = w.WriteString(b.html)
		}
		return ast.WalkSkipChildren, nil
	default:
		open(`<div class="block" data-block="%s">`+"\n", esc(b.Name))
		shut("</div>\n")
	}
	return ast.WalkContinue, nil
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
