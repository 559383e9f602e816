package local

import (
	"fmt"
	"strings"
	"testing"
	"time"

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
// without the space changing (integrations' event reaches sites).
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
	shows := func(what, want string) {
		t.Helper()
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
}
