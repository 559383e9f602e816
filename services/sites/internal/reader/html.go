package reader

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/docspub/platform/services/sites/internal/gitbookmd"
	"github.com/docspub/platform/services/sites/internal/limits"
)

//go:embed layout.html
var layoutHTML string

// layout is every HTML page of a site: html/template escapes what content
// and sites' users wrote; Nav and Content are HTML the reader made itself
// (escaped navigation, markdown rendered without raw HTML).
var layout = template.Must(template.New("layout").Funcs(template.FuncMap{
	"theme":   func() theme { return pageTheme },
	"initial": initial,
	"icon":    icon,
}).Parse(layoutHTML))

// icon is the site's icon as an image: its initial on the theme's colour.
func icon(title string) template.URL {
	svg := `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="8" fill="#346ddb"/>` +
		`<text x="16" y="22" font-family="system-ui,sans-serif" font-size="18" font-weight="700" fill="#fff" text-anchor="middle">` +
		template.HTMLEscapeString(initial(title)) + `</text></svg>`
	return template.URL("data:image/svg+xml," + url.PathEscape(svg))
}

// initial is the site's icon: the first letter of its title.
func initial(title string) string {
	for _, r := range title {
		return strings.ToUpper(string(r))
	}
	return "D"
}

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
	// Outline is the page's "On this page"; Crumbs the pages above it.
	Outline []gitbookmd.Heading
	Crumbs  []link
}

// theme is what every page of the layout shares: the stylesheet of
// highlighted code and tabs, and the copy button's script.
type theme struct {
	CodeCSS template.CSS
	Script  template.JS
}

var pageTheme = theme{CodeCSS: template.CSS(gitbookmd.CodeCSS + gitbookmd.TabsCSS), Script: template.JS(copyScript)}

// copyScript adds a copy button to code blocks: the page works without
// it. PagePolicy allows it by its hash, and no other script.
const copyScript = `document.querySelectorAll("article pre").forEach(function(pre){` +
	`if(!navigator.clipboard)return;var b=document.createElement("button");b.type="button";b.className="copy";` +
	`b.textContent="Copy";b.setAttribute("aria-label","Copy code");b.addEventListener("click",function(){` +
	`var c=pre.querySelectorAll(".cl");var t=c.length?Array.prototype.map.call(c,function(e){return e.textContent}).join(""):pre.textContent;` +
	`navigator.clipboard.writeText(t).then(function(){b.textContent="Copied"},function(){b.textContent="Failed"})});pre.appendChild(b)});`

// PagePolicy is the Content-Security-Policy of pages: their own styles,
// images, the copy button's script by its hash, and frames of the embed
// providers gitbookmd allows.
var PagePolicy = func() string {
	sum := sha256.Sum256([]byte(copyScript))
	return "default-src 'none'; img-src 'self' https: http: data:; style-src 'unsafe-inline'; " +
		"script-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'; " +
		"frame-src " + strings.Join(gitbookmd.FrameSources, " ") + "; " +
		"form-action 'self'; base-uri 'none'; frame-ancestors 'self'"
}()

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

// renderedPage is a whole page as answered, and gzipped, with its strong
// validator (a digest of the HTML) and when it was rendered.
type renderedPage struct {
	html, gz []byte
	etag     string
	at       time.Time
}

// pageHTML renders a page with the site's navigation. A rendered page is a
// pure function of the site's snapshot (its version: publication state,
// visibility, sections, site spaces, projected spaces), the revision,
// where it is served and the visitor's segment (their claims and the site
// spaces they see): it is rendered (and gzipped) once for each and cached,
// bounded in bytes with the rest of the reader's cache. Who may read it is
// decided before, on every request (admit): the cache only saves the
// rendering.
func (r *Reader) pageHTML(rd *read, sec *vsection, v *variant, t *tree, p *page) *Response {
	rd.resp.View = rd.view("page_view", sec, v, t, p)
	key := cacheKey("page", rd.snap.version, rd.origin, rd.base, v.path, t.org, t.space, t.id, p.id)
	if rd.st != rd.snap.anonymous {
		claims, err := json.Marshal(rd.visitor.claims)
		if err != nil {
			return r.renderPage(rd, sec, v, t, p)
		}
		key += "\x00" + string(claims) + "\x00" + rd.st.seen()
	}
	if cached, ok := r.cache.Get(key); ok {
		rp := cached.(*renderedPage)
		rd.resp.Status, rd.resp.Type, rd.resp.Body, rd.resp.Gzip = http.StatusOK, "text/html; charset=utf-8", rp.html, rp.gz
		rd.resp.ETag, rd.resp.LastModified = rp.etag, rp.at
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
		sum := sha256.Sum256(resp.Body)
		rp := &renderedPage{html: resp.Body, gz: resp.Gzip, etag: hex.EncodeToString(sum[:16]), at: r.now().UTC().Truncate(time.Second)}
		resp.ETag, resp.LastModified = rp.etag, rp.at
		r.cache.Add(key, rp, int64(len(resp.Body)+len(resp.Gzip)+len(key))+96)
	}
	return resp
}

func (r *Reader) renderPage(rd *read, sec *vsection, v *variant, t *tree, p *page) *Response {
	d := r.frame(rd, sec, v)
	d.Title, d.Heading, d.Emoji, d.Lead, d.Description = p.title, p.title, p.emoji, p.description, p.description
	d.Canonical = rd.origin + rd.pageURL(v, t, p)
	out := r.content(rd, v, t, p)
	d.Content, d.Cut, d.Outline = template.HTML(out.res.HTML), out.cut, out.res.Headings
	d.Crumbs = crumbs(rd, v, t, p)
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

// crumbs are the pages above p: groups as text, documents as links.
func crumbs(rd *read, v *variant, t *tree, p *page) []link {
	var out []link
	segs := strings.Split(p.path, "/")
	for i := 1; i < len(segs); i++ {
		q, ok := t.byPath[strings.Join(segs[:i], "/")]
		if !ok {
			continue
		}
		l := link{Title: q.title}
		if q.document() {
			l.URL = rd.pageURL(v, t, q)
		}
		out = append(out, l)
	}
	return out
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
