package local

import (
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/internalapi/sitesapi"
	"github.com/docspub/platform/libs/waittest"
)

// eventually polls f until it is true or 20 s pass.
func eventually(t *testing.T, what string, f func() bool) {
	t.Helper()
	waittest.Until(t, what, 20*time.Second, f)
}

func TestSitesThroughGateway(t *testing.T) {
	p := startPlatform(t)
	admin := client{t, p.URL, p.Credentials.DemoAdminToken}
	reader := client{t, p.URL, p.Credentials.DemoReaderToken}
	other := client{t, p.URL, p.Credentials.OtherOrgToken}
	org := "/v1/orgs/" + p.Credentials.DemoOrgID

	spID := str(admin.schema("Space", 201, "POST", org+"/spaces", map[string]any{"title": "Handbook"}).json(t), "id")
	sp2 := str(admin.schema("Space", 201, "POST", org+"/spaces", map[string]any{"title": "Reference"}).json(t), "id")
	s := admin.op("createSite", "POST", org+"/sites", map[string]any{"title": "Docs site", "spaces": []string{spID}}).json(t)
	site := org + "/sites/" + str(s, "id")
	admin.op("getSiteById", "GET", site, nil)
	admin.op("listSites", "GET", org+"/sites", nil)
	admin.op("updateSiteById", "PATCH", site, map[string]any{"title": "Our docs"})
	admin.schema("Site", 200, "POST", site+"/publish", nil)

	published := func(c client, query string) reply {
		return c.op("getPublishedContentSite", "GET", site+"/published"+query, nil)
	}
	if body := string(published(admin, "").Body); !strings.Contains(body, "Handbook") {
		t.Fatalf("published view lacks the space: %s", body)
	}

	// Site spaces: list, add, patch, delete.
	admin.status(200, "GET", site+"/site-spaces", nil)
	ss := admin.schema("SiteSpace", 201, "POST", site+"/site-spaces", map[string]any{"spaceId": sp2}).json(t)
	admin.schema("SiteSpace", 200, "PATCH", site+"/site-spaces/"+str(ss, "id"), map[string]any{"path": "ref"})
	admin.status(205, "DELETE", site+"/site-spaces/"+str(ss, "id"), nil)
	admin.status(400, "POST", site+"/site-spaces", map[string]any{"spaceId": "nope"})

	// Rename the space: the site shows the new title soon after.
	admin.op("updateSpaceById", "PATCH", "/v1/spaces/"+spID, map[string]any{"title": "Field guide"})
	eventually(t, "renamed space in the published site", func() bool {
		return strings.Contains(string(admin.do("GET", site+"/published", nil).Body), "Field guide")
	})
	// A deleted space leaves the site and comes back when restored.
	admin.op("deleteSpaceById", "DELETE", "/v1/spaces/"+spID, nil)
	eventually(t, "deleted space gone from the site", func() bool {
		return !strings.Contains(string(admin.do("GET", site+"/published", nil).Body), "Field guide")
	})
	admin.op("restoreSpace", "POST", "/v1/spaces/"+spID+"/restore", nil)
	eventually(t, "restored space back in the site", func() bool {
		return strings.Contains(string(admin.do("GET", site+"/published", nil).Body), "Field guide")
	})

	// Sections: create, a condition that does not compile, moves change the order.
	a := admin.op("addSectionToSite", "POST", site+"/sections", map[string]any{"spaceId": spID, "title": "Guides"}).json(t)
	b := admin.op("addSectionToSite", "POST", site+"/sections", map[string]any{"spaceId": sp2, "title": "Reference"}).json(t)
	admin.op("listSiteSections", "GET", site+"/sections", nil)
	admin.status(400, "PATCH", site+"/sections/"+str(a, "id"), map[string]any{"condition": "visitor.claims.(("})
	admin.op("updateSiteSectionById", "PATCH", site+"/sections/"+str(a, "id"), map[string]any{"condition": "visitor.claims.beta == true"})
	admin.op("moveSiteSection", "POST", site+"/sections/"+str(b, "id")+"/move", map[string]any{"position": map[string]any{"before": map[string]any{"type": "site-section", "siteSection": str(a, "id")}}})
	order := func() string {
		var titles []string
		for _, it := range items(t, admin.op("listSiteSections", "GET", site+"/sections", nil)) {
			titles = append(titles, str(it, "title"))
		}
		return strings.Join(titles, ",")
	}
	if got := order(); got != "Reference,Guides" {
		t.Errorf("sections after moving Reference before Guides: %s", got)
	}
	g := admin.op("addSectionGroupToSite", "POST", site+"/section-groups", map[string]any{"title": "All", "sections": []string{str(a, "id")}}).json(t)
	admin.op("listSiteSectionGroups", "GET", site+"/section-groups", nil)
	admin.op("updateSiteSectionGroupById", "PATCH", site+"/section-groups/"+str(g, "id"), map[string]any{"title": "Everything"})
	admin.schema("SiteSectionGroup", 201, "POST", site+"/section-groups/"+str(g, "id")+"/sections", map[string]any{"sectionId": str(b, "id")})
	admin.status(205, "DELETE", site+"/section-groups/"+str(g, "id")+"/sections/"+str(b, "id"), nil)
	admin.op("getPublishedContentSite", "GET", site+"/published", nil)

	// Adaptive schema: a non-boolean claim is a 400.
	admin.op("getSiteAdaptiveSchema", "GET", site+"/adaptive-schema", nil)
	good := map[string]any{"jsonSchema": map[string]any{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
		"properties": map[string]any{"unsigned": map[string]any{"type": "object", "description": "Unsigned claims of the site visitor.",
			"properties": map[string]any{"beta": map[string]any{"type": "boolean"}}, "additionalProperties": false}},
		"additionalProperties": false}}
	admin.op("updateSiteAdaptiveSchema", "PUT", site+"/adaptive-schema", good)
	bad := map[string]any{"jsonSchema": map[string]any{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
		"properties": map[string]any{"unsigned": map[string]any{"type": "object", "description": "Unsigned claims of the site visitor.",
			"properties": map[string]any{"plan": map[string]any{"type": "string"}}, "additionalProperties": false}},
		"additionalProperties": false}}
	admin.status(400, "PUT", site+"/adaptive-schema", bad)

	// Share links: a share-link site refuses readers from outside without an
	// active key (members of the organization read it in the app anyway).
	admin.op("updateSiteById", "PATCH", site, map[string]any{"visibility": "share-link"})
	link := admin.op("createSiteShareLink", "POST", site+"/share-links", map[string]any{"name": "Partners"}).json(t)
	admin.op("listSiteShareLinks", "GET", site+"/share-links", nil)
	u, _ := link["urls"].(map[string]any)
	pub, _ := u["published"].(string)
	key := pub[strings.Index(pub, "shareKey=")+len("shareKey="):]
	other.status(404, "GET", site+"/published", nil)
	other.status(403, "GET", site+"/published?shareKey=wrong", nil)
	published(other, "?shareKey="+key)
	admin.op("updateSiteShareLinkById", "PATCH", site+"/share-links/"+str(link, "id"), map[string]any{"active": false})
	other.status(403, "GET", site+"/published?shareKey="+key, nil)
	admin.op("updateSiteShareLinkById", "PATCH", site+"/share-links/"+str(link, "id"), map[string]any{"active": true})
	published(other, "?shareKey="+key)
	admin.op("deleteSiteShareLinkById", "DELETE", site+"/share-links/"+str(link, "id"), nil)
	other.status(403, "GET", site+"/published?shareKey="+key, nil)
	reader.status(403, "GET", site+"/share-links", nil)

	// Sites of another organization are never visible.
	other.status(404, "GET", site, nil)
	other.status(404, "GET", org+"/sites", nil)
	other.status(404, "GET", site+"/sections", nil)

	admin.op("moveSiteSectionGroup", "POST", site+"/section-groups/"+str(g, "id")+"/move", map[string]any{"position": map[string]any{"after": map[string]any{"type": "site-section", "id": str(b, "id")}}})
	admin.op("deleteSiteSectionGroupById", "DELETE", site+"/section-groups/"+str(g, "id"), nil)
	admin.op("deleteSiteSectionById", "DELETE", site+"/sections/"+str(b, "id"), nil)
	admin.schema("Site", 200, "POST", site+"/unpublish", nil)
	admin.op("deleteSiteById", "DELETE", site, nil)
	admin.status(404, "GET", site, nil)

	waitForEvents(t, p, "sites.events", map[string]string{sitesapi.SiteCreated: str(s, "id"), sitesapi.SitePublished: str(s, "id"),
		sitesapi.SiteDeleted: str(s, "id"), sitesapi.SiteSectionCreated: str(a, "id"), sitesapi.SiteSectionGroupCreated: str(g, "id"),
		sitesapi.ShareLinkCreated: str(link, "id"), sitesapi.SiteSpaceCreated: ""})
}

// With the sites service stopped while a space changes, it catches up after restart.
func TestSitesCatchUpAfterRestart(t *testing.T) {
	inProcessOnly(t)
	p := startPlatform(t)
	admin := client{t, p.URL, p.Credentials.DemoAdminToken}
	org := "/v1/orgs/" + p.Credentials.DemoOrgID
	spID := str(admin.schema("Space", 201, "POST", org+"/spaces", map[string]any{"title": "Before"}).json(t), "id")
	site := org + "/sites/" + str(admin.op("createSite", "POST", org+"/sites", map[string]any{"title": "Site", "spaces": []string{spID}}).json(t), "id")

	p.StopSites()
	admin.status(503, "GET", site, nil)
	admin.op("updateSpaceById", "PATCH", "/v1/spaces/"+spID, map[string]any{"title": "After"})
	if err := p.StartSites(); err != nil {
		t.Fatalf("restart sites: %v", err)
	}
	eventually(t, "the space's new title after the restart", func() bool {
		return strings.Contains(string(admin.do("GET", site+"/published", nil).Body), "After")
	})
}
