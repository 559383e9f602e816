package local

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/docspub/platform/libs/gittest"
)

// TestGitSyncedPagesAreSearchable: pages that arrive by Git sync from a real
// repository are found by the API search (ORG/search) and by the published
// site's search box, with no merge in between; and the API document is
// served by the gateway with the platform's URL as its server.
func TestGitSyncedPagesAreSearchable(t *testing.T) {
	const password = "S3cret-Pa55word-4e2e"
	p := startPlatform(t)
	cr := p.Credentials
	admin := client{t, p.URL, cr.DemoAdminToken}
	org := "/v1/orgs/" + cr.DemoOrgID

	srv := gittest.NewServer(t, "ada", password)
	srv.NewRepo(t, "handbook", "main", gitbookFiles())
	space := newSpace(t, admin, cr.DemoOrgID, "Handbook")
	admin.op("importGitRepository", "POST", "/v1/spaces/"+space+"/git/import", map[string]any{
		"url": srv.RepoURL("handbook"), "ref": "refs/heads/main"})
	if st, e := opState(gitDone(t, admin, space)); st != "success" {
		t.Fatalf("import ended %s: %s", st, e)
	}

	// The API search finds the page by a word of its body.
	var res struct {
		Items []struct {
			ID    string `json:"id"`
			Pages []struct {
				Title string `json:"title"`
			} `json:"pages"`
		} `json:"items"`
	}
	if err := json.Unmarshal(admin.op("searchOrganizationContent", "GET", org+"/search?query=apt", nil).Body, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 1 || res.Items[0].ID != space || len(res.Items[0].Pages) == 0 || res.Items[0].Pages[0].Title != "On Linux" {
		t.Errorf("search apt after the Git import = %+v, want the page On Linux of %s", res.Items, space)
	}

	// So does the reader's search of a site publishing the space.
	st := admin.op("createSite", "POST", org+"/sites", map[string]any{"title": "Handbook docs", "spaces": []string{space}}).json(t)
	site := org + "/sites/" + str(st, "id")
	published := str(admin.schema("Site", 200, "POST", site+"/publish", nil).json(t), "urls", "published")
	found := newReader(t).want(200, published+"/~search?q="+url.QueryEscape("apt"))
	if !strings.Contains(found, "On Linux") {
		t.Errorf("the reader's search for apt lacks On Linux: %.600s", found)
	}

	// The API document, without a token, names the platform as its server.
	doc := client{t, p.URL, ""}.do("GET", "/v1/openapi.json", nil)
	if doc.Status != 200 || doc.Header.Get("ETag") == "" {
		t.Fatalf("GET /v1/openapi.json: %d %v", doc.Status, doc.Header)
	}
	var d struct {
		Servers []struct {
			URL string `json:"url"`
		} `json:"servers"`
	}
	if err := json.Unmarshal(doc.Body, &d); err != nil || len(d.Servers) != 1 || d.Servers[0].URL != p.URL {
		t.Errorf("servers %+v (%v), want %s", d.Servers, err, p.URL)
	}
	if r := (client{t, p.URL, ""}).do("GET", "/v1/docs", nil); r.Status != 200 || !strings.Contains(r.Header.Get("Content-Type"), "text/html") {
		t.Errorf("GET /v1/docs: %d %v", r.Status, r.Header)
	}
}
