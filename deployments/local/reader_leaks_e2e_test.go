package local

import (
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/waittest"
	"github.com/docspub/platform/services/sites"
)

// Marker words of issue 19's reader leaks, each in the content of one
// space a visitor without claims may not be shown.
const (
	leakHidden      = "MARKERHIDDEN"      // a hidden site space (read at its own address only)
	leakCondVariant = "MARKERCONDVARIANT" // a site space whose condition does not hold
	leakCondSection = "MARKERCONDSECTION" // a section whose condition does not hold
	leakUnpublished = "MARKERUNPUBLISHED" // a site space whose space was deleted
	leakGroup       = "MARKERGROUP"       // a group holding only that section
	leakVisible     = "MARKERVISIBLE"     // what every visitor reads
)

var leakMarkers = []string{leakHidden, leakCondVariant, leakCondSection, leakUnpublished, leakGroup}

var imgSrc = regexp.MustCompile(`<img src="([^"]+/~files/[^"]+)"`)

// siteSpaceURLsOf are the urls.published of the site spaces of a
// published view.
func siteSpaceURLsOf(t *testing.T, body []byte) []string {
	t.Helper()
	var doc any
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if v["object"] == "site-space" {
				if u, ok := v["urls"].(map[string]any); ok {
					if s, ok := u["published"].(string); ok && !slices.Contains(out, s) {
						out = append(out, s)
					}
				}
			}
			for _, c := range v {
				walk(c)
			}
		case []any:
			for _, c := range v {
				walk(c)
			}
		}
	}
	walk(doc)
	return out
}

// TestReaderLeaksClosedThroughGateway: issue 19's reader leaks, tried
// through the gateway as a hostile reader would:
//   - every route of the reader's table (sites.ReaderRoutes), at every
//     address of the site (every page and file any site space has), shows
//     a visitor without claims nothing of a hidden site space (but at its
//     own address, unindexed), of a section or site space whose condition
//     does not hold, of a deleted space, of a group left empty;
//   - GET SITE/published for a non-member shows them only what the reader
//     does, without conditions, valid against the contract;
//   - a forged Host is reflected in no canonical link, sitemap, llms or
//     robots file;
//   - a file of one organization, requested through another
//     organization's site with its ids, is a 404 with a cold cache (the
//     sites service restarted) and with a warm one.
func TestReaderLeaksClosedThroughGateway(t *testing.T) {
	inProcessOnly(t)
	web := &website{pages: map[string]string{}}
	srv := httptest.NewServer(web)
	defer srv.Close()
	p := startPlatform(t)
	admin := client{t, p.URL, p.Credentials.DemoAdminToken}
	other := client{t, p.URL, p.Credentials.OtherOrgToken}
	org := "/v1/orgs/" + p.Credentials.DemoOrgID
	otherOrg := "/v1/orgs/" + str(items(t, other.op("listOrganizationsForAuthenticatedUser", "GET", "/v1/orgs", nil))[0], "id")

	// A space per piece of content: a home page with an image, and a page.
	newSpace := func(title, text string) string {
		t.Helper()
		id := str(admin.schema("Space", 201, "POST", org+"/spaces", map[string]any{"title": title}).json(t), "id")
		web.mu.Lock()
		web.pages = map[string]string{}
		web.mu.Unlock()
		web.set("/", text+" home", `<p>`+text+` home.</p><img src="/logo.png" alt="logo"><a href="/more">More</a>`)
		web.set("/more", text+" more", `<p>`+text+` more.</p>`)
		crs := "/v1/spaces/" + id + "/change-requests"
		cr := crs + "/" + str(admin.op("createChangeRequest", "POST", crs, map[string]any{"subject": "Import"}).json(t), "id")
		admin.status(201, "POST", cr+"/content/import", map[string]any{"source": "website", "url": srv.URL + "/"})
		admin.op("mergeChangeRequest", "POST", cr+"/merge", nil)
		return id
	}
	handbook := newSpace("Handbook", leakVisible)
	internal := newSpace("Internal "+leakHidden, leakHidden)
	preview := newSpace("Preview "+leakCondVariant, leakCondVariant)
	beta := newSpace("Beta "+leakCondSection, leakCondSection)
	gone := newSpace("Gone "+leakUnpublished, leakUnpublished)

	st := admin.op("createSite", "POST", org+"/sites", map[string]any{"title": "Leaky docs", "spaces": []string{handbook}}).json(t)
	site := org + "/sites/" + str(st, "id")
	guides := str(admin.op("addSectionToSite", "POST", site+"/sections", map[string]any{"spaceId": handbook, "title": "Guides"}).json(t), "id")
	for _, sp := range []string{internal, preview, gone} {
		admin.status(201, "POST", site+"/site-spaces", map[string]any{"spaceId": sp, "sectionId": guides})
	}
	betaSec := str(admin.op("addSectionToSite", "POST", site+"/sections", map[string]any{"spaceId": beta, "title": "Beta " + leakCondSection}).json(t), "id")
	admin.op("updateSiteSectionById", "PATCH", site+"/sections/"+betaSec, map[string]any{"condition": "visitor.claims.unsigned.beta == true"})
	admin.status(201, "POST", site+"/section-groups", map[string]any{"title": "Group " + leakGroup, "sections": []string{betaSec}})
	siteSpaceOf := map[string]string{}
	for _, ss := range items(t, admin.status(200, "GET", site+"/site-spaces", nil)) {
		if sec, _ := ss["section"].(string); sec != "" {
			siteSpaceOf[str(ss, "space", "id")] = str(ss, "id")
		}
	}
	admin.status(200, "PATCH", site+"/site-spaces/"+siteSpaceOf[internal], map[string]any{"hidden": true})
	admin.status(200, "PATCH", site+"/site-spaces/"+siteSpaceOf[preview], map[string]any{"condition": "visitor.claims.unsigned.preview == true"})
	admin.op("updateSiteAdaptiveSchema", "PUT", site+"/adaptive-schema", map[string]any{"jsonSchema": map[string]any{
		"type": "object", "additionalProperties": false, "properties": map[string]any{
			"unsigned": map[string]any{"type": "object", "additionalProperties": false, "properties": map[string]any{
				"preview": map[string]any{"type": "boolean"}, "beta": map[string]any{"type": "boolean"}}}}}})
	admin.op("updateSiteById", "PATCH", site, map[string]any{"adaptiveContent": map[string]any{"enabled": true}})
	siteURL := str(admin.schema("Site", 200, "POST", site+"/publish", nil).json(t), "urls", "published")
	member := admin.op("getPublishedContentSite", "GET", site+"/published", nil)
	variants := siteSpaceURLsOf(t, member.Body)
	hiddenURL := ""
	for _, v := range variants {
		if strings.Contains(strings.ToUpper(v), leakHidden) {
			hiddenURL = v
		}
	}
	if len(variants) != 5 || hiddenURL == "" {
		t.Fatalf("the member's published view: site spaces %v", variants)
	}

	// Gone is deleted: once the sites service has the event (its
	// projection, then the reader's structure), its visitors' views lack it.
	admin.op("deleteSpaceById", "DELETE", "/v1/spaces/"+gone, nil)
	waittest.Until(t, "the deleted space out of the visitors' published view and the reader", 30*time.Second, func() bool {
		r := other.do("GET", site+"/published", nil)
		home := newReader(t).get(siteURL, "")
		return r.Status == 200 && !strings.Contains(string(r.Body), leakUnpublished) &&
			home.Status == 200 && !strings.Contains(string(home.Body), leakUnpublished)
	})

	// Every address a reader could try: the pages and files of every site
	// space, as a reader with both claims and the hidden space's own
	// address show them.
	pages, files := map[string]bool{siteURL: true}, map[string]bool{}
	collect := func(body string) {
		for _, l := range tocLinks(body) {
			pages[p.URL+l] = true
		}
		for _, m := range imgSrc.FindAllStringSubmatch(body, -1) {
			files[p.URL+m[1]] = true
		}
	}
	privileged := newReader(t)
	collect(privileged.want(200, siteURL+"?visitor.preview=true&visitor.beta=true"))
	for _, v := range variants {
		pages[v], pages[v+"/more"] = true, true // the deleted space's pages too
		if r := privileged.get(v, ""); r.Status == 200 {
			collect(string(r.Body))
		}
	}
	collect(newReader(t).want(200, hiddenURL))
	// The hidden space's file ids through the visible site space, too.
	for f := range files {
		if strings.Contains(f, siteSpaceOf[internal]) {
			files[strings.Replace(f, siteSpaceOf[internal], siteSpaceOf[handbook], 1)] = true
		}
	}
	hiddenFiles := "/~files/" + siteSpaceOf[internal] + "/"
	direct := func(u string) bool {
		return u == hiddenURL || strings.HasPrefix(u, hiddenURL+"/") || strings.Contains(u, hiddenFiles)
	}

	anon := newReader(t)
	served := map[string]bool{}
	try := func(route, u string) {
		t.Helper()
		r := anon.get(u, "")
		body := strings.ToLower(string(r.Body))
		if q, ok := strings.CutPrefix(u, siteURL+"/~search?q="); ok {
			body = strings.ReplaceAll(body, strings.ToLower(`value="`+q+`"`), "")
		}
		for _, w := range leakMarkers {
			if strings.Contains(body, strings.ToLower(w)) && !(direct(u) && w == leakHidden && r.Status == 200) {
				t.Errorf("%s: GET %s = %d shows %s: %.300s", route, u, r.Status, w, r.Body)
			}
		}
		if direct(u) && r.Status == 200 && r.Header.Get("X-Robots-Tag") != "noindex" {
			t.Errorf("%s: the hidden site space's own address %s is indexed", route, u)
		}
		if r.Status == 200 && (strings.Contains(body, strings.ToLower(leakVisible)) || r.Header.Get("Content-Type") == "image/png") {
			served[route] = true
		}
	}
	for _, rt := range sites.ReaderRoutes() {
		switch rt.Path {
		case "{variant}/{page}":
			for u := range pages {
				try(rt.Name, u)
			}
		case "{variant}/{page}.md":
			for u := range pages {
				if u != siteURL && !slices.Contains(variants, u) {
					try(rt.Name, u+".md")
				}
			}
		case "/~files/{siteSpace}/{revision}/{file}":
			for u := range files {
				try(rt.Name, u)
			}
		case "/~search?q={query}":
			for _, w := range append(slices.Clone(leakMarkers), leakVisible, "home", "more") {
				// The same search with claims first (which finds the
				// variant its claims hold): the gateway keeps a search
				// under its q, never one built from claims.
				r := privileged.get(siteURL+"/~search?q="+url.QueryEscape(w)+"&visitor.preview=true&visitor.beta=true", "")
				if found := strings.ReplaceAll(string(r.Body), `value="`+w+`"`, ""); w == leakCondVariant && !strings.Contains(found, w) {
					t.Errorf("a search with claims does not find %s: %d", w, r.Status)
				}
				try(rt.Name, siteURL+"/~search?q="+url.QueryEscape(w))
			}
		case "/~static/{asset}":
			for _, a := range sites.ReaderStaticAssets() {
				if r := anon.get(siteURL+"/~static/"+a, ""); r.Status != 200 {
					t.Errorf("GET %s/~static/%s = %d", siteURL, a, r.Status)
				}
				try(rt.Name, siteURL+"/~static/"+a)
			}
		default:
			if strings.Contains(rt.Path, "{") {
				t.Fatalf("route %s (%s) has placeholders this test does not fill: fill them", rt.Name, rt.Path)
			}
			try(rt.Name, siteURL+rt.Path)
		}
	}
	for _, rt := range sites.ReaderRoutes() {
		// (static answers the vendored assets of pages: no content)
		if rt.Name != "robots.txt" && rt.Name != "sitemap.xml" && rt.Name != "static" && !served[rt.Name] {
			t.Errorf("route %s never answered the visitor's own content: the test proves nothing of it", rt.Name)
		}
	}

	// GET SITE/published for a non-member: what the reader shows them.
	view := other.op("getPublishedContentSite", "GET", site+"/published", nil)
	for _, w := range append(slices.Clone(leakMarkers), `"condition"`, `"gitSync"`) {
		if strings.Contains(string(view.Body), w) {
			t.Errorf("the non-member's published view shows %s: %s", w, view.Body)
		}
	}
	if got := siteSpaceURLsOf(t, view.Body); len(got) != 1 || got[0] != siteURL {
		t.Errorf("the non-member's published view lists %v, want the reader's %s alone", got, siteURL)
	}

	// A forged Host: reflected nowhere, the same bytes as the configured host's.
	for _, doc := range []string{"", "/sitemap.xml", "/llms.txt", "/llms-full.txt", "/robots.txt"} {
		want := anon.get(siteURL+doc, "")
		for _, host := range []string{"evil.example.com", "EVIL.example.com:8443"} {
			r := anon.get(siteURL+doc, host)
			if r.Status != 200 || strings.Contains(strings.ToLower(string(r.Body)), "evil") || string(r.Body) != string(want.Body) {
				t.Errorf("GET %s with Host %s: %d %.300s", siteURL+doc, host, r.Status, r.Body)
			}
		}
	}

	// Another organization's site, asked for this organization's file ids.
	img := imgSrc.FindStringSubmatch(anon.want(200, siteURL))
	if img == nil {
		t.Fatal("no image on the site's home page")
	}
	victimFile := p.URL + img[1]
	ids := strings.Split(victimFile[strings.Index(victimFile, "/~files/")+len("/~files/"):], "/") // site space, revision, file
	theirSpace := str(other.schema("Space", 201, "POST", otherOrg+"/spaces", map[string]any{"title": "Their guide"}).json(t), "id")
	theirSite := otherOrg + "/sites/" + str(other.op("createSite", "POST", otherOrg+"/sites", map[string]any{"title": "Theirs", "spaces": []string{theirSpace}}).json(t), "id")
	theirURL := str(other.schema("Site", 200, "POST", theirSite+"/publish", nil).json(t), "urls", "published")
	theirSS := str(items(t, other.status(200, "GET", theirSite+"/site-spaces", nil))[0], "id")
	attempts := []string{
		theirURL + "/~files/" + theirSS + "/" + ids[1] + "/" + ids[2],
		theirURL + "/~files/" + ids[0] + "/" + ids[1] + "/" + ids[2],
	}
	p.StopSites() // a cold cache
	if err := p.StartSites(); err != nil {
		t.Fatal(err)
	}
	for _, warm := range []bool{false, true} {
		if warm {
			anon.want(200, siteURL+"/llms.txt") // the victim's tree and file cached
			if r := anon.get(victimFile, ""); r.Status != 200 {
				t.Fatalf("the victim's own file: %d", r.Status)
			}
		}
		for _, u := range attempts {
			if r := newReader(t).get(u, ""); r.Status != 404 || r.Header.Get("Content-Type") == "image/png" {
				t.Errorf("GET %s through another organization's site (warm cache %v) = %d %s", u, warm, r.Status, r.Header.Get("Content-Type"))
			}
		}
	}
}
