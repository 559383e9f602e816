package local

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/docspub/platform/libs/gittest"
)

// gitbookSite imports gitbookRepo through Git sync (a real git
// http-backend), publishes it on a site with adaptive content (an
// unsigned "preview" claim) and returns the site's published URL.
func gitbookSite(t *testing.T, p *Platform) string {
	t.Helper()
	admin := client{t, p.URL, p.Credentials.DemoAdminToken}
	space := importRepository(t, admin, p.Credentials.DemoOrgID, "Zebra handbook", gitbookRepo())
	site := createSite(t, admin, p.Credentials.DemoOrgID, "Zebra docs", space)
	admin.op("updateSiteAdaptiveSchema", "PUT", site+"/adaptive-schema", map[string]any{"jsonSchema": map[string]any{
		"type": "object", "additionalProperties": false, "properties": map[string]any{
			"unsigned": map[string]any{"type": "object", "additionalProperties": false,
				"properties": map[string]any{"preview": map[string]any{"type": "boolean"}}}}}})
	admin.op("updateSiteById", "PATCH", site, map[string]any{"adaptiveContent": map[string]any{"enabled": true}})
	return str(admin.schema("Site", 200, "POST", site+"/publish", nil).json(t), "urls", "published")
}

// importRepository imports files, a repository's branch main served by
// a Git server of the test, into a new space of org named title, and
// returns the space's id once the import succeeded.
func importRepository(t *testing.T, admin client, org, title string, files map[string][]byte) string {
	t.Helper()
	srv := gittest.NewServer(t, "", "")
	srv.NewRepo(t, "repo", "main", files)
	space := newSpace(t, admin, org, title)
	admin.op("importGitRepository", "POST", "/v1/spaces/"+space+"/git/import", map[string]any{
		"url": srv.RepoURL("repo"), "ref": "refs/heads/main"})
	if st, e := opState(gitDone(t, admin, space)); st != "success" {
		t.Fatalf("import ended %s: %s", st, e)
	}
	return space
}

// createSite creates a site of org named title showing space and returns
// its API path.
func createSite(t *testing.T, admin client, org, title, space string) string {
	t.Helper()
	path := "/v1/orgs/" + org + "/sites"
	return path + "/" + str(admin.op("createSite", "POST", path, map[string]any{
		"title": title, "spaces": []string{space}}).json(t), "id")
}

var (
	codeOrPre  = regexp.MustCompile(`(?s)<pre[ >].*?</pre>|<code[ >].*?</code>`)
	articleRe  = regexp.MustCompile(`(?s)<article>.*</article>`)
	hrefRe     = regexp.MustCompile(`<a [^>]*href="([^"#][^"]*)"`)
	imgSrcRe   = regexp.MustCompile(`<(?:img|source) [^>]*(?:src|srcset)="([^"]+)"`)
	tagClassRe = regexp.MustCompile(`<(div|ol|li|label)[^>]*\bclass="([^"]*)"[^>]*\brole="([^"]+)"`)
	shortcode  = regexp.MustCompile(`>[^<]*:[a-z][a-z0-9]*(-[a-z0-9]+)*:`)
)

// TestGitBookRepositoryPublished: a GitBook repository synced through Git
// sync, published, read without a token through the gateway: no block
// syntax outside code, no raw HTML omitted, every internal link a page,
// every image an image, blocks as elements with roles and classes, an
// {% if %} block shown only to matching claims.
func TestGitBookRepositoryPublished(t *testing.T) {
	p := startPlatform(t)
	url := gitbookSite(t, p)
	rd := newReader(t)
	home := rd.want(200, url)
	pages := tocLinks(home)
	base := strings.TrimPrefix(url, p.URL)
	// The SUMMARY's anchor and URL entries are links of the navigation,
	// not pages of their own.
	links := []string{base + "/getting-started/quickstart#install", "https://example.com/zebras"}
	for _, l := range links {
		if !strings.Contains(home, `<li class="link"><a href="`+l+`"`) {
			t.Errorf("the navigation has no link to %s", l)
		}
	}
	pages = slices.DeleteFunc(pages, func(pg string) bool { return slices.Contains(links, pg) })
	if len(pages) != 8 {
		t.Fatalf("navigation %v", pages)
	}
	for _, pg := range pages {
		if strings.Contains(pg, "#") || strings.Contains(pg, "example.com") || strings.Contains(pg, "install-step") || strings.Contains(pg, "zebra-website") {
			t.Errorf("a SUMMARY link entry is a page: %s", pg)
		}
	}
	// Getting started's front matter: a hero cover, no title, wide, no
	// outline and no pagination.
	start := rd.want(200, url+"/getting-started")
	for _, want := range []string{`<div class="layout wide">`, `<div class="page-cover cover-hero"><picture><img src="` + base + `/~files/`,
		`<p class="description">First steps with zebras.</p>`} {
		if !strings.Contains(start, want) {
			t.Errorf("the getting started page has no %s", want)
		}
	}
	for _, unwanted := range []string{`<h1>`, `<aside class="outline">`, `<nav class="pagination"`} {
		if strings.Contains(articleRe.FindString(start)+start[strings.Index(start, "</article>"):], unwanted) {
			t.Errorf("the getting started page has %s", unwanted)
		}
	}
	checked := map[string]bool{}
	for _, pg := range pages {
		rep := rd.get(p.URL+pg, "")
		if rep.Status != 200 || !strings.HasPrefix(rep.Header.Get("Content-Type"), "text/html") {
			t.Fatalf("GET %s = %d %s", pg, rep.Status, rep.Header.Get("Content-Type"))
		}
		body := string(rep.Body)
		article := articleRe.FindString(body)
		outside := codeOrPre.ReplaceAllString(article, "")
		for _, bad := range []string{"{%", "$$", "raw HTML omitted", ".gitbook/", ".md\"", "javascript:", "/broken/"} {
			if strings.Contains(outside, bad) {
				t.Errorf("%s shows %q outside code", pg, bad)
			}
		}
		if m := shortcode.FindString(outside); m != "" {
			t.Errorf("%s shows the icon shortcode %q", pg, m)
		}
		for _, m := range hrefRe.FindAllStringSubmatch(article, -1) {
			link := strings.ReplaceAll(m[1], "&amp;", "&")
			if !strings.HasPrefix(link, "/") || checked[link] {
				continue
			}
			checked[link] = true
			r := rd.get(p.URL+strings.SplitN(link, "#", 2)[0], "")
			want := "text/html"
			if strings.Contains(link, "/~files/") {
				want = ""
			}
			if r.Status != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), want) {
				t.Errorf("link %s on %s = %d %s", link, pg, r.Status, r.Header.Get("Content-Type"))
			}
		}
		for _, m := range imgSrcRe.FindAllStringSubmatch(article, -1) {
			src := strings.Fields(m[1])[0]
			r := rd.get(p.URL+src, "")
			if r.Status != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "image/") {
				t.Errorf("image %s on %s = %d %s", src, pg, r.Status, r.Header.Get("Content-Type"))
			}
		}
	}
	t.Logf("%d internal links and files checked", len(checked))
	if len(checked) < 10 {
		t.Errorf("only %d internal links checked: %v", len(checked), checked)
	}

	blocks := rd.want(200, url+"/getting-started/blocks")
	if dir := os.Getenv("GITBOOK_HTML_DIR"); dir != "" {
		_ = os.WriteFile(filepath.Join(dir, "blocks.html"), []byte(blocks), 0o644)
	}
	roles := map[string]bool{}
	for _, m := range tagClassRe.FindAllStringSubmatch(blocks, -1) {
		roles[strings.Fields(m[2])[0]+"/"+m[3]] = true
	}
	for _, want := range []string{"hint/note", "tab-list/tablist", "tab/tab", "stepper/list", "step/listitem"} {
		if !roles[want] {
			t.Errorf("the blocks page has no %s element (%v)", want, roles)
		}
	}
	for _, want := range []string{
		`class="tab-panel" role="tabpanel"`, `<figure class="code-block wrap"><figcaption class="code-title">zebra.yaml</figcaption>`,
		`<pre class="mermaid">`, `<div class="math math-display"><span class="katex-display">`, `<details>`, `<table data-view="cards">`, `<td class="card-cover"><img src="` + base + `/~files/`,
		`<div class="content-ref card"><a class="content-ref-link" href="` + base + `/getting-started/quickstart">Quickstart</a></div>`, `<iframe src="https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ"`, `<a class="embed-card card" href="https://github.com/zebra/herd"`,
		`<a class="file-link" href="` + base + `/~files/`, `<div class="columns">`, `<section class="update">`, `<div class="prompt card">`,
		"<kbd>Ctrl</kbd>", "<mark>highlighted</mark>", `an icon <svg class="icon icon-github" `, "</svg>, one Font Awesome Free lacks .</p>",
		`<td class="card-target"><a href="` + base + `/reference/concepts" class="card-link" aria-label="Concepts">`,
		`<td class="card-cover"><picture><source srcset="` + base + `/~files/`, `<th data-hidden="" class="col-hidden">Secret</th>`,
		`<label class="tab" for="tabs-1-0" role="tab"><svg class="icon icon-code" `, `June 1, 2025</time> <span class="update-tag" data-tag="new-releases">New releases</span>`,
		`<figure class="code-block"><figcaption class="code-title">herd.yaml</figcaption>`, `<span class="line hl">`,
		`<details class="code-expandable"><summary>Show code: long.yaml (2 lines)</summary>`, ", a page GitBook lost, ", `<a href="` + base + `/getting-started/quickstart#install">install section</a>`,
		`<a href="` + base + `/reference/git-sync">git sync folder</a>`, `<a href="` + base + `">home</a>`, "an unpublished page.",
		`<h2 id="hints">Hints`, `<aside class="outline">`, `<nav class="breadcrumbs"`,
		"<p>This note is shared between pages.</p>",
		`<span class="api-method api-method-get">GET</span> <code class="api-path">/zebras/{zebraId}</code>`,
		`<code class="api-name">zebraId</code></td><td>path</td>`, `<span class="api-status">200</span> The zebra.`,
	} {
		if !strings.Contains(blocks, want) {
			t.Errorf("the blocks page lacks %q", want)
		}
	}
	if strings.Contains(blocks, "zebra preview") {
		t.Error("the {% if %} block is shown to a reader without the claim")
	}
	preview := newReader(t).want(200, url+"/getting-started/blocks?visitor.preview=true")
	if !strings.Contains(preview, "Preview readers see the zebra preview.") {
		t.Error("the {% if %} block is not shown to a reader with the claim")
	}
	if again := rd.want(200, url+"/getting-started/blocks"); strings.Contains(again, "zebra preview") {
		t.Error("the {% if %} block leaked to a reader without the claim")
	}
	rep := rd.get(url+"/getting-started/blocks", "")
	if csp := rep.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-src https://www.youtube-nocookie.com") ||
		!strings.Contains(csp, "script-src 'sha256-") {
		t.Errorf("Content-Security-Policy %q", csp)
	}
}
