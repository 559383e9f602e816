package reader

import (
	"context"
	"encoding/json"
	"errors"
	"path"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/docspub/platform/services/sites/internal/gitbookmd"
	"github.com/docspub/platform/services/sites/internal/katex"
	"github.com/docspub/platform/services/sites/internal/limits"
)

// markdown renders pages in GitBook's dialect (gitbookmd): its blocks,
// raw HTML through one allow-list, links and files resolved to URLs under
// the site, {% if %} blocks evaluated on the reader's claims with the
// site's condition evaluation, formulas typeset by KaTeX on the server.
type markdown struct {
	r   *gitbookmd.Renderer
	tex *katex.Typesetter
}

func newMarkdown() *markdown {
	return &markdown{r: gitbookmd.New(),
		tex: katex.New(limits.ReaderFormulaBytes, limits.ReaderFormulaTime, runtime.GOMAXPROCS(0))}
}

// math typesets formulas for one page rendering, while ctx lasts, each
// kept in the reader's cache by organization and TeX: a new revision of a
// page typesets only the formulas it changed. A formula too slow to
// typeset is kept as such (shown as its source: not tried on every
// read). short tells whether a formula was left its source for lack of
// the page's time (ctx's): the rendering is then not kept, and the next
// one goes on from the formulas kept.
func (r *Reader) math(ctx context.Context, org string) (typeset func(string, bool) (string, bool), short func() bool) {
	var out bool
	return func(tex string, display bool) (string, bool) {
		key := cacheKey("tex", org, strconv.FormatBool(display), tex)
		if h, ok := r.cache.Get(key); ok {
			return h.(string), h.(string) != ""
		}
		h, err := r.markdown.tex.Typeset(ctx, tex, display)
		switch {
		case errors.Is(err, katex.ErrTooSlow):
			r.cache.Add(key, "", int64(len(key))+32)
			return "", false
		case err != nil:
			out = true
			return "", false
		}
		r.cache.Add(key, h, int64(len(h)+len(key))+32)
		return h, true
	}, func() bool { return out }
}

// render renders a page's markdown. Past limits.ReaderPageBytes the
// markdown is cut at a line end and cut says so.
func (m *markdown) render(src string, opts gitbookmd.Options) (res gitbookmd.Result, cut bool) {
	src, cut = bounded(src)
	return m.r.Render(src, opts), cut
}

// bounded is src cut at a line end past limits.ReaderPageBytes.
func bounded(src string) (string, bool) {
	if len(src) <= limits.ReaderPageBytes {
		return src, false
	}
	src = src[:limits.ReaderPageBytes]
	if i := strings.LastIndexByte(src, '\n'); i > 0 {
		src = src[:i]
	}
	return src, true
}

// ifTag finds an {% if %} tag: a page without one reads the same to
// every reader.
var ifTag = regexp.MustCompile(`\{%-?\s*if\s`)

// evaluated is a page's markdown as the reader may read it: its {% if %}
// blocks settled on their claims by the evaluation its HTML has
// (gitbookmd.Evaluate), bounded as its HTML is. Every output of a page
// but its HTML (<page>.md, llms-full.txt, search) reads it.
func (r *Reader) evaluated(rd *read, p *page) string {
	if !p.conditional {
		return p.markdown
	}
	src, _ := bounded(p.markdown)
	out, _ := r.markdown.r.Evaluate(src, r.condition(rd.visitor.claims))
	return out
}

// rendered is a page's rendering as cached. varies is true when it
// depends on the reader: {% if %} blocks, or links into other spaces of
// the site (which the reader may or may not see).
type rendered struct {
	res    gitbookmd.Result
	cut    bool
	varies bool
	// stored: the page shows stored OpenAPI specs, made at generation
	// gen of its organization's, usable until until (Reader.fresh).
	stored bool
	gen    uint64
	until  time.Time
	// text is the rendering's plain text and words, made when a search
	// first reads them (searchcond.go) and kept with it: shared by the
	// copies of a cached rendering.
	text *plainText
}

// content renders a page's body for the reader, cached by where it is
// served, its revision and page, and, for a page that varies, the
// reader's claims and the site spaces they see.
func (r *Reader) content(rd *read, v *variant, t *tree, p *page) rendered {
	files := rd.base + "/~files/" + v.ss.ID + "/" + t.id + "/"
	key := cacheKey("html", t.org, t.space, rd.base, v.path, t.id, p.id)
	out, ok := r.cache.Get(key)
	ok = ok && r.current(t.org, out.(rendered))
	if ok && !out.(rendered).varies {
		return out.(rendered)
	}
	claims, _ := json.Marshal(rd.visitor.claims)
	ckey := key + "\x00" + string(claims) + "\x00" + rd.st.seen()
	if ok {
		if c, ok := r.cache.Get(ckey); ok && r.current(t.org, c.(rendered)) {
			return c.(rendered)
		}
	}
	links := r.links(rd, v, t, p, files)
	// The page's formulas are typeset within limits.ReaderFormulasTime.
	mctx, cancel := context.WithTimeout(rd.ctx, limits.ReaderFormulasTime)
	defer cancel()
	math, short := r.math(mctx, t.org)
	api := &apiRender{r: r, ctx: rd.ctx, t: t}
	res, cut := r.markdown.render(p.markdown, gitbookmd.Options{
		Title:     p.title,
		Links:     links,
		PageTitle: links.Title,
		Cond:      r.condition(rd.visitor.claims),
		Include:   t.include,
		Math:      math,
		API:       api.render,
	})
	got := rendered{res: res, cut: cut, varies: res.Conditional || links.crossed, stored: api.stored, gen: api.gen, until: api.until,
		text: &plainText{}}
	if short() {
		// Formulas left their source for lack of time (the request's end,
		// the page's time): not kept, typeset next time.
		rd.partial = true
		return got
	}
	// The plain text and words a search may add are smaller than the
	// HTML they come of: counted as that much again.
	size := 2*int64(len(res.HTML)) + 64
	for _, h := range res.Headings {
		size += int64(len(h.ID)+len(h.Text)) + 32
	}
	if api.failed {
		return got // content did not answer: rendered again next time
	}
	if !ok {
		r.cache.Set(key, got, size)
	}
	if got.varies {
		r.cache.Set(ckey, got, size)
	}
	return got
}

// current tells whether a cached rendering may still be used: one that
// shows stored specs only while they are current (Reader.fresh).
func (r *Reader) current(org string, c rendered) bool {
	return !c.stored || r.fresh(org, c.gen, c.until)
}

// seen names the site spaces a structure shows, where.
func (st *structure) seen() string {
	if st == nil {
		return ""
	}
	var b strings.Builder
	for _, sec := range st.all {
		for _, v := range sec.variants {
			b.WriteString(v.ss.ID)
			b.WriteByte('=')
			b.WriteString(v.path)
			b.WriteByte(';')
		}
	}
	return b.String()
}

// condition evaluates {% if %} conditions as the site's conditions are:
// the same evaluation, on the same environment; one longer than a site's
// condition may be (limits.Condition) is false.
func (r *Reader) condition(claims map[string]any) func(string) bool {
	if claims == nil {
		claims = map[string]any{}
	}
	env := map[string]any{"visitor": map[string]any{"claims": claims}}
	return func(cond string) bool { return r.conds.Match(cond, env) }
}

// include finds an {% include "…/.gitbook/includes/<name>.md" %} among
// the revision's reusable contents: by id, or by the slug of its title.
func (t *tree) include(p string) (string, bool) {
	name := strings.TrimSuffix(path.Base(p), path.Ext(p))
	if md, ok := t.includes[name]; ok {
		return md, true
	}
	md, ok := t.includes[slugOf(name)]
	return md, ok
}
