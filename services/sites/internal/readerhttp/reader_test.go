package readerhttp_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/docspub/platform/libs/internalapi/readerapi"
	"github.com/docspub/platform/services/sites/internal/contentclient"
	"github.com/docspub/platform/services/sites/internal/contentclient/contenttest"
)

const welcome = "# Welcome\n\nHello **readers**.\n\n```go\nfmt.Println(\"hi\")\n```\n\n| tool | use |\n|---|---|\n| go | build |\n\n" +
	"- [x] installed\n- [ ] configured\n\n## Setup steps\n\n<script>alert('content')</script>\n\n" +
	"[click](javascript:alert(1)) and <img src=x onerror=alert(2)>\n\n![diagram](files/f1)\n"

func handbook() []contentclient.Page {
	hidden := contenttest.Doc("p4", "Secret draft", "draft", "Not listed.")
	hidden.Hidden = true
	group := contentclient.Page{ID: "g1", Kind: "group", Title: "Reference", Slug: "reference",
		Pages: []contentclient.Page{contenttest.Doc("p5", "API", "api", "The API.")}}
	install := contenttest.Doc("p2", "Install <b>it</b>", "install", "Run the installer.",
		contenttest.Doc("p3", "On Linux", "linux", "apt install docspub"))
	install.Description = "How to install, step by step."
	return []contentclient.Page{contenttest.Doc("p1", "Welcome", "welcome", welcome), install, hidden, group}
}

// TestPublicSite: a reader without a token reads a published site at its
// urls.published: the home page is the first page, rendered (code, tables,
// task lists, heading anchors), with no script of content's; navigation
// reaches every listed page; a merge shows on the next request.
func TestPublicSite(t *testing.T) {
	e := newEnv(t)
	e.content.AddSpace("sp1", "acme", "Handbook")
	e.content.MergeFiles("sp1", handbook(), map[string]contenttest.File{
		"f1": {Name: "diagram.png", ContentType: "image/png", Bytes: []byte("\x89PNG fake")}})
	id, url := e.site(`{"title":"Acme <Docs>","spaces":["sp1"]}`)
	if url != published+"/acme/"+id {
		t.Fatalf("urls.published = %q", url)
	}

	home := e.want(url, 200)
	for _, want := range []string{
		"<title>Welcome | Acme &lt;Docs&gt;</title>", "Hello <strong>readers</strong>.",
		`<pre class="chroma"><code>`, `<span class="nx">fmt</span>`, "<table>", "<td>build</td>",
		`<input checked="" disabled="" type="checkbox"`, `<h2 id="setup-steps">Setup steps<a href="#setup-steps"`,
		"Install &lt;b&gt;it&lt;/b&gt;", `src="/sites/acme/` + id + `/~files/`,
	} {
		if !strings.Contains(home.body, want) {
			t.Errorf("home page lacks %q", want)
		}
	}
	if n := strings.Count(home.body, "<h1"); n != 1 {
		t.Errorf("%d level-1 headings: the page's first heading repeats its title", n)
	}
	for _, bad := range []string{"alert(", "javascript:", "onerror", "<b>it</b>"} {
		if strings.Contains(home.body, bad) {
			t.Errorf("home page holds %q", bad)
		}
	}
	if csp := home.header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") ||
		!strings.Contains(csp, "script-src 'sha256-") || strings.Contains(csp, "unsafe-eval") {
		t.Errorf("Content-Security-Policy = %q", csp)
	}
	if home.header.Get("X-Robots-Tag") != "" || strings.Contains(home.body, "noindex") {
		t.Error("a public site is marked noindex")
	}

	// Navigation: every listed page, the hidden one left out; each link serves.
	links := home.navLinks()
	base := "/sites/acme/" + id
	want := []string{base, base + "/install", base + "/install/linux", base + "/reference/api"}
	if !slices.Equal(links, want) {
		t.Fatalf("navigation = %v, want %v", links, want)
	}
	for _, l := range links {
		e.want("http://gw.test"+l, 200)
	}
	// Gzipped for readers who take it, the same page.
	if gz := e.readGzip(url); gz != home.body {
		t.Errorf("gzipped home page differs (%d bytes, want %d)", len(gz), len(home.body))
	}
	install := e.want(base+"/install", 200)
	for _, want := range []string{`<meta name="description" content="How to install, step by step.">`,
		`<a rel="prev" href="` + base + `">← Welcome</a>`, `<a rel="next" href="` + base + `/install/linux">On Linux →</a>`,
		`<a href="` + base + `/install" aria-current="page">`} {
		if !strings.Contains(install.body, want) {
			t.Errorf("install page lacks %q", want)
		}
	}
	if p := e.want(base+"/draft", 200); !strings.Contains(p.body, "Not listed.") {
		t.Error("a hidden page is not served at its path")
	}
	if p := e.want(base+"/nowhere", 404); !strings.Contains(p.body, "Page not found") {
		t.Errorf("unknown page: %s", p.body)
	}
	e.want(base+"/reference", 404) // a group is no page

	// The file an image names, with its type.
	img := e.want(fileURL(t, home.body), 200)
	if img.body != "\x89PNG fake" || img.header.Get("Content-Type") != "image/png" ||
		!strings.HasPrefix(img.header.Get("Content-Disposition"), "inline") {
		t.Errorf("file: %q %v", img.body, img.header)
	}

	// Machines: markdown, llms.txt, robots.txt, sitemap.xml.
	md := e.want(base+"/install.md", 200)
	if md.header.Get("Content-Type") != "text/markdown; charset=utf-8" || !strings.HasPrefix(md.body, "# Install <b>it</b>\n\nHow to install") {
		t.Errorf("markdown: %v %q", md.header, md.body)
	}
	llms := e.want(base+"/llms.txt", 200).body
	if !strings.Contains(llms, "- [On Linux](http://gw.test"+base+"/install/linux.md)") || strings.Contains(llms, "Secret draft") ||
		!strings.Contains(llms, "- [Welcome](http://gw.test"+base+"/welcome.md)") {
		t.Errorf("llms.txt:\n%s", llms)
	}
	if full := e.want(base+"/llms-full.txt", 200).body; !strings.Contains(full, "apt install docspub") {
		t.Errorf("llms-full.txt:\n%s", full)
	}
	if robots := e.want(base+"/robots.txt", 200).body; !strings.Contains(robots, "Allow: /") {
		t.Errorf("robots.txt: %s", robots)
	}
	if sm := e.want(base+"/sitemap.xml", 200).body; !strings.Contains(sm, "<loc>http://gw.test"+base+"/install/linux</loc>") ||
		strings.Contains(sm, "draft") {
		t.Errorf("sitemap.xml: %s", sm)
	}

	// A merge shows on the next request.
	e.content.Merge("sp1", contenttest.Doc("p1", "Welcome", "welcome", "Merged words."))
	if p := e.want(url, 200); !strings.Contains(p.body, "Merged words.") {
		t.Errorf("after a merge: %s", p.body)
	}

	// Unlisted: served, not indexed.
	e.call("ada", "PATCH", "/v1/orgs/acme/sites/"+id, `{"visibility":"unlisted"}`, 200)
	p := e.want(url, 200)
	if p.header.Get("X-Robots-Tag") != "noindex" || !strings.Contains(p.body, `<meta name="robots" content="noindex">`) {
		t.Errorf("unlisted page: %v", p.header)
	}
	if robots := e.want(base+"/robots.txt", 200).body; !strings.Contains(robots, "Disallow: /") {
		t.Errorf("unlisted robots.txt: %s", robots)
	}
	e.want(base+"/sitemap.xml", 404)

	// Another organization's path, and an unpublished site, show nothing.
	e.want("/sites/other/"+id, 404)
	e.call("ada", "POST", "/v1/orgs/acme/sites/"+id+"/unpublish", "", 200)
	if p := e.want(url, 404); strings.Contains(p.body, "Acme") {
		t.Errorf("unpublished site shows its title: %s", p.body)
	}
	e.want(base+"/llms.txt", 404)
}

// TestViewsHandedToTheGateway: each page view, markdown and llms answer
// names the read to record in insights (readerapi.ViewHeader) for the
// gateway, which records it and sets the reader's cookies: sites sets no
// insights cookie. A public page's answer carries its cache tags; an
// error carries no view.
func TestViewsHandedToTheGateway(t *testing.T) {
	e := newEnv(t)
	e.content.AddSpace("sp1", "acme", "Handbook", contenttest.Doc("p1", "Welcome", "welcome", "Hi."))
	id, url := e.site(`{"title":"Docs","spaces":["sp1"]}`)
	types := map[string]readerapi.View{}
	for _, u := range []string{url, url + "/welcome.md", url + "/llms.txt"} {
		p := e.want(u, 200)
		v, ok := readerapi.ParseView(p.header.Get(readerapi.ViewHeader))
		if !ok {
			t.Fatalf("%s: view header %q", u, p.header.Get(readerapi.ViewHeader))
		}
		if v.Organization != "acme" || v.Site != id || !strings.HasPrefix(v.URL, "http://gw.test/sites/acme/") ||
			v.CookiePath != "/sites/acme/"+id {
			t.Errorf("%s: view %+v", u, v)
		}
		if len(p.header.Values("Set-Cookie")) > 0 {
			t.Errorf("%s: sites set cookies %q", u, p.header.Values("Set-Cookie"))
		}
		types[v.Type] = v
	}
	if v := types["page_view"]; v.Page != "p1" || v.Revision != "sp1-r1" || v.Space != "sp1" {
		t.Errorf("page_view %+v", v)
	}
	if _, ok := types["page_markdown_request"]; !ok {
		t.Error("no page_markdown_request")
	}
	if v := types["llms_request"]; v.LLMS != "standard" {
		t.Errorf("llms_request %+v", v)
	}
	page := e.want(url, 200)
	tags := readerapi.SplitTags(page.header.Get(readerapi.TagsHeader))
	want := []string{readerapi.OrgTag("acme"), readerapi.SiteTag(id), readerapi.SpaceTag("sp1")}
	if !slices.Equal(tags, want) {
		t.Errorf("tags %q, want %q", tags, want)
	}
	if p := e.read(url+"/nope", returning...); p.status != 404 || p.header.Get(readerapi.ViewHeader) != "" ||
		p.header.Get(readerapi.TagsHeader) != "" {
		t.Errorf("a missing page: %d, view %q, tags %q", p.status, p.header.Get(readerapi.ViewHeader), p.header.Get(readerapi.TagsHeader))
	}
}
