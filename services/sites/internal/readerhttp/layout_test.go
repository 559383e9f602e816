package readerhttp_test

import (
	"crypto/sha256"
	"encoding/base64"
	"regexp"
	"strings"
	"testing"

	"github.com/docspub/platform/services/sites/internal/contentclient"
	"github.com/docspub/platform/services/sites/internal/contentclient/contenttest"
	"github.com/docspub/platform/services/sites/internal/reader"
)

// TestNavigationFolds: a page with pages under it folds them in the
// navigation (<details>), open only above the current page and on the
// current page itself; groups stay headings.
func TestNavigationFolds(t *testing.T) {
	e := newEnv(t)
	deep := contenttest.Doc("p6", "Deep", "deep", "Deep down.")
	other := contenttest.Doc("p7", "Other", "other", "Elsewhere.", contenttest.Doc("p8", "Under other", "under", "Below."))
	pages := append(handbook(), other)
	pages[1].Pages[0].Pages = []contentclient.Page{deep}
	e.content.AddSpace("sp1", "acme", "Handbook")
	e.content.MergeFiles("sp1", pages, nil)
	id, url := e.site(`{"title":"Acme","spaces":["sp1"]}`)
	base := "/sites/acme/" + id
	closed := func(p string) string { return `<details><summary><a href="` + base + p + `"` }
	open := func(p string) string { return `<details open><summary><a href="` + base + p + `"` }
	for _, tc := range []struct {
		path      string
		want, not []string
	}{
		{"", []string{closed("/install"), closed("/install/linux"), closed("/other"), `<li class="group"><span>Reference</span>`}, []string{"<details open"}},
		{"/install/linux/deep", []string{open("/install"), open("/install/linux"), closed("/other"),
			`<a href="` + base + `/install/linux/deep" aria-current="page">`}, nil},
		{"/install/linux", []string{open("/install"), open("/install/linux") + ` aria-current="page">`, closed("/other")}, nil},
		{"/other/under", []string{closed("/install"), open("/other")}, nil},
	} {
		p := e.want(url+tc.path, 200)
		nav := p.body[strings.Index(p.body, `<nav class="toc"`):]
		nav = nav[:strings.Index(nav, "</nav>")]
		for _, w := range tc.want {
			if !strings.Contains(nav, w) {
				t.Errorf("%s: navigation lacks %q:\n%s", tc.path, w, nav)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(nav, n) {
				t.Errorf("%s: navigation holds %q:\n%s", tc.path, n, nav)
			}
		}
	}
}

var scriptRe = regexp.MustCompile(`(?s)<script>(.*?)</script>`)

// TestPageScriptsAllowed: each script of a page, as the layout writes it,
// is allowed by the page's Content-Security-Policy by its hash, and the
// policy allows nothing else but the diagram loader (by its hash, and what
// it loads: TestMathAndDiagramPage); the theme is set in <head>, before
// the page is drawn.
func TestPageScriptsAllowed(t *testing.T) {
	e := newEnv(t)
	e.content.AddSpace("sp1", "acme", "Handbook")
	e.content.MergeFiles("sp1", handbook(), nil)
	_, url := e.site(`{"title":"Acme","spaces":["sp1"]}`)
	p := e.want(url, 200)
	csp := p.header.Get("Content-Security-Policy")
	scripts := scriptRe.FindAllStringSubmatch(p.body, -1)
	if len(scripts) != 2 {
		t.Fatalf("%d scripts, want the head's and the page's", len(scripts))
	}
	if head := p.body[:strings.Index(p.body, "</head>")]; !strings.Contains(head, scripts[0][0]) ||
		!strings.Contains(scripts[0][1], `localStorage.getItem("theme")`) {
		t.Errorf("the theme script is not in <head>: %s", scripts[0][1])
	}
	var hashes []string
	for _, s := range scripts {
		sum := sha256.Sum256([]byte(s[1]))
		h := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
		hashes = append(hashes, h)
		if !strings.Contains(csp, h) {
			t.Errorf("CSP %q does not allow the script %.60q… (%s)", csp, s[1], h)
		}
	}
	sum := sha256.Sum256([]byte(reader.DiagramScript))
	loader := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	if want := "script-src " + strings.Join(hashes, " ") + " " + loader + " 'strict-dynamic';"; !strings.Contains(csp, want) {
		t.Errorf("CSP %q, want %q", csp, want)
	}
	if !strings.Contains(p.body, `<button type="button" class="theme"`) {
		t.Error("no theme button")
	}
}
