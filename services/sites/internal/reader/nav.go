package reader

import (
	"html/template"
	"net/url"
	"slices"
	"strings"

	"github.com/docspub/platform/services/sites/internal/limits"
)

// navTree is a variant's page tree as HTML, and for each page's URL where
// the <details> of the pages above it (and its own, when it has pages
// under it) are: those open when it is the current page.
type navTree struct {
	html  string
	opens map[string][]int
}

// nav is a variant's page tree as HTML: hidden pages are left out, groups
// are headings, a page with pages under it folds them (<details>), open
// only above the current page; at most limits.ReaderNavPages pages. The
// tree is cached by where it is served and its revision; it comes back in
// two pieces, cut inside the current page's link, where the layout marks
// it (rest is empty when the page is not listed).
func (r *Reader) nav(rd *read, v *variant, t *tree, current string) (html, rest template.HTML) {
	key := cacheKey("nav", rd.site.ID, rd.base, v.path, t.org, t.space, t.id)
	cached, ok := r.cache.Get(key)
	if !ok {
		nb := &navBuilder{r: r, rd: rd, v: v, t: t, opens: map[string][]int{}}
		nb.list(t.top())
		if nb.n >= limits.ReaderNavPages {
			nb.b.WriteString(`<p class="note">Some pages are not listed here.</p>`)
		}
		nt := &navTree{html: nb.b.String(), opens: nb.opens}
		size := len(nt.html) + 64
		for u, o := range nt.opens {
			size += len(u) + 8*len(o) + 48
		}
		cached = nt
		r.cache.Add(key, cached, int64(size))
	}
	nt := cached.(*navTree)
	all := nt.html
	if opens := nt.opens[current]; len(opens) > 0 {
		var b strings.Builder
		b.Grow(len(all) + len(opens)*len(" open"))
		at := 0
		for _, o := range opens {
			b.WriteString(all[at:o])
			b.WriteString(" open")
			at = o
		}
		b.WriteString(all[at:])
		all = b.String()
	}
	// The current page's own entry: a link entry to it is not.
	mark := `href="` + template.HTMLEscapeString(current) + `"`
	for at := 0; ; {
		i := strings.Index(all[at:], mark)
		if i < 0 {
			return template.HTML(all), ""
		}
		i += at
		if !strings.HasSuffix(all[:i], `<li class="link"><a `) {
			return template.HTML(all[:i+len(mark)]), template.HTML(all[i+len(mark):])
		}
		at = i + len(mark)
	}
}

// navBuilder writes a navTree.
type navBuilder struct {
	r     *Reader
	rd    *read
	v     *variant
	t     *tree
	b     strings.Builder
	n     int
	above []int // where the open <details> being written are
	opens map[string][]int
}

func (nb *navBuilder) list(ps []*page) {
	nb.b.WriteString("<ul>")
	for _, p := range ps {
		if p.hidden || nb.n >= limits.ReaderNavPages {
			continue
		}
		nb.n++
		if p.link() {
			nb.linkItem(p)
			continue
		}
		if !p.document() {
			nb.b.WriteString(`<li class="group"><span>`)
			nb.b.WriteString(template.HTMLEscapeString(p.title))
			nb.b.WriteString("</span>")
			if len(p.children) > 0 {
				nb.list(p.children)
			}
			nb.b.WriteString("</li>")
			continue
		}
		u := nb.rd.pageURL(nb.v, nb.t, p)
		folds := slices.ContainsFunc(p.children, func(c *page) bool { return !c.hidden })
		nb.b.WriteString("<li>")
		if folds {
			nb.b.WriteString("<details")
			nb.above = append(nb.above, nb.b.Len())
			nb.b.WriteString("><summary>")
		}
		if len(nb.above) > 0 {
			nb.opens[u] = slices.Clone(nb.above)
		}
		nb.b.WriteString(`<a href="`)
		nb.b.WriteString(template.HTMLEscapeString(u))
		nb.b.WriteString(`">`)
		nb.b.WriteString(template.HTMLEscapeString(p.title))
		nb.b.WriteString("</a>")
		if folds {
			nb.b.WriteString("</summary>")
			nb.list(p.children)
			nb.b.WriteString("</details>")
			nb.above = nb.above[:len(nb.above)-1]
		}
		nb.b.WriteString("</li>")
	}
	nb.b.WriteString("</ul>")
}

// linkItem writes a link of the table of contents: to the page (and its
// anchor) or the URL it names, resolved as links of the space's first
// page are (relative to the docs root); one that names nothing readers
// can open is its title as text, and so is one into another space (the
// tree is cached for every reader, who may not all see that space).
func (nb *navBuilder) linkItem(p *page) {
	l := &pageLinks{r: nb.r, rd: nb.rd, v: nb.v, t: nb.t}
	u, ok := "", false
	if !strings.HasPrefix(strings.TrimSpace(p.href), "../") {
		u, ok = l.Resolve(p.href)
	}
	if ok && u != "" && !strings.HasPrefix(u, "#") {
		if pu, err := url.Parse(u); err != nil || (pu.Scheme != "" && pu.Scheme != "http" && pu.Scheme != "https" && pu.Scheme != "mailto") {
			ok = false
		}
	} else {
		ok = false
	}
	nb.b.WriteString(`<li class="link">`)
	if !ok {
		nb.b.WriteString("<span>" + template.HTMLEscapeString(p.title) + "</span></li>")
		return
	}
	nb.b.WriteString(`<a href="`)
	nb.b.WriteString(template.HTMLEscapeString(u))
	nb.b.WriteString(`"`)
	if external(u) {
		nb.b.WriteString(` rel="noopener" target="_blank"`)
	}
	nb.b.WriteString(`>`)
	nb.b.WriteString(template.HTMLEscapeString(p.title))
	nb.b.WriteString("</a></li>")
}

// external tells whether a URL leaves the site (it has a host).
func external(u string) bool {
	pu, err := url.Parse(u)
	return err == nil && pu.Host != ""
}
