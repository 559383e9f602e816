package local

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docspub/platform/libs/gittest"
	"github.com/docspub/platform/libs/waittest"
)

// zebraStore is the organization's stored spec the blocks page's
// {% openapi-operation spec="zebra-store" %} block names; summary varies.
func zebraStore(summary string) string {
	return fmt.Sprintf(`{"openapi":"3.1.0","info":{"title":"Zebra store","version":"1"},"paths":{"/stripes":{"post":{`+
		`"summary":%q,"parameters":[{"name":"width","in":"query","required":true,"schema":{"type":"integer"}}],`+
		`"responses":{"201":{"description":"Painted."}}}}}}`, summary)
}

// TestAPIBlockOfStoredSpec: an {% openapi-operation spec="…" %} block
// shows the organization's stored spec of that name (integrations'), a
// card while there is none; a new version of the spec shows on the page
// without the space changing (integrations' event reaches sites). A block
// naming a URL shows the stored spec whose source it is, a card for a URL
// none has; the reader never fetches the URL.
func TestAPIBlockOfStoredSpec(t *testing.T) {
	p := startPlatform(t)
	url := gitbookSite(t, p) + "/getting-started/blocks"
	admin := client{t, p.URL, p.Credentials.DemoAdminToken}
	org := "/v1/orgs/" + p.Credentials.DemoOrgID
	rd := newReader(t)
	if page := rd.want(200, url); !strings.Contains(page, `<p class="api-card-title">API reference: POST /stripes</p>`) {
		t.Errorf("no card for a spec the organization does not have: %s", articleRe.FindString(page))
	}
	admin.op("createOpenAPISpec", "POST", org+"/openapi", map[string]any{"slug": "zebra-store",
		"source": map[string]any{"text": zebraStore("Paint stripes")}})
	shows := func(what, want string, at ...string) {
		t.Helper()
		url := url
		if len(at) > 0 {
			url = at[0]
		}
		var page string
		defer func() {
			if t.Failed() {
				t.Logf("spec: %v\npage: %s", admin.do("GET", org+"/openapi/zebra-store", nil).json(t), articleRe.FindString(page))
			}
		}()
		waittest.Until(t, what, 30*time.Second, func() bool {
			page = rd.want(200, url)
			return strings.Contains(page, want)
		})
		for _, w := range []string{`<code class="api-name">width</code></td><td>query</td><td>integer</td><td>Yes</td>`,
			`<span class="api-status">201</span> Painted.`} {
			if !strings.Contains(page, w) {
				t.Errorf("%s: the page lacks %q", what, w)
			}
		}
	}
	shows("the stored spec's operation", `<p class="api-summary">Paint stripes</p>`)
	admin.op("createOrUpdateOpenAPISpecBySlug", "PUT", org+"/openapi/zebra-store",
		map[string]any{"source": map[string]any{"text": zebraStore("Repaint stripes")}})
	shows("the spec's new version", `<p class="api-summary">Repaint stripes</p>`)

	// A block naming a URL shows the stored spec whose source it is; the
	// reader never fetches it.
	var served atomic.Int64
	src := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		served.Add(1)
		_, _ = io.WriteString(w, zebraStore("Paint stripes by URL"))
	}))
	defer src.Close()
	admin.op("createOpenAPISpec", "POST", org+"/openapi", map[string]any{"slug": "zebra-url", "source": map[string]any{"url": src.URL + "/openapi.json"}})
	waittest.Until(t, "the URL spec processed", 30*time.Second, func() bool {
		return admin.do("GET", org+"/openapi/zebra-url", nil).json(t)["processingState"] == "complete"
	})
	fetched := served.Load()
	urlPage := urlSite(t, p, src.URL+"/openapi.json")
	shows("the operation of the spec whose source is the URL", `<p class="api-summary">Paint stripes by URL</p>`, urlPage)
	if page := rd.want(200, urlPage); !strings.Contains(page, `<p class="api-card-title">API reference: GET /elsewhere</p>`) {
		t.Errorf("a URL no stored spec has is no card: %s", articleRe.FindString(page))
	}
	if n := served.Load(); n != fetched {
		t.Errorf("the spec's URL was fetched %d times while pages were read", n-fetched)
	}
}

// urlSite publishes a space of one page whose {% openapi %} blocks name
// the URL u and one no stored spec has, and returns the page's URL.
func urlSite(t *testing.T, p *Platform, u string) string {
	t.Helper()
	admin := client{t, p.URL, p.Credentials.DemoAdminToken}
	srv := gittest.NewServer(t, "", "")
	srv.NewRepo(t, "api", "main", map[string][]byte{
		"README.md": []byte("# API\n\n{% openapi src=\"" + u + "\" path=\"/stripes\" method=\"post\" %}\n[" + u + "](" + u + ")\n{% endopenapi %}\n\n" +
			"{% openapi src=\"https://api.zebra.example/other.json\" path=\"/elsewhere\" method=\"get\" %}\n{% endopenapi %}\n")})
	space := newSpace(t, admin, p.Credentials.DemoOrgID, "Zebra API")
	admin.op("importGitRepository", "POST", "/v1/spaces/"+space+"/git/import", map[string]any{
		"url": srv.RepoURL("api"), "ref": "refs/heads/main"})
	if st, e := opState(gitDone(t, admin, space)); st != "success" {
		t.Fatalf("import ended %s: %s", st, e)
	}
	org := "/v1/orgs/" + p.Credentials.DemoOrgID
	site := org + "/sites/" + str(admin.op("createSite", "POST", org+"/sites", map[string]any{
		"title": "Zebra API", "spaces": []string{space}}).json(t), "id")
	return str(admin.schema("Site", 200, "POST", site+"/publish", nil).json(t), "urls", "published")
}
