package readerhttp_test

import (
	"strings"
	"testing"

	"github.com/docspub/platform/services/sites/internal/contentclient"
	"github.com/docspub/platform/services/sites/internal/contentclient/contenttest"
)

// gitbookTree is a space as Git import makes it of a GitBook repository:
// README.md, a group of pages, a folder page with children, with the
// repository's relative links and .gitbook/assets files.
func gitbookTree() []contentclient.Page {
	home := "Read [the concepts](reference/concepts.md), [Git sync](guides/git-sync/), " +
		"[Linux](guides/install.md#on-linux) and [nowhere](nowhere.md).\n\n" +
		"Across spaces: [the API reference](../api/reference.md#calls), [a hidden space](../drafts/x.md).\n\n" +
		"Files: [the spec](assets/spec.yaml), [no such file](assets/none.yaml).\n\n" +
		"![logo](.gitbook/assets/logo.png)\n\n<figure><img src=\".gitbook/assets/my shot.png\" alt=\"Shot\"><figcaption><p>A shot</p></figcaption></figure>\n\n" +
		"{% if visitor.claims.unsigned.preview %}\nPreview only.\n{% endif %}\n\n" +
		"{% hint style=\"success\" %}\nDone.\n{% endhint %}\n\n## Next steps <a href=\"#next\" id=\"next\"></a>\n\n## Next steps\n"
	return []contentclient.Page{
		contenttest.Doc("p1", "Welcome", "welcome", home),
		{ID: "g1", Kind: "group", Title: "Reference", Slug: "reference", Pages: []contentclient.Page{
			contenttest.Doc("p2", "Concepts", "concepts", "[Home](../README.md) and [setup](../guides/git-sync/setup.md).\n"),
		}},
		contenttest.Doc("p3", "Guides", "guides", "[Install](install.md)\n",
			contenttest.Doc("p4", "Git sync", "git-sync", "Sync.\n",
				contenttest.Doc("p5", "Setup", "setup", "[Up](README.md), [install](../install.md), [concepts](../../reference/concepts.md#top).\n")),
			contenttest.Doc("p6", "Install", "install", "## On Linux\n\napt.\n"),
		),
	}
}

// TestGitBookPages: a GitBook repository's pages read as GitBook shows
// them: blocks rendered, links between pages to their URLs on the site,
// assets to the files' URLs, a link to a page that is not there as text,
// {% if %} blocks shown only to the claims they name.
func TestGitBookPages(t *testing.T) {
	e := newEnv(t)
	e.content.AddSpace("sp1", "acme", "Handbook")
	e.content.MergeFiles("sp1", gitbookTree(), map[string]contenttest.File{
		"f1": {Name: "logo.png", ContentType: "image/png", Bytes: []byte("\x89PNG logo")},
		"f2": {Name: "my shot.png", ContentType: "image/png", Bytes: []byte("\x89PNG shot")},
		"f3": {Name: "spec.yaml", ContentType: "application/yaml", Bytes: []byte("openapi: 3.1.0\n")}})
	e.content.AddSpace("sp2", "acme", "API", contenttest.Doc("a0", "Overview", "overview", "The API.\n"),
		contenttest.Doc("a1", "Reference", "reference", "## Calls\n"))
	e.content.AddSpace("sp3", "acme", "Drafts", contenttest.Doc("d1", "X", "x", "Not on the site.\n"))
	id, url := e.site(`{"title":"Handbook","spaces":["sp1","sp2"]}`)
	base := "/sites/acme/" + id
	e.call("ada", "PUT", "/v1/orgs/acme/sites/"+id+"/adaptive-schema", `{"jsonSchema":{"type":"object","properties":{
		"unsigned":{"type":"object","properties":{"preview":{"type":"boolean"}},"additionalProperties":false}},"additionalProperties":false}}`, 200)
	e.call("ada", "PATCH", "/v1/orgs/acme/sites/"+id, `{"adaptiveContent":{"enabled":true}}`, 200)

	home := e.want(url, 200)
	for _, want := range []string{
		`<a href="` + base + `/reference/concepts">the concepts</a>`, `<a href="` + base + `/guides/git-sync">Git sync</a>`,
		`<a href="` + base + `/guides/install#on-linux">Linux</a>`, " and nowhere.",
		`<a href="` + base + `/api/reference#calls">the API reference</a>`, ", a hidden space.",
		`<a href="` + base + `/~files/`, `">the spec</a>, no such file.`,
		`<img src="` + base + `/~files/`, `<figure><img src="` + base + `/~files/`, `<figcaption><p>A shot</p></figcaption>`,
		`<div class="hint hint-success" role="note"`, `<h2 id="next">Next steps`, `<h2 id="next-steps">Next steps`,
		`<aside class="outline"><nav aria-label="On this page">`, `<a href="#next">Next steps</a>`,
	} {
		if !strings.Contains(home.body, want) {
			t.Errorf("home lacks %q in %s", want, articleOf(home.body))
		}
	}
	for _, bad := range []string{"{%", "raw HTML omitted", "nowhere.md", ".gitbook/assets", "Preview only"} {
		if strings.Contains(home.body, bad) {
			t.Errorf("home holds %q", bad)
		}
	}
	preview := e.want(url+"?visitor.preview=true", 200)
	if !strings.Contains(preview.body, "<p>Preview only.</p>") {
		t.Error("the {% if %} block is not shown to a reader whose claims meet it")
	}
	if again := e.want(url, 200); strings.Contains(again.body, "Preview only") {
		t.Error("the {% if %} block shown to a reader without the claim after one with it read the page")
	}
	for _, tc := range []struct{ page, want string }{
		{"/reference/concepts", `<a href="` + base + `">Home</a> and <a href="` + base + `/guides/git-sync/setup">setup</a>`},
		{"/guides", `<a href="` + base + `/guides/install">Install</a>`},
		{"/guides/git-sync/setup", `<a href="` + base + `/guides/git-sync">Up</a>, <a href="` + base + `/guides/install">install</a>, <a href="` + base + `/reference/concepts#top">concepts</a>`},
	} {
		p := e.want("http://gw.test"+base+tc.page, 200)
		if !strings.Contains(p.body, tc.want) {
			t.Errorf("%s lacks %q", tc.page, tc.want)
		}
	}
	setup := e.want("http://gw.test"+base+"/guides/git-sync/setup", 200)
	if !strings.Contains(setup.body, `<nav class="breadcrumbs" aria-label="Breadcrumbs"><ol><li><a href="`+base+`/guides">Guides</a></li><li><a href="`+base+`/guides/git-sync">Git sync</a></li></ol></nav>`) {
		t.Error("no breadcrumbs on a nested page")
	}
	for _, m := range fileLink.FindAllStringSubmatch(home.body, -1) {
		if strings.HasPrefix(m[0], "href") {
			continue
		}
		f := e.want("http://gw.test"+m[1], 200)
		if !strings.HasPrefix(f.header.Get("Content-Type"), "image/") {
			t.Errorf("%s is %s", m[1], f.header.Get("Content-Type"))
		}
	}
}

func articleOf(body string) string {
	if i := strings.Index(body, "<article>"); i >= 0 {
		body = body[i:]
	}
	if i := strings.Index(body, "</article>"); i >= 0 {
		body = body[:i]
	}
	return body
}

// TestLinksIntoHiddenSpaces: a link into another space of the site leads
// there for a reader who sees that space, and is text for one who does
// not, whoever read the page first.
func TestLinksIntoHiddenSpaces(t *testing.T) {
	e := newEnv(t)
	e.content.AddSpace("sp1", "acme", "Guide", contenttest.Doc("p1", "Welcome", "welcome", "See [the beta API](../beta/calls.md).\n"))
	e.content.AddSpace("sp2", "acme", "Beta", contenttest.Doc("b0", "Beta", "beta", "Beta.\n"),
		contenttest.Doc("b1", "Calls", "calls", "Calls.\n"))
	id, url := e.site(`{"title":"Docs","spaces":["sp1","sp2"]}`)
	sitePath := "/v1/orgs/acme/sites/" + id
	for _, ss := range e.call("ada", "GET", sitePath+"/site-spaces", "", 200)["items"].([]any) {
		if m := ss.(map[string]any); str(m, "space", "id") == "sp2" {
			e.call("ada", "PATCH", sitePath+"/site-spaces/"+str(m, "id"), `{"condition":"visitor.claims.unsigned.preview == true"}`, 200)
		}
	}
	e.call("ada", "PUT", sitePath+"/adaptive-schema", `{"jsonSchema":{"type":"object","properties":{
		"unsigned":{"type":"object","properties":{"preview":{"type":"boolean"}},"additionalProperties":false}},"additionalProperties":false}}`, 200)
	e.call("ada", "PATCH", sitePath, `{"adaptiveContent":{"enabled":true}}`, 200)
	link := `<a href="/sites/acme/` + id + `/beta/calls">the beta API</a>`
	if p := e.want(url+"?visitor.preview=true", 200); !strings.Contains(p.body, link) {
		t.Errorf("with the claim: %s", articleOf(p.body))
	}
	if p := e.want(url, 200); strings.Contains(p.body, "/beta/calls") || !strings.Contains(p.body, "See the beta API.") {
		t.Errorf("without the claim: %s", articleOf(p.body))
	}
}

// TestGitBookAppLinks: a link into a GitBook space
// (https://app.gitbook.com/s/<id>/<path>, as GitBook's docs link their
// other spaces) leads to the page at <path> of the site's space migrated
// from that GitBook space; an id no space of the site has, a space of
// another organization, or a path that space lacks stays GitBook's link.
func TestGitBookAppLinks(t *testing.T) {
	e := newEnv(t)
	e.content.AddSpace("sp1", "acme", "Guides", contenttest.Doc("g0", "Start", "start",
		"[assistant](https://app.gitbook.com/s/GBdocs/ai/assistant#setup), [docs](https://app.gitbook.com/s/GBdocs), "+
			"[own](https://app.gitbook.com/s/GBguides/more), [unknown](https://app.gitbook.com/s/GBnone/x), "+
			"[other organization](https://app.gitbook.com/s/GBzeta/x), [no page](https://app.gitbook.com/s/GBdocs/nope).\n"),
		contenttest.Doc("g1", "More", "more", "More.\n"))
	e.content.AddSpace("sp2", "acme", "Docs", contenttest.Doc("d0", "Home", "home", "Home.\n"),
		contenttest.Doc("d1", "AI", "ai", "AI.\n", contenttest.Doc("d2", "Assistant", "assistant", "## Setup\n")))
	e.content.AddSpace("sp3", "zeta", "Theirs", contenttest.Doc("z0", "X", "x", "Theirs.\n"))
	e.content.SetGitBookSpace("sp1", "GBguides")
	e.content.SetGitBookSpace("sp2", "GBdocs")
	e.content.SetGitBookSpace("sp3", "GBzeta")
	id, url := e.site(`{"title":"Docs","spaces":["sp1","sp2"]}`)
	base := "/sites/acme/" + id
	home := e.want(url, 200)
	for _, want := range []string{
		`<a href="` + base + `/docs/ai/assistant#setup">assistant</a>`, `<a href="` + base + `/docs">docs</a>`,
		`<a href="` + base + `/more">own</a>`,
		`<a href="https://app.gitbook.com/s/GBnone/x" rel="nofollow">unknown</a>`,
		`<a href="https://app.gitbook.com/s/GBzeta/x" rel="nofollow">other organization</a>`,
		`<a href="https://app.gitbook.com/s/GBdocs/nope" rel="nofollow">no page</a>`,
	} {
		if !strings.Contains(home.body, want) {
			t.Errorf("the page lacks %s in %s", want, articleOf(home.body))
		}
	}
}

// TestLinksIntoRenamedFolders: a page's URL follows its SUMMARY.md group's
// id ("getting-started") while the repository's folder keeps another name
// (editing-and-publishing-documentation/ for the group
// editing-publishing-documentation, as in GitbookIO/public-docs' guides):
// a link by the folder's path still leads to the page; one whose last
// segments two pages share stays text.
func TestLinksIntoRenamedFolders(t *testing.T) {
	e := newEnv(t)
	e.content.AddSpace("sp1", "acme", "Guides",
		contenttest.Doc("p0", "Guides", "guides", "[The guide](editing-and-publishing-documentation/complete-guide.md), [either](a/same.md).\n"),
		contentclient.Page{ID: "g1", Kind: "group", Title: "Editing and publishing documentation", Slug: "editing-publishing-documentation", Pages: []contentclient.Page{
			contenttest.Doc("p1", "Complete guide", "complete-guide", "Guide.\n"),
			contenttest.Doc("p2", "Same", "same", "One.\n")}},
		contentclient.Page{ID: "g2", Kind: "group", Title: "Other", Slug: "other", Pages: []contentclient.Page{
			contenttest.Doc("p3", "Same", "same", "Two.\n")}})
	id, url := e.site(`{"title":"Guides","spaces":["sp1"]}`)
	home := e.want(url, 200)
	for _, want := range []string{`<a href="/sites/acme/` + id + `/editing-publishing-documentation/complete-guide">The guide</a>`, ", either."} {
		if !strings.Contains(home.body, want) {
			t.Errorf("the page lacks %s in %s", want, articleOf(home.body))
		}
	}
}
