package local

import (
	"strings"
	"testing"
)

// Tests of issue 14 for sites, through the gateway with the real content
// service: a site never shows a space that content would refuse its reader,
// and follows transfers.

// joinAsAdmin makes the demo admin an admin of the other organization too
// (with an invite link of the other organization's admin) and returns that
// organization's path.
func joinAsAdmin(t *testing.T, p *Platform) string {
	t.Helper()
	admin := client{t, p.URL, p.Credentials.DemoAdminToken}
	other := client{t, p.URL, p.Credentials.OtherOrgToken}
	orgs := items(t, other.op("listOrganizationsForAuthenticatedUser", "GET", "/v1/orgs", nil))
	if len(orgs) != 1 {
		t.Fatalf("other user's organizations: %v", orgs)
	}
	otherOrg := "/v1/orgs/" + str(orgs[0], "id")
	inv := other.schema("OrganizationInviteLink", 201, "POST", otherOrg+"/link-invites", map[string]any{"role": "admin"}).json(t)
	admin.status(200, "POST", otherOrg+"/invites/"+str(inv, "id"), nil)
	eventually(t, "the admin's token knows the new membership", func() bool {
		return admin.do("GET", otherOrg, nil).Status == 200
	})
	return otherOrg
}

// TestSitesFollowTransfers: a space transferred to another organization
// leaves the old organization's site at once for members (content answers
// its new organization) and for visitors (the projection follows
// space.transferred), even when it changes in its new organization.
func TestSitesFollowTransfers(t *testing.T) {
	p := startPlatform(t)
	admin := client{t, p.URL, p.Credentials.DemoAdminToken}
	reader := client{t, p.URL, p.Credentials.DemoReaderToken}
	visitor := client{t, p.URL, p.Credentials.OtherOrgToken}
	org := "/v1/orgs/" + p.Credentials.DemoOrgID
	otherOrg := joinAsAdmin(t, p)
	otherOrgID := strings.TrimPrefix(otherOrg, "/v1/orgs/")

	stays := str(admin.schema("Space", 201, "POST", org+"/spaces", map[string]any{"title": "Stays home"}).json(t), "id")
	moving := str(admin.schema("Space", 201, "POST", org+"/spaces", map[string]any{"title": "Moving out"}).json(t), "id")
	site := org + "/sites/" + str(admin.op("createSite", "POST", org+"/sites", map[string]any{"title": "Home docs", "spaces": []string{stays, moving}}).json(t), "id")
	admin.op("addSectionToSite", "POST", site+"/sections", map[string]any{"spaceId": stays, "title": "Staying section"})
	admin.op("addSectionToSite", "POST", site+"/sections", map[string]any{"spaceId": moving})
	admin.schema("Site", 200, "POST", site+"/publish", nil)
	if body := string(visitor.op("getPublishedContentSite", "GET", site+"/published", nil).Body); !strings.Contains(body, "Moving out") {
		t.Fatalf("before the transfer the visitor sees the space: %s", body)
	}

	admin.status(200, "POST", "/v1/spaces/"+moving+"/transfer", map[string]any{"organization": otherOrgID})
	admin.op("updateSpaceById", "PATCH", "/v1/spaces/"+moving, map[string]any{"title": "Now elsewhere"})
	// The new organization's own site shows the renamed space: sites has
	// consumed the transfer and the rename.
	theirs := otherOrg + "/sites/" + str(admin.op("createSite", "POST", otherOrg+"/sites", map[string]any{"title": "Their docs", "spaces": []string{moving}}).json(t), "id")
	eventually(t, "the new organization's site shows the renamed space", func() bool {
		return strings.Contains(string(admin.do("GET", theirs+"/published", nil).Body), "Now elsewhere")
	})

	for name, c := range map[string]client{"an admin of both organizations": admin, "a reader": reader, "a visitor": visitor} {
		for _, path := range []string{site + "/published", site + "/site-spaces", site + "/sections"} {
			if c.token == visitor.token && path != site+"/published" {
				continue
			}
			r := c.status(200, "GET", path, nil)
			if body := string(r.Body); strings.Contains(body, moving) || strings.Contains(body, "Now elsewhere") || strings.Contains(body, "Moving out") {
				t.Errorf("%s still sees the transferred space in GET %s: %s", name, path, body)
			}
			if body := string(r.Body); path == site+"/published" && !strings.Contains(body, "Stays home") {
				t.Errorf("%s lost the space that stayed in GET %s: %s", name, path, body)
			}
		}
	}
}

// TestSitesHideWhatContentHides: a space content hides from a reader
// (defaultLevel null) shows neither in sites' sections, site spaces nor
// published view to that reader, while the admin sees it; it comes back as
// soon as content lets the reader see it again.
func TestSitesHideWhatContentHides(t *testing.T) {
	p := startPlatform(t)
	admin := client{t, p.URL, p.Credentials.DemoAdminToken}
	reader := client{t, p.URL, p.Credentials.DemoReaderToken}
	org := "/v1/orgs/" + p.Credentials.DemoOrgID

	open := str(admin.schema("Space", 201, "POST", org+"/spaces", map[string]any{"title": "Public handbook"}).json(t), "id")
	secret := str(admin.schema("Space", 201, "POST", org+"/spaces", map[string]any{"title": "Secret roadmap"}).json(t), "id")
	admin.op("updateSpaceById", "PATCH", "/v1/spaces/"+secret, map[string]any{"defaultLevel": nil})
	reader.status(404, "GET", "/v1/spaces/"+secret, nil)

	site := org + "/sites/" + str(admin.op("createSite", "POST", org+"/sites", map[string]any{"title": "Docs", "spaces": []string{open, secret}}).json(t), "id")
	admin.op("addSectionToSite", "POST", site+"/sections", map[string]any{"spaceId": open, "title": "Guides"})
	admin.op("addSectionToSite", "POST", site+"/sections", map[string]any{"spaceId": secret})
	paths := []string{site + "/site-spaces", site + "/sections", site + "/published"}

	for _, path := range paths {
		if body := string(admin.status(200, "GET", path, nil).Body); !strings.Contains(body, "Secret roadmap") {
			t.Errorf("the admin does not see the space in GET %s: %s", path, body)
		}
		body := string(reader.status(200, "GET", path, nil).Body)
		if strings.Contains(body, "Secret roadmap") || strings.Contains(body, secret) {
			t.Errorf("the reader sees the space content hides from them in GET %s: %s", path, body)
		}
		if !strings.Contains(body, "Public handbook") {
			t.Errorf("the reader lost the space they may see in GET %s: %s", path, body)
		}
	}
	if l := items(t, reader.status(200, "GET", site+"/site-spaces", nil)); len(l) != 2 {
		t.Errorf("the reader's site spaces: %d, want the 2 of the open space", len(l))
	}

	// A reader who sees the space gets read-only permissions on it.
	admin.op("updateSpaceById", "PATCH", "/v1/spaces/"+secret, map[string]any{"defaultLevel": "inherit"})
	l := items(t, reader.status(200, "GET", site+"/site-spaces", nil))
	if len(l) != 4 {
		t.Fatalf("the reader's site spaces once content shows the space again: %d, want 4", len(l))
	}
	for _, ss := range l {
		perms, _ := ss["space"].(map[string]any)["permissions"].(map[string]any)
		if perms["view"] != true || perms["edit"] != false || perms["admin"] != false {
			t.Errorf("the reader's permissions on %s: %v", str(ss, "space", "id"), perms)
		}
	}
}

// TestSiteDefaultSection: defaultSiteSection makes a section of the site its
// default, and a section of another site is a 400 naming the field.
func TestSiteDefaultSection(t *testing.T) {
	p := startPlatform(t)
	admin := client{t, p.URL, p.Credentials.DemoAdminToken}
	org := "/v1/orgs/" + p.Credentials.DemoOrgID
	sp := str(admin.schema("Space", 201, "POST", org+"/spaces", map[string]any{"title": "Handbook"}).json(t), "id")
	site := org + "/sites/" + str(admin.op("createSite", "POST", org+"/sites", map[string]any{"title": "Docs"}).json(t), "id")
	alpha := str(admin.op("addSectionToSite", "POST", site+"/sections", map[string]any{"spaceId": sp, "title": "Alpha"}).json(t), "id")
	beta := str(admin.op("addSectionToSite", "POST", site+"/sections", map[string]any{"spaceId": sp, "title": "Beta"}).json(t), "id")
	otherSite := org + "/sites/" + str(admin.op("createSite", "POST", org+"/sites", map[string]any{"title": "Other"}).json(t), "id")
	elsewhere := str(admin.op("addSectionToSite", "POST", otherSite+"/sections", map[string]any{"spaceId": sp, "title": "Elsewhere"}).json(t), "id")

	defaults := func() map[string]bool {
		out := map[string]bool{}
		for _, it := range items(t, admin.op("listSiteSections", "GET", site+"/sections", nil)) {
			out[str(it, "id")] = it["default"] == true
		}
		return out
	}
	if d := defaults(); !d[alpha] || d[beta] {
		t.Fatalf("defaults before: %v", d)
	}
	admin.op("updateSiteById", "PATCH", site, map[string]any{"defaultSiteSection": beta})
	if d := defaults(); d[alpha] || !d[beta] {
		t.Errorf("after defaultSiteSection %s: %v, want only it default", beta, d)
	}
	r := admin.status(400, "PATCH", site, map[string]any{"defaultSiteSection": elsewhere, "title": "Not applied"})
	if !strings.Contains(string(r.Body), "defaultSiteSection") {
		t.Errorf("a section of another site: %s does not name defaultSiteSection", r.Body)
	}
	if got := str(admin.op("getSiteById", "GET", site, nil).json(t), "title"); got != "Docs" {
		t.Errorf("the refused PATCH changed the title to %q", got)
	}
	if d := defaults(); !d[beta] {
		t.Errorf("the refused PATCH changed the default: %v", d)
	}
}
