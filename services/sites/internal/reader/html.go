package reader

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"html/template"
	"net/http"
	"strings"

	"github.com/docspub/platform/services/sites/internal/limits"
)

//go:embed layout.html
var layoutHTML string

// layout is every HTML page of a site: html/template escapes what content
// and sites' users wrote; Nav and Content are HTML the reader made itself
// (escaped navigation, markdown rendered without raw HTML).
var layout = template.Must(template.New("layout").Parse(layoutHTML))

// pageData fills the layout.
type pageData struct {
	Title, SiteTitle, SiteURL, Description, Canonical, SearchURL, Query string
	NoIndex                                                             bool
	Tabs                                                                []link
	Variants                                                            []link
	Nav, NavRest                                                        template.HTML
	Emoji, Heading, Lead                                                string
	Content                                                             template.HTML
	Cut                                                                 bool
	Results                                                             []result
	Prev, Next                                                          *link
}

type link struct {
	Title, URL string
	Active     bool
	Members    []link
}

type result struct {
	Title, URL, Space, Snippet string
}

// htmlResponse renders the layout as the answer.
func (r *Reader) htmlResponse(rd *read, status int, d pageData) *Response {
	var b bytes.Buffer
	b.Grow(len(d.Nav) + len(d.NavRest) + len(d.Content) + len(layoutHTML) + 4096)
	d.NoIndex = rd.resp.NoIndex
	if err := layout.Execute(&b, d); err != nil {
		resp := rd.resp
		resp.Status, resp.Type, resp.Body, resp.Err = http.StatusInternalServerError, "text/plain; charset=utf-8", []byte("error\n"), err
		return resp
	}
	resp := rd.resp
	resp.Status, resp.Type, resp.Body = status, "text/html; charset=utf-8", b.Bytes()
	return resp
}

// frame is the layout around a page of the site: its title, search box,
// sections and variants, the active ones marked.
func (r *Reader) frame(rd *read, sec *vsection, v *variant) pageData {
	d := pageData{SiteTitle: rd.site.Title, SiteURL: rd.url(""), SearchURL: rd.url("/~search")}
	if rd.st == nil {
		return d
	}
	for _, t := range rd.st.tabs {
		if t.section != nil {
			d.Tabs = append(d.Tabs, link{Title: t.section.title, URL: rd.url(t.section.prefix), Active: t.section == sec})
			continue
		}
		l := link{Title: t.group.Title}
		for _, m := range t.members {
			l.Members = append(l.Members, link{Title: m.title, URL: rd.url(m.prefix), Active: m == sec})
			l.Active = l.Active || m == sec
		}
		d.Tabs = append(d.Tabs, l)
	}
	if sec != nil {
		if listed := sec.listed(); len(listed) > 1 || (len(listed) == 1 && listed[0] != v) {
			for _, w := range listed {
				d.Variants = append(d.Variants, link{Title: w.title, URL: rd.url(w.path), Active: w == v})
			}
		}
	}
	return d
}

// url is a path under the site on this host ("" and "/" are its root).
func (rd *read) url(path string) string {
	if u := rd.base + path; u != "" {
		return u
	}
	return "/"
}

// pageURL is where a page of a variant is: the variant's root for its home.
func (rd *read) pageURL(v *variant, t *tree, p *page) string {
	if p == t.first {
		return rd.url(v.path)
	}
	return rd.base + v.path + "/" + p.path
}

// renderedPage is a whole page as answered, and gzipped.
type renderedPage struct {
	html, gz []byte
}

// pageHTML renders a page with the site's navigation. A page for the
// structure a visitor without claims sees depends on nothing else than the
// site's snapshot, the revision and where it is served: it is rendered
// (and gzipped) once per snapshot and cached.
func (r *Reader) pageHTML(rd *read, sec *vsection, v *variant, t *tree, p *page) *Response {
	rd.resp.View = rd.view("page_view", sec, v, t, p)
	if rd.st != rd.snap.anonymous {
		return r.renderPage(rd, sec, v, t, p)
	}
	key := cacheKey("page", fmt.Sprint(rd.snap.id), rd.origin, rd.base, v.path, t.org, t.space, t.id, p.id)
	if cached, ok := r.cache.Get(key); ok {
		rp := cached.(*renderedPage)
		rd.resp.Status, rd.resp.Type, rd.resp.Body, rd.resp.Gzip = http.StatusOK, "text/html; charset=utf-8", rp.html, rp.gz
		return rd.resp
	}
	resp := r.renderPage(rd, sec, v, t, p)
	if resp.Status == http.StatusOK {
		var gz bytes.Buffer
		w, _ := gzip.NewWriterLevel(&gz, gzip.BestSpeed)
		_, _ = w.Write(resp.Body)
		if w.Close() == nil {
			resp.Gzip = gz.Bytes()
		}
		r.cache.Add(key, &renderedPage{html: resp.Body, gz: resp.Gzip}, int64(len(resp.Body)+len(resp.Gzip))+64)
	}
	return resp
}

func (r *Reader) renderPage(rd *read, sec *vsection, v *variant, t *tree, p *page) *Response {
	d := r.frame(rd, sec, v)
	d.Title, d.Heading, d.Emoji, d.Lead, d.Description = p.title, p.title, p.emoji, p.description, p.description
	d.Canonical = rd.origin + rd.pageURL(v, t, p)
	files := rd.base + "/~files/" + v.ss.ID + "/" + t.id + "/"
	key := cacheKey("html", t.org, t.space, files, p.id)
	type rendered struct {
		html string
		cut  bool
	}
	out, ok := r.cache.Get(key)
	if !ok {
		h, cut := r.markdown.render(p.markdown, p.title, files)
		out = rendered{html: h, cut: cut}
		r.cache.Add(key, out, int64(len(h))+64)
	}
	d.Content, d.Cut = template.HTML(out.(rendered).html), out.(rendered).cut
	d.Nav, d.NavRest = r.nav(rd, v, t, rd.pageURL(v, t, p))
	if p.index >= 0 {
		if p.index > 0 {
			q := t.docs[p.index-1]
			d.Prev = &link{Title: q.title, URL: rd.pageURL(v, t, q)}
		}
		if p.index+1 < len(t.docs) {
			q := t.docs[p.index+1]
			d.Next = &link{Title: q.title, URL: rd.pageURL(v, t, q)}
		}
	}
	return r.htmlResponse(rd, http.StatusOK, d)
}

// nav is a variant's page tree as HTML: hidden pages are left out, groups
// are headings, at most limits.ReaderNavPages pages. The tree's HTML is
// cached by where it is served and its revision; it comes back in two
// pieces, cut inside the current page's link, where the layout marks it
// (rest is empty when the page is not listed).
func (r *Reader) nav(rd *read, v *variant, t *tree, current string) (html, rest template.HTML) {
	key := cacheKey("nav", rd.site.ID, rd.base, v.path, t.org, t.space, t.id)
	cached, ok := r.cache.Get(key)
	if !ok {
		var b strings.Builder
		n := 0
		var list func(ps []*page)
		list = func(ps []*page) {
			b.WriteString("<ul>")
			for _, p := range ps {
				if p.hidden || n >= limits.ReaderNavPages {
					continue
				}
				n++
				if p.document() {
					b.WriteString(`<li><a href="`)
					b.WriteString(template.HTMLEscapeString(rd.pageURL(v, t, p)))
					b.WriteString(`">`)
				} else {
					b.WriteString(`<li class="group"><span>`)
				}
				b.WriteString(template.HTMLEscapeString(p.title))
				if p.document() {
					b.WriteString("</a>")
				} else {
					b.WriteString("</span>")
				}
				if len(p.children) > 0 {
					list(p.children)
				}
				b.WriteString("</li>")
			}
			b.WriteString("</ul>")
		}
		list(t.top())
		if n >= limits.ReaderNavPages {
			b.WriteString(`<p class="note">Some pages are not listed here.</p>`)
		}
		cached = b.String()
		r.cache.Add(key, cached, int64(b.Len())+64)
	}
	all := cached.(string)
	mark := `href="` + template.HTMLEscapeString(current) + `"`
	if i := strings.Index(all, mark); i >= 0 {
		return template.HTML(all[:i+len(mark)]), template.HTML(all[i+len(mark):])
	}
	return template.HTML(all), ""
}

// message answers an error page within the site's frame when a site is
// known.
func (r *Reader) message(rd *read, status int, title, text string) *Response {
	// Only an admitted reader sees anything of the site, its title included.
	d := pageData{Title: title, Heading: title, Lead: text, SiteTitle: "Published docs", SiteURL: "/"}
	if rd.st != nil {
		d = r.frame(rd, nil, nil)
		d.Title, d.Heading, d.Lead = title, title, text
	}
	rd.resp.NoIndex = true
	rd.resp.Public = false
	return r.htmlResponse(rd, status, d)
}

func (r *Reader) notFound(rd *read, text string) *Response {
	return r.message(rd, http.StatusNotFound, "Page not found", text)
}
