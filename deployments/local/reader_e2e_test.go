package local

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/waittest"
	"github.com/docspub/platform/services/sites"
	"github.com/docspub/platform/services/sites/dnstest"
	"github.com/golang-jwt/jwt/v5"
)

// readerClient reads published sites through the gateway without a token,
// keeping cookies like a browser.
type readerClient struct {
	t    *testing.T
	http *http.Client
}

func newReader(t *testing.T) *readerClient {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &readerClient{t: t, http: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

// get reads url (host, when set, is the Host the reader asks for).
func (r *readerClient) get(url, host string) reply {
	r.t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		r.t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	res, err := r.http.Do(req)
	if err != nil {
		r.t.Fatalf("GET %s: %v", url, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return reply{Status: res.StatusCode, Body: b, Header: res.Header}
}

func (r *readerClient) want(status int, url string) string {
	r.t.Helper()
	rep := r.get(url, "")
	if rep.Status != status {
		r.t.Fatalf("GET %s = %d, want %d: %.300s", url, rep.Status, status, rep.Body)
	}
	return string(rep.Body)
}

var tocLink = regexp.MustCompile(`<a href="([^"]+)"`)

// tocLinks are the links of a page's navigation.
func tocLinks(body string) []string {
	i := strings.Index(body, `<nav class="toc"`)
	if i < 0 {
		return nil
	}
	toc := body[i:]
	toc = toc[:strings.Index(toc, "</nav>")]
	var out []string
	for _, m := range tocLink.FindAllStringSubmatch(toc, -1) {
		out = append(out, m[1])
	}
	return out
}

// TestPublishedSiteThroughGateway: content imported into a space through
// a change request and merged, a site created and published; then, with
// no token, readers read it at its urls.published with each visibility.
func TestPublishedSiteThroughGateway(t *testing.T) {
	web := &website{pages: map[string]string{}}
	srv := httptest.NewServer(web)
	defer srv.Close()
	web.set("/", "Home", `<p>Welcome to the zephyr docs.</p><pre><code>go build ./...</code></pre><img src="/logo.png" alt="logo"><a href="/guide">Guide</a> <a href="/api">API</a>`)
	web.set("/guide", "Guide", `<p>The guide explains the zephyr.</p>`)
	web.set("/api", "API", `<p>Endpoints of the zephyr.</p>`)

	dns := dnstest.Start(t)
	p, _ := startPlatformSites(t, func(c *sites.Config) { c.HostnameDNSServer = dns.Addr })
	admin := client{t, p.URL, p.Credentials.DemoAdminToken}
	org := "/v1/orgs/" + p.Credentials.DemoOrgID
	newSpace := func(title string) string {
		t.Helper()
		return str(admin.schema("Space", 201, "POST", org+"/spaces", map[string]any{"title": title}).json(t), "id")
	}
	importAndMerge := func(space string) {
		t.Helper()
		crs := "/v1/spaces/" + space + "/change-requests"
		cr := crs + "/" + str(admin.op("createChangeRequest", "POST", crs, map[string]any{"subject": "Import"}).json(t), "id")
		admin.status(201, "POST", cr+"/content/import", map[string]any{"source": "website", "url": srv.URL + "/"})
		if r := admin.op("mergeChangeRequest", "POST", cr+"/merge", nil).json(t); str(r, "result") != "merge" {
			t.Fatalf("merge: %v", r)
		}
	}
	space := newSpace("Zephyr")
	importAndMerge(space)
	st := admin.op("createSite", "POST", org+"/sites", map[string]any{"title": "Zephyr docs", "spaces": []string{space}}).json(t)
	site := org + "/sites/" + str(st, "id")
	url := str(admin.schema("Site", 200, "POST", site+"/publish", nil).json(t), "urls", "published")
	if !strings.HasPrefix(url, p.URL+"/sites/") {
		t.Fatalf("urls.published = %q", url)
	}

	// Public: the home page is the first page; navigation reaches every page.
	rd := newReader(t)
	home := rd.want(200, url)
	for _, want := range []string{"Welcome to the zephyr docs.", `<pre class="chroma"><code>`, "go build ./...", "<title>Home | Zephyr docs</title>"} {
		if !strings.Contains(home, want) {
			t.Errorf("home page lacks %q", want)
		}
	}
	links := tocLinks(home)
	if len(links) != 3 {
		t.Fatalf("navigation links %v, want the 3 imported pages", links)
	}
	seen := map[string]bool{}
	for _, l := range links {
		body := rd.want(200, p.URL+l)
		for _, w := range []string{"Welcome to the zephyr", "guide explains", "Endpoints of"} {
			if strings.Contains(body, w) {
				seen[w] = true
			}
		}
	}
	if len(seen) != 3 {
		t.Errorf("navigation reached %v", seen)
	}
	rd.want(404, url+"/no-such-page")
	// The imported image is served from the site, as an image.
	img := regexp.MustCompile(`<img src="([^"]+/~files/[^"]+)"`).FindStringSubmatch(home)
	if img == nil {
		t.Fatalf("no image in the home page: %.600s", home)
	}
	if r := rd.get(p.URL+img[1], ""); r.Status != 200 || r.Header.Get("Content-Type") != "image/png" || !bytes.Equal(r.Body, pngBytes) {
		t.Errorf("image %s: %d %v", img[1], r.Status, r.Header)
	}
	// The search box finds the guide.
	if found := rd.want(200, url+"/~search?q=explains"); !strings.Contains(found, `href="`+strings.TrimPrefix(url, p.URL)+`/guide"`) {
		t.Errorf("search: %.600s", found)
	}
	if md := rd.want(200, url+"/guide.md"); !strings.HasPrefix(md, "# Guide") {
		t.Errorf("guide.md: %s", md)
	}
	if llms := rd.want(200, url+"/llms.txt"); !strings.Contains(llms, url+"/guide.md") {
		t.Errorf("llms.txt: %s", llms)
	}
	if robots := rd.want(200, url+"/robots.txt"); !strings.Contains(robots, "Allow: /") {
		t.Errorf("robots.txt: %s", robots)
	}

	// A merge shows within a second: content's space.updated carries the
	// new revision to sites' projection, which the cached pages are keyed
	// by (no page view asks content).
	web.set("/", "Home", `<p>Welcome back to the zephyr docs, now merged.</p><a href="/guide">Guide</a> <a href="/api">API</a>`)
	cached := rd.get(url, "")
	importAndMerge(space)
	merged := time.Now()
	waittest.Until(t, "the merge on the published page", time.Second, func() bool {
		return strings.Contains(string(rd.get(url, "").Body), "now merged")
	})
	t.Logf("the merge showed %v after its answer", time.Since(merged))
	if r := rd.get(url, ""); r.Header.Get("ETag") == "" || r.Header.Get("ETag") == cached.Header.Get("ETag") {
		t.Errorf("ETag before the merge %q, after %q", cached.Header.Get("ETag"), r.Header.Get("ETag"))
	}

	// Unlisted: served, not indexed.
	admin.op("updateSiteById", "PATCH", site, map[string]any{"visibility": "unlisted"})
	r := rd.get(url, "")
	if r.Status != 200 || r.Header.Get("X-Robots-Tag") != "noindex" || !strings.Contains(string(r.Body), `<meta name="robots" content="noindex">`) {
		t.Errorf("unlisted: %d %v", r.Status, r.Header)
	}

	// Share link: refused without the key, served with it (kept in a
	// cookie for the site's links), refused once deactivated.
	admin.op("updateSiteById", "PATCH", site, map[string]any{"visibility": "share-link"})
	link := admin.op("createSiteShareLink", "POST", site+"/share-links", map[string]any{"name": "Partners"}).json(t)
	newReader(t).want(404, url)
	newReader(t).want(403, url+"?shareKey=not-a-key")
	partner := newReader(t)
	partner.want(200, str(link, "urls", "published"))
	partner.want(200, url+"/guide")
	admin.op("updateSiteShareLinkById", "PATCH", site+"/share-links/"+str(link, "id"), map[string]any{"active": false})
	partner.want(403, url+"/guide")
	newReader(t).want(403, str(link, "urls", "published"))

	// Visitor auth: no JWT, not served; a valid one, served; a section
	// whose condition its claims do not meet is absent, its URL a 404.
	beta := newSpace("Beta")
	importAndMerge(beta)
	admin.op("updateSiteById", "PATCH", site, map[string]any{"visibility": "visitor-auth", "adaptiveContent": map[string]any{"enabled": true}})
	admin.op("addSectionToSite", "POST", site+"/sections", map[string]any{"spaceId": space, "title": "Guides"})
	sec := admin.op("addSectionToSite", "POST", site+"/sections", map[string]any{"spaceId": beta, "title": "Beta"}).json(t)
	sec = admin.op("updateSiteSectionById", "PATCH", site+"/sections/"+str(sec, "id"), map[string]any{"condition": "visitor.claims.beta == true"}).json(t)
	admin.op("updateSiteAdaptiveSchema", "PUT", site+"/adaptive-schema", map[string]any{"jsonSchema": map[string]any{
		"type": "object", "additionalProperties": false, "properties": map[string]any{"beta": map[string]any{"type": "boolean"},
			"unsigned": map[string]any{"type": "object", "properties": map[string]any{}, "additionalProperties": false}}}})
	key := str(admin.status(200, "GET", site+"/publishing/auth", nil).json(t), "privateKey")
	token := func(claims jwt.MapClaims) string {
		claims["exp"] = time.Now().Add(time.Hour).Unix()
		s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString([]byte(key))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	newReader(t).want(401, url)
	newReader(t).want(401, url+"?jwt_token="+token(jwt.MapClaims{"beta": true})[:40])
	visitor := newReader(t)
	body := visitor.want(200, url+"?jwt_token="+token(jwt.MapClaims{"beta": false}))
	if !strings.Contains(body, "now merged") || strings.Contains(body, ">Beta</a>") {
		t.Errorf("visitor without beta: %.600s", body)
	}
	visitor.want(404, str(sec, "urls", "published"))
	betaReader := newReader(t)
	if body := betaReader.want(200, url+"?jwt_token="+token(jwt.MapClaims{"beta": true})); !strings.Contains(body, ">Beta</a>") {
		t.Errorf("visitor with beta lacks the section: %.600s", body)
	}
	betaReader.want(200, str(sec, "urls", "published"))

	// A custom hostname serves the site at its root (Host header), once
	// its TXT record holds the site's token.
	claim, _ := admin.op("updateSiteById", "PATCH", site, map[string]any{"visibility": "public", "hostname": "docs.zephyr.test"}).json(t)["customHostname"].(map[string]any)
	if r := rd.get(p.URL+"/guide", "docs.zephyr.test"); r.Status != 404 {
		t.Errorf("unverified custom hostname: %d %.300s", r.Status, r.Body)
	}
	dns.SetTXT(str(claim, "verification", "name"), str(claim, "verification", "value"))
	admin.op("updateSiteById", "PATCH", site, map[string]any{"hostname": "docs.zephyr.test"}) // checks it now
	if r := rd.get(p.URL+"/guide", "docs.zephyr.test"); r.Status != 200 || !strings.Contains(string(r.Body), "guide explains") {
		t.Errorf("custom hostname: %d %.300s", r.Status, r.Body)
	}

	// Unpublished: nothing.
	admin.schema("Site", 200, "POST", site+"/unpublish", nil)
	if body := newReader(t).want(404, url); strings.Contains(body, "Zephyr") {
		t.Errorf("unpublished site shows its title")
	}
}

// TestContentReadsOfPublishedSites: content's reads for published sites
// are for platform services alone: a space's current revision (following
// merges, 404 unknown, 409 deleted) and search over the given spaces of an
// organization (another organization's spaces match nothing), bounded.
func TestContentReadsOfPublishedSites(t *testing.T) {
	web := &website{pages: map[string]string{}}
	srv := httptest.NewServer(web)
	defer srv.Close()
	web.set("/", "Home", `<p>The quetzal lives here.</p>`)

	p := startPlatform(t)
	admin := client{t, p.URL, p.Credentials.DemoAdminToken}
	other := client{t, p.URL, p.Credentials.OtherOrgToken}
	mine := newSpace(t, admin, p.Credentials.DemoOrgID, "Mine")
	me := admin.status(200, "GET", "/v1/user", nil).json(t)
	theirOrg := str(items(t, other.op("listOrganizationsForAuthenticatedUser", "GET", "/v1/orgs", nil))[0], "id")
	theirs := newSpace(t, other, theirOrg, "Theirs")
	for _, c := range []struct {
		c     client
		space string
	}{{admin, mine}, {other, theirs}} {
		crs := "/v1/spaces/" + c.space + "/change-requests"
		cr := crs + "/" + str(c.c.op("createChangeRequest", "POST", crs, map[string]any{"subject": "Import"}).json(t), "id")
		c.c.status(201, "POST", cr+"/content/import", map[string]any{"source": "website", "url": srv.URL + "/"})
		c.c.op("mergeChangeRequest", "POST", cr+"/merge", nil)
	}

	signer, err := internaltoken.NewSigner("sites", p.InternalTokenSecret, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	mint := func(pr internaltoken.Principal) string {
		tok, err := signer.Mint("content", pr)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	svc := mint(internaltoken.Principal{Service: "sites"})
	user := mint(internaltoken.Principal{UserID: str(me, "id"), Roles: map[string]string{p.Credentials.DemoOrgID: "admin"}})
	call := func(tok, method, path string, body any) reply {
		t.Helper()
		var rd io.Reader
		if body != nil {
			rd = bytes.NewReader(mustJSON(body))
		}
		req, _ := http.NewRequest(method, p.ContentURL+"/internal/v1"+path, rd)
		if tok != "" {
			req.Header.Set(internaltoken.Header, tok)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return reply{Status: res.StatusCode, Body: b, Header: res.Header}
	}

	// The readers' routes answer the sites service alone.
	notSites := serviceToken(t, p, "integrations", "content", internaltoken.Principal{})
	current := "/spaces/" + mine + "/current"
	for tok, want := range map[string]int{"": 401, user: 403, notSites: 403} {
		if r := call(tok, "GET", current, nil); r.Status != want {
			t.Errorf("current with token %.10q: %d, want %d", tok, r.Status, want)
		}
	}
	cur := call(svc, "GET", current, nil).json(t)
	if str(cur, "organization") != p.Credentials.DemoOrgID || str(cur, "revision") != str(currentRevision(t, admin, mine), "id") {
		t.Errorf("current %v", cur)
	}
	if r := call(notSites, "GET", "/spaces/"+mine+"/content", nil); r.Status != 403 {
		t.Errorf("content with another service's token: %d", r.Status)
	}
	if r := call(svc, "GET", "/spaces/"+mine+"/git/current", nil); r.Status != 403 {
		t.Errorf("Git sync's current with the sites service's token: %d", r.Status)
	}
	// Members' access: for a user through the sites service only.
	for pr, want := range map[string]int{"sites": 200, "integrations": 403, "": 403} {
		tok := serviceToken(t, p, "sites", "content", internaltoken.Principal{UserID: str(me, "id"),
			Roles: map[string]string{p.Credentials.DemoOrgID: "admin"}, Service: pr})
		if r := call(tok, "POST", "/spaces/access", map[string]any{"spaces": []string{mine}}); r.Status != want {
			t.Errorf("spaces/access for a user through %q: %d %s, want %d", pr, r.Status, r.Body, want)
		}
	}
	if r := call(svc, "GET", "/spaces/nope/current", nil); r.Status != 404 {
		t.Errorf("unknown space: %d", r.Status)
	}

	search := "/orgs/" + p.Credentials.DemoOrgID + "/search"
	hits := call(svc, "POST", search, map[string]any{"spaces": []string{mine, theirs}, "query": "quetzal", "limit": 10})
	var res struct {
		Items []struct{ ID string } `json:"items"`
	}
	if err := json.Unmarshal(hits.Body, &res); err != nil || hits.Status != 200 || len(res.Items) != 1 || res.Items[0].ID != mine {
		t.Errorf("search over both spaces: %d %s", hits.Status, hits.Body)
	}
	if r := call(user, "POST", search, map[string]any{"spaces": []string{mine}, "query": "quetzal"}); r.Status != 403 {
		t.Errorf("search with a user's token: %d", r.Status)
	}
	many := make([]string, 1001)
	for i := range many {
		many[i] = fmt.Sprintf("s%d", i)
	}
	for _, body := range []map[string]any{
		{"query": "quetzal"},
		{"spaces": many, "query": "quetzal"},
		{"spaces": []string{mine}, "query": strings.Repeat("q", 513)},
		{"spaces": []string{strings.Repeat("s", 65)}, "query": "quetzal"},
	} {
		if r := call(svc, "POST", search, body); r.Status != 400 {
			t.Errorf("search %.80v: %d, want 400", body, r.Status)
		}
	}

	admin.op("deleteSpaceById", "DELETE", "/v1/spaces/"+mine, nil)
	if r := call(svc, "GET", current, nil); r.Status != 409 {
		t.Errorf("deleted space: %d %s", r.Status, r.Body)
	}
}

// TestReadsRecordedInInsights: a published site's page views, markdown
// and llms requests reach the site's insights as events of the server's
// display context, without a token.
func TestReadsRecordedInInsights(t *testing.T) {
	web := &website{pages: map[string]string{}}
	srv := httptest.NewServer(web)
	defer srv.Close()
	web.set("/", "Home", `<p>Counted.</p><a href="/guide">Guide</a>`)
	web.set("/guide", "Guide", `<p>Also counted.</p>`)

	p := startPlatform(t)
	admin := client{t, p.URL, p.Credentials.DemoAdminToken}
	org := "/v1/orgs/" + p.Credentials.DemoOrgID
	space := newSpace(t, admin, p.Credentials.DemoOrgID, "Counted")
	crs := "/v1/spaces/" + space + "/change-requests"
	cr := crs + "/" + str(admin.op("createChangeRequest", "POST", crs, map[string]any{"subject": "Import"}).json(t), "id")
	admin.status(201, "POST", cr+"/content/import", map[string]any{"source": "website", "url": srv.URL + "/"})
	admin.op("mergeChangeRequest", "POST", cr+"/merge", nil)
	site := org + "/sites/" + str(admin.op("createSite", "POST", org+"/sites", map[string]any{"title": "Counted", "spaces": []string{space}}).json(t), "id")
	url := str(admin.schema("Site", 200, "POST", site+"/publish", nil).json(t), "urls", "published")

	rd := newReader(t)
	byType := map[string]float64{}
	eventually(t, "page views, markdown and llms requests in insights", func() bool {
		// insights learns of the site from sites.events; until then it refuses
		// its events (dropped and counted by sites): read again each time.
		rd.want(200, url)
		rd.want(200, url+"/guide.md")
		rd.want(200, url+"/llms-full.txt")
		got := aggregate(t, admin, site, map[string]any{"range": "last24Hours",
			"groupBy": []any{map[string]any{"column": "eventType"}, map[string]any{"column": "displayContext"}}})
		clear(byType)
		for i, typ := range got["eventType"] {
			if got["displayContext"][i] == "server" {
				byType[typ.(string)] += got["eventsCount"][i].(float64)
			}
		}
		return byType["page_view"] > 0 && byType["page_markdown_request"] > 0 && byType["llms_request"] > 0
	})
}
