package reader

import (
	"bytes"
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

	"github.com/docspub/platform/libs/internalapi/readerapi"
	"github.com/docspub/platform/services/sites/internal/gitbookmd"
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
	// The page's layout: no heading, a wide page, its cover (Cover the
	// image's URL, CoverDark the dark theme's, CoverSize hero, full or
	// background, CoverY the image's offset, CoverHeight in pixels).
	NoHeading, Wide             bool
	Cover, CoverDark, CoverSize string
	CoverY                      float64
	CoverHeight                 int
	// MathCSS is KaTeX's stylesheet on a page of typeset formulas,
	// MermaidJS Mermaid's script on a page of diagrams ("": none).
	MathCSS, MermaidJS string
}

// theme is what every page of the layout shares: the stylesheet of
// highlighted code and tabs, the script that sets the reader's theme
// before the page is drawn (in <head>) and the page's script.
type theme struct {
	CodeCSS                           template.CSS
	HeadScript, Script, DiagramScript template.JS
}

var pageTheme = theme{CodeCSS: template.CSS(gitbookmd.CodeCSS + gitbookmd.TabsCSS),
	HeadScript: template.JS(headScript), Script: template.JS(pageScript), DiagramScript: template.JS(DiagramScript)}

// DiagramScript, on a page of mermaid diagrams only, loads Mermaid's
// script (its URL in the element's data-src: the CSP allows what a
// script of its hash loads, 'strict-dynamic') and draws each diagram in
// place of its source, in the theme the page shows, again when the theme
// changes (strict: Mermaid sanitizes the labels, runs no script of
// theirs). A diagram Mermaid cannot read stays its source.
const DiagramScript = `(function(){var s=document.currentScript,u=s&&s.getAttribute("data-src"),d=document.documentElement,n=0,items=[];if(!u)return;` +
	`document.querySelectorAll("pre.mermaid").forEach(function(pre){var c=pre.querySelector("code");items.push({el:pre,src:(c||pre).textContent})});` +
	`function dark(){var t=d.getAttribute("data-theme");return t==="dark"||(t!=="light"&&!!window.matchMedia&&matchMedia("(prefers-color-scheme: dark)").matches)}` +
	`function draw(){mermaid.initialize({startOnLoad:false,securityLevel:"strict",theme:dark()?"dark":"default"});` +
	`items.forEach(function(it){var id="mermaid-"+(n++);mermaid.render(id,it.src).then(function(r){var f=document.createElement("div");` +
	`f.className="mermaid";f.setAttribute("role","img");f.innerHTML=r.svg;it.el.replaceWith(f);it.el=f},` +
	`function(){var x=document.getElementById("d"+id);if(x)x.remove()})})}` +
	`var e=document.createElement("script");e.src=u;e.onload=function(){draw();` +
	`new MutationObserver(draw).observe(d,{attributes:true,attributeFilter:["data-theme"]});` +
	`if(window.matchMedia)matchMedia("(prefers-color-scheme: dark)").addEventListener("change",draw)};document.head.appendChild(e)})();`

// headScript sets the theme the reader picked (light or dark; none is
// the system's) on <html> before anything is drawn, so no page flashes
// the other one, and marks that scripts run (the theme button shows).
const headScript = `var d=document.documentElement;d.className="js";` +
	`try{var t=localStorage.getItem("theme");if(t==="light"||t==="dark")d.setAttribute("data-theme",t)}catch(e){}`

// pageScript adds a copy button to code blocks, makes the theme button
// switch system → light → dark (remembered in localStorage) and scrolls
// the navigation to the current page (the sidebar, as tall as the window,
// starts below the header until the window scrolls: its padding grows by
// what the window cuts off so that its last entries can be scrolled into
// view): the page works without it.
const pageScript = `document.querySelectorAll("article pre").forEach(function(pre){` +
	`if(!navigator.clipboard)return;var b=document.createElement("button");b.type="button";b.className="copy";` +
	`b.textContent="Copy";b.setAttribute("aria-label","Copy code");b.addEventListener("click",function(){` +
	`var c=pre.querySelectorAll(".cl");var t=c.length?Array.prototype.map.call(c,function(e){return e.textContent}).join(""):pre.textContent;` +
	`navigator.clipboard.writeText(t).then(function(){b.textContent="Copied"},function(){b.textContent="Failed"})});pre.appendChild(b)});` +
	`(function(){var b=document.querySelector("button.theme"),d=document.documentElement;if(!b)return;` +
	`var names={system:"◐ System",light:"☀ Light",dark:"☾ Dark"},next={system:"light",light:"dark",dark:"system"};` +
	`function now(){var t=d.getAttribute("data-theme");return t==="light"||t==="dark"?t:"system"}` +
	`function show(){b.textContent=names[now()];b.setAttribute("aria-label","Theme: "+now()+" (switch)")}` +
	`b.addEventListener("click",function(){var t=next[now()];if(t==="system")d.removeAttribute("data-theme");else d.setAttribute("data-theme",t);` +
	`try{if(t==="system")localStorage.removeItem("theme");else localStorage.setItem("theme",t)}catch(e){}show()});show()})();` +
	`(function(){var s=document.querySelector(".sidebar"),a=s&&s.querySelector("a[aria-current]");` +
	`if(!a||s.scrollHeight<=s.clientHeight)return;var q=s.getBoundingClientRect(),bottom=Math.min(q.bottom,window.innerHeight);` +
	`s.style.paddingBottom=(parseFloat(getComputedStyle(s).paddingBottom)+q.bottom-bottom)+"px";` +
	`var r=a.getBoundingClientRect();if(r.top<q.top||r.bottom>bottom)s.scrollTop+=r.top-q.top-(bottom-q.top)/3})();`

// PagePolicy is the Content-Security-Policy of pages: their own styles
// and the site's (KaTeX's stylesheet and fonts), images, the layout's
// scripts by their hashes and what they load (Mermaid's script:
// 'strict-dynamic'; no script of content's is loaded by them), and frames
// of the embed providers gitbookmd allows.
var PagePolicy = "default-src 'none'; img-src 'self' https: http: data:; style-src 'self' 'unsafe-inline'; " +
	"font-src 'self'; script-src " + scriptHash(headScript) + " " + scriptHash(pageScript) + " " +
	scriptHash(DiagramScript) + " 'strict-dynamic'; " +
	"frame-src " + strings.Join(gitbookmd.FrameSources, " ") + "; " +
	"form-action 'self'; base-uri 'none'; frame-ancestors 'self'"

// scriptHash is a script's source as the CSP allows it.
func scriptHash(script string) string {
	sum := sha256.Sum256([]byte(script))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
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

// renderedPage is a whole page as answered, and gzipped, with its strong
// validator (a digest of the HTML) and when it was rendered.
type renderedPage struct {
	html, gz []byte
	etag     string
	at       time.Time
	// body is its content's rendering: a page showing stored OpenAPI
	// specs is used while they are current (Reader.current).
	body rendered
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
			resp, _ := r.renderPage(rd, sec, v, t, p)
			return resp
		}
		key += "\x00" + string(claims) + "\x00" + rd.st.seen()
	}
	if cached, ok := r.cache.Get(key); ok && r.current(t.org, cached.(*renderedPage).body) {
		rp := cached.(*renderedPage)
		rd.resp.Status, rd.resp.Type, rd.resp.Body, rd.resp.Gzip = http.StatusOK, "text/html; charset=utf-8", rp.html, rp.gz
		rd.resp.ETag, rd.resp.LastModified = rp.etag, rp.at
		return rd.resp
	}
	resp, body := r.renderPage(rd, sec, v, t, p)
	if resp.Status == http.StatusOK && !rd.partial {
		if gz, err := readerapi.Gzip(resp.Body); err == nil {
			resp.Gzip = gz
		}
		sum := sha256.Sum256(resp.Body)
		rp := &renderedPage{html: resp.Body, gz: resp.Gzip, etag: hex.EncodeToString(sum[:16]), at: r.now().UTC().Truncate(time.Second),
			body: rendered{stored: body.stored, gen: body.gen, until: body.until}}
		resp.ETag, resp.LastModified = rp.etag, rp.at
		r.cache.Set(key, rp, int64(len(resp.Body)+len(resp.Gzip)+len(key))+96)
	}
	return resp
}

func (r *Reader) renderPage(rd *read, sec *vsection, v *variant, t *tree, p *page) (*Response, rendered) {
	d := r.frame(rd, sec, v)
	d.Title, d.Heading, d.Emoji, d.Lead, d.Description = p.title, p.title, p.emoji, p.description, p.description
	d.Canonical = rd.origin + rd.pageURL(v, t, p)
	out := r.content(rd, v, t, p)
	d.Content, d.Cut, d.Outline = template.HTML(out.res.HTML), out.cut, out.res.Headings
	if out.res.Math {
		d.MathCSS = rd.staticURL(KaTeXCSS)
	}
	if out.res.Diagrams {
		d.MermaidJS = rd.staticURL(MermaidJS)
	}
	d.Crumbs = crumbs(rd, v, t, p)
	d.Nav, d.NavRest = r.nav(rd, v, t, rd.pageURL(v, t, p))
	if p.index >= 0 && (p.layout == nil || p.layout.Pagination) {
		if p.index > 0 {
			q := t.docs[p.index-1]
			d.Prev = &link{Title: q.title, URL: rd.pageURL(v, t, q)}
		}
		if p.index+1 < len(t.docs) {
			q := t.docs[p.index+1]
			d.Next = &link{Title: q.title, URL: rd.pageURL(v, t, q)}
		}
	}
	r.pageLayout(rd, v, t, p, &d)
	return r.htmlResponse(rd, http.StatusOK, d), out
}

// pageLayout applies a page's layout options to what is shown of it: its
// heading, description, table of contents and outline when visible, its
// width, its cover (its sources resolved as the page's images are; one
// that names nothing is no cover).
func (r *Reader) pageLayout(rd *read, v *variant, t *tree, p *page, d *pageData) {
	if l := p.layout; l != nil {
		d.NoHeading, d.Wide = !l.Title, l.Width == "wide"
		if !l.Description {
			d.Lead = ""
		}
		if !l.TableOfContents {
			d.Nav, d.NavRest = "", ""
		}
		if !l.Outline {
			d.Outline = nil
		}
	}
	c := p.cover
	if c == nil || (p.layout != nil && !p.layout.Cover) {
		return
	}
	links := r.links(rd, v, t, p, rd.base+"/~files/"+v.ss.ID+"/"+t.id+"/")
	src, ok := links.Resolve(c.Src)
	if !ok || src == "" {
		return
	}
	d.Cover, d.CoverY, d.CoverHeight, d.CoverSize = src, c.YPos, c.Height, "hero"
	if p.layout != nil {
		d.CoverSize = p.layout.CoverSize
	}
	if c.SrcDark != "" {
		if dark, ok := links.Resolve(c.SrcDark); ok {
			d.CoverDark = dark
		}
	}
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
