package readerhttp_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/docspub/platform/services/sites/internal/contentclient"
	"github.com/docspub/platform/services/sites/internal/contentclient/contenttest"
	"github.com/docspub/platform/services/sites/internal/limits"
)

// TestAPIURLsAreServed: the urls.published the API gives sections, their
// site spaces (variants) and a basename are where the reader serves them,
// with the site's sections and a section's variants in its navigation.
func TestAPIURLsAreServed(t *testing.T) {
	e := newEnv(t)
	for _, sp := range []struct{ id, title string }{{"g1", "Guides v1"}, {"g2", "Guides v2"}, {"a1", "API"}} {
		e.content.AddSpace(sp.id, "acme", sp.title, contenttest.Doc(sp.id+"-home", sp.title+" home", "home", "Text of "+sp.title+"."),
			contenttest.Doc(sp.id+"-more", "More", "more", "More of "+sp.title+"."))
	}
	id, _ := e.site(`{"title":"Docs"}`)
	sitePath := "/v1/orgs/acme/sites/" + id
	guides := e.call("ada", "POST", sitePath+"/sections", `{"spaceId":"g1","title":"Guides"}`, 201)
	e.call("ada", "POST", sitePath+"/site-spaces", `{"spaceId":"g2","sectionId":"`+str(guides, "id")+`"}`, 201)
	if r := e.api.Do(as("ada"), "POST", sitePath+"/site-spaces", `{"spaceId":"g2","sectionId":"nope"}`); r.Status != 400 ||
		!strings.Contains(string(r.Body), "sectionId") {
		t.Errorf("unknown sectionId: %d %s", r.Status, r.Body)
	}
	api := e.call("ada", "POST", sitePath+"/sections", `{"spaceId":"a1","title":"API"}`, 201)
	site := e.call("ada", "PATCH", sitePath, `{"basename":"docs"}`, 200)
	root := str(site, "urls", "published")
	if root != published+"/acme/docs" {
		t.Fatalf("urls.published = %q", root)
	}

	want := map[string]string{} // URL → text it shows
	for _, s := range e.call("ada", "GET", sitePath+"/sections", "", 200)["items"].([]any) {
		sec := s.(map[string]any)
		for _, v := range sec["siteSpaces"].([]any) {
			ss := v.(map[string]any)
			want[str(ss, "urls", "published")] = "Text of " + str(ss, "title") + "."
			want[str(ss, "urls", "published")+"/more"] = "More of " + str(ss, "title") + "."
		}
		if str(sec, "id") == str(api, "id") && str(sec, "urls", "published") != root+"/"+str(api, "path") {
			t.Errorf("API section published at %q", str(sec, "urls", "published"))
		}
	}
	if len(want) != 6 {
		t.Fatalf("site space URLs: %v", want)
	}
	if want[root] != "Text of Guides v1." {
		t.Errorf("the default section's default variant is not at the root: %v", want)
	}
	for u, text := range want {
		p := e.want(u, 200)
		if !strings.Contains(p.body, text) {
			t.Errorf("%s does not show %q", u, text)
		}
	}
	// The id form serves too (share links use it); the root lists both
	// sections and the Guides variants.
	p := e.want(published+"/acme/"+id, 200)
	for _, s := range []string{`<nav class="tabs"`, `>Guides</a>`, `>API</a>`, `<nav class="variants"`, `>Guides v2</a>`} {
		if !strings.Contains(p.body, s) {
			t.Errorf("root lacks %q", s)
		}
	}
	if p := e.want(root+"/"+str(api, "path"), 200); strings.Contains(p.body, `<nav class="variants"`) {
		t.Error("a section of one site space lists variants")
	}
}

// TestCustomHostname: a site's verified custom hostname serves it at that
// host's root; urls.published says so; another site may not take it.
func TestCustomHostname(t *testing.T) {
	e := newEnv(t)
	e.content.AddSpace("sp1", "acme", "Handbook", contenttest.Doc("p1", "Welcome", "welcome", "Hosted here."),
		contenttest.Doc("p2", "Next", "next", "Next page."))
	id, _ := e.site(`{"title":"Docs","spaces":["sp1"]}`)
	s := e.verifyHostname("ada", "acme", id, "docs.acme.test")
	if str(s, "hostname") != "docs.acme.test" || str(s, "urls", "published") != "http://docs.acme.test" {
		t.Fatalf("site %v", s)
	}
	p := e.want("http://docs.acme.test/", 200)
	if !strings.Contains(p.body, "Hosted here.") || !strings.Contains(p.body, `<a href="/next">Next</a>`) {
		t.Errorf("custom hostname root: %s", p.body)
	}
	e.want("http://docs.acme.test/next", 200)
	e.want("http://docs.acme.test/nope", 404)
	e.want("http://DOCS.acme.test:443/next", 200)
	e.want("http://unknown.acme.test/", 404)

	other, _ := e.site(`{"title":"Other"}`)
	e.call("ada", "PATCH", "/v1/orgs/acme/sites/"+other, `{"hostname":"docs.acme.test"}`, 409)
	e.call("ada", "PATCH", "/v1/orgs/acme/sites/"+other, `{"hostname":"Docs.Acme.Test"}`, 400)
	e.call("ada", "PATCH", "/v1/orgs/acme/sites/"+other, `{"hostname":"localhost"}`, 400)
	// Released, it may be claimed and verified again.
	e.call("ada", "PATCH", "/v1/orgs/acme/sites/"+id, `{"hostname":null}`, 200)
	e.want("http://docs.acme.test/", 404)
	e.verifyHostname("ada", "acme", other, "docs.acme.test")
	e.call("ada", "DELETE", "/v1/orgs/acme/sites/"+other, "", 205)
	e.verifyHostname("ada", "acme", id, "docs.acme.test")
}

// TestSearch: the search box asks content about the spaces the reader
// sees only, and links hits to their pages on the site.
func TestSearch(t *testing.T) {
	e := newEnv(t)
	e.content.AddSpace("sp1", "acme", "Handbook", contenttest.Doc("p1", "Welcome", "welcome", "Install the gizmo."),
		contenttest.Doc("p2", "Gizmo setup", "setup", "The gizmo needs power."))
	e.content.AddSpace("sp9", "acme", "Elsewhere", contenttest.Doc("x", "Other", "other", "Another gizmo."))
	id, url := e.site(`{"title":"Docs","spaces":["sp1"]}`)
	p := e.want(url+"/~search?q=gizmo", 200)
	if !strings.Contains(p.body, `<a href="/sites/acme/`+id+`/setup">Gizmo setup</a>`) || strings.Contains(p.body, "Another gizmo") {
		t.Errorf("search results: %s", p.body)
	}
	if p.header.Get("X-Robots-Tag") != "noindex" {
		t.Error("search results may be indexed")
	}
	e.want(url+"/~search?q="+strings.Repeat("x", limits.ReaderSearchQuery+1), 400)
	if p := e.want(url+"/~search?q=nothing-here", 200); !strings.Contains(p.body, "Nothing matches") {
		t.Errorf("no results: %s", p.body)
	}
}

// TestContentDown: with content down, pages already read are served from
// the last revision content gave; a page never read is a 503.
func TestContentDown(t *testing.T) {
	e := newEnv(t)
	e.content.AddSpace("sp1", "acme", "Handbook", contenttest.Doc("p1", "Welcome", "welcome", "Cached text."))
	e.content.AddSpace("sp2", "acme", "Other", contenttest.Doc("p2", "Other", "other", "Never read."))
	_, url := e.site(`{"title":"Docs","spaces":["sp1","sp2"]}`)
	e.want(url, 200)
	e.content.SetDown(true)
	if p := e.want(url, 200); !strings.Contains(p.body, "Cached text.") {
		t.Errorf("with content down: %s", p.body)
	}
	p := e.want(url+"/other", 503)
	if p.header.Get("Retry-After") == "" {
		t.Error("503 without Retry-After")
	}
}

// TestLongPageIsCut: markdown past limits.ReaderPageBytes is cut with a
// note; the page is served.
func TestLongPageIsCut(t *testing.T) {
	e := newEnv(t)
	long := strings.Repeat("word ", limits.ReaderPageBytes/5) + "\n\nTHE END\n"
	e.content.AddSpace("sp1", "acme", "Handbook", contenttest.Doc("p1", "Long", "long", long))
	_, url := e.site(`{"title":"Docs","spaces":["sp1"]}`)
	p := e.want(url, 200)
	if strings.Contains(p.body, "THE END") || !strings.Contains(p.body, "longer than can be shown") {
		t.Errorf("long page not cut (%d bytes)", len(p.body))
	}
}

// TestFiles: a file larger than the cache keeps (or than its revision
// says) is streamed whole; a file
// of another site space, or of a revision of another space, is not served;
// only safe images show in place.
func TestFiles(t *testing.T) {
	e := newEnv(t)
	big := bytes.Repeat([]byte("x"), limits.ReaderCachedFileBytes+512)
	e.content.AddSpace("sp1", "acme", "Handbook")
	rev := e.content.MergeFiles("sp1", []contentclient.Page{contenttest.Doc("p1", "Files", "files",
		"[big](files/big) ![svg](files/svg) [small](files/small)")}, map[string]contenttest.File{
		"big":   {Name: "big.bin", ContentType: "application/octet-stream", Bytes: big},
		"small": {Name: "small.bin", ContentType: "application/octet-stream", Bytes: big, Size: 10},
		"svg":   {Name: "x.svg", ContentType: "image/svg+xml", Bytes: []byte("<svg onload=alert(1)></svg>")}})
	e.content.AddSpace("sp2", "acme", "Other", contenttest.Doc("o1", "Other", "other", "Other."))
	_, url := e.site(`{"title":"Docs","spaces":["sp1"]}`)
	home := e.want(url, 200)
	link := fileURL(t, home.body)
	if !strings.HasSuffix(link, "/"+rev+"/big") {
		t.Fatalf("first file URL %q, want the big file's", link)
	}
	p := e.want(link, 200)
	if len(p.body) != len(big) || !strings.HasPrefix(p.header.Get("Content-Disposition"), "attachment") ||
		!strings.Contains(p.header.Get("Content-Security-Policy"), "sandbox") {
		t.Errorf("big file: %d bytes, %v", len(p.body), p.header)
	}
	if p := e.want(strings.Replace(link, "/big", "/small", 1), 200); len(p.body) != len(big) {
		t.Errorf("a file larger than its revision says: %d bytes, want %d", len(p.body), len(big))
	}
	svg := e.want(strings.Replace(link, "/big", "/svg", 1), 200)
	if !strings.HasPrefix(svg.header.Get("Content-Disposition"), "attachment") {
		t.Errorf("an SVG shows in place: %v", svg.header)
	}
	e.want(strings.Replace(link, rev, "sp2-r1", 1), 404)           // a revision of another space
	e.want(strings.Replace(link, "/~files/", "/~files/x", 1), 404) // no such site space
	e.want(strings.Replace(link, "/big", "/nope", 1), 404)         // no such file
	// HEAD: a GET's headers, no body.
	if r := e.readMethod(http.MethodHead, url); r.status != 200 || r.body != "" ||
		r.header.Get("Content-Type") != home.header.Get("Content-Type") || r.header.Get("Content-Length") != home.header.Get("Content-Length") {
		t.Errorf("HEAD of a page: %d %v %.100q", r.status, r.header, r.body)
	}
	if r := e.readMethod(http.MethodHead, link); r.status != 200 || r.body != "" ||
		!strings.HasPrefix(r.header.Get("Content-Disposition"), "attachment") {
		t.Errorf("HEAD of a file: %d %v", r.status, r.header)
	}
}
