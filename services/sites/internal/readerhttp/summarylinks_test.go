package readerhttp_test

import (
	"strings"
	"testing"

	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/services/sites/internal/contentclient"
	"github.com/docspub/platform/services/sites/internal/contentclient/contenttest"
)

// TestLinkPagesAndLayout: link pages (SUMMARY.md entries that link) are
// links of the navigation, to a page's anchor or a URL, never pages of
// their own; one naming nothing, a script or another space is its title
// as text. A
// page's layout hides what it says (its title, the table of contents,
// the outline, the pagination), widens the page and shows its cover.
func TestLinkPagesAndLayout(t *testing.T) {
	e := newEnv(t)
	e.content.AddSpace("sp1", "acme", "Handbook")
	link := func(id, title, href string) contentclient.Page {
		return contentclient.Page{ID: id, Kind: "link", Title: title, Slug: strings.ToLower(title), Href: href}
	}
	home := contenttest.Doc("p1", "Welcome", "welcome", "Hello.\n\n## Next\n\nMore.\n")
	home.Layout = &contentapi.Layout{Width: "wide", Cover: true, CoverSize: "hero", Description: true, TableOfContents: true, Pagination: true}
	home.Cover = &contentapi.Cover{Src: ".gitbook/assets/cover.png", YPos: -10}
	install := contenttest.Doc("p3", "Install", "install", "## On Linux\n\napt.\n")
	install.Layout = &contentapi.Layout{Width: "default", CoverSize: "hero", Title: true, Description: true, Outline: true}
	e.content.MergeFiles("sp1", []contentclient.Page{
		home,
		link("l1", "Linux", "guides/install.md#on-linux"),
		link("l2", "Website", "https://example.com/x"),
		link("l3", "Evil", "javascript:alert(1)"),
		link("l4", "Lost", "nowhere.md#x"),
		link("l5", "All guides", "guides/README.md"),
		link("l6", "Elsewhere", "../api/reference.md"),
		contenttest.Doc("p2", "Guides", "guides", "Guides.\n", install),
	}, map[string]contenttest.File{"f1": {Name: "cover.png", ContentType: "image/png", Bytes: []byte("\x89PNG cover")}})
	e.content.AddSpace("sp2", "acme", "API", contenttest.Doc("a0", "Overview", "overview", "The API.\n"),
		contenttest.Doc("a1", "Reference", "reference", "## Calls\n"))
	id, url := e.site(`{"title":"Handbook","spaces":["sp1","sp2"]}`)
	base := "/sites/acme/" + id

	got := e.want(url, 200).body
	for _, want := range []string{
		`<li class="link"><a href="` + base + `/guides/install#on-linux">Linux</a></li>`,
		`<li class="link"><a href="https://example.com/x" rel="noopener" target="_blank">Website</a></li>`,
		`<li class="link"><span>Evil</span></li>`, `<li class="link"><span>Lost</span></li>`, `<li class="link"><span>Elsewhere</span></li>`,
		`<div class="layout wide">`, `<div class="page-cover cover-hero"><picture><img src="` + base + `/~files/`,
		`style="object-position:50% -10px"`, `<nav class="pagination"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("home lacks %q in %s", want, got)
		}
	}
	for _, bad := range []string{"javascript:", "<h1>", `<aside class="outline">`} {
		if strings.Contains(got, bad) {
			t.Errorf("home holds %q", bad)
		}
	}
	e.want(url+"/linux", 404)
	guides := e.want(url+"/guides", 200).body
	if want := `<li class="link"><a href="` + base + `/guides">All guides</a></li>`; !strings.Contains(guides, want) {
		t.Errorf("the guides page lacks %q", want)
	}
	if want := `<a href="` + base + `/guides" aria-current="page">Guides</a>`; !strings.Contains(guides, want) {
		t.Errorf("the guides page does not mark its own entry current (%q)", want)
	}
	inst := e.want(url+"/guides/install", 200).body
	for _, bad := range []string{`<nav class="toc"`, `<nav class="pagination"`, `class="page-cover"`, `<div class="layout wide">`} {
		if strings.Contains(inst, bad) {
			t.Errorf("the install page holds %q", bad)
		}
	}
	if !strings.Contains(inst, "<h1>Install</h1>") || !strings.Contains(inst, `<aside class="outline">`) {
		t.Errorf("the install page lacks its title or outline: %s", articleOf(inst))
	}
}
