package local

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/waittest"
	"github.com/docspub/platform/services/sites"
	"github.com/docspub/platform/services/sites/dnstest"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// issue19Condition is issue 19's reproduction: accepted before, one page
// view then burnt 17 s of two cores.
const issue19Condition = `let r = 1..1000; visitor.claims.unsigned.beta == true && all(r, {all(r, {all(r, {true})})})`

// startPlatformSites starts the platform logging at warn into a buffer,
// with the sites service's configuration adjusted.
func startPlatformSites(t *testing.T, adjust func(*sites.Config)) (*Platform, *logBuffer) {
	t.Helper()
	if clusterMode() {
		if adjust != nil {
			inProcessOnly(t) // a configuration of its own
		}
		p := platformOnCluster(t)
		return p, &logBuffer{dir: filepath.Join(filepath.Dir(p.CredsPath), "logs")}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	logs := &logBuffer{}
	p, err := Start(ctx, Config{Addr: "127.0.0.1:0", DataDir: t.TempDir(), LogLevel: "warn", OutboundAllowPrivate: true,
		Sites: adjust}, logx.NewTo(logs, "e2e", "warn"))
	if err != nil {
		t.Fatalf("start platform: %v", err)
	}
	t.Cleanup(p.Close)
	return p, logs
}

// publishedSite imports the website into a new space of org through a
// change request, and creates and publishes a public site of it: the
// site's API path and its published URL.
func publishedSite(t *testing.T, c client, org, title, websiteURL string) (path, url, space string) {
	t.Helper()
	space = str(c.schema("Space", 201, "POST", org+"/spaces", map[string]any{"title": title}).json(t), "id")
	crs := "/v1/spaces/" + space + "/change-requests"
	cr := crs + "/" + str(c.op("createChangeRequest", "POST", crs, map[string]any{"subject": "Import"}).json(t), "id")
	c.status(201, "POST", cr+"/content/import", map[string]any{"source": "website", "url": websiteURL + "/"})
	if r := c.op("mergeChangeRequest", "POST", cr+"/merge", nil).json(t); str(r, "result") != "merge" {
		t.Fatalf("merge: %v", r)
	}
	path = org + "/sites/" + str(c.op("createSite", "POST", org+"/sites", map[string]any{"title": title, "spaces": []string{space}}).json(t), "id")
	url = str(c.schema("Site", 200, "POST", path+"/publish", nil).json(t), "urls", "published")
	return path, url, space
}

// TestConditionAbuseIsRefused: issue 19's condition is refused when
// written, for sections and site spaces (400 naming condition); stored
// earlier, straight into the database, it is refused when the reader
// compiles it (logged, never run): the attacker's page views stay cheap,
// and another organization's page p50 during the attempt stays within 2×
// its quiet value.
func TestConditionAbuseIsRefused(t *testing.T) {
	web := &website{pages: map[string]string{}}
	web.set("/", "Home", `<p>Welcome to the docs.</p><a href="/guide">Guide</a>`)
	web.set("/guide", "Guide", `<p>The guide.</p>`)
	srv := httptest.NewServer(web)
	defer srv.Close()
	p, logs := startPlatformSites(t, nil)
	admin := client{t, p.URL, p.Credentials.DemoAdminToken}
	other := client{t, p.URL, p.Credentials.OtherOrgToken}
	org := "/v1/orgs/" + p.Credentials.DemoOrgID
	otherOrg := "/v1/orgs/" + str(items(t, other.op("listOrganizationsForAuthenticatedUser", "GET", "/v1/orgs", nil))[0], "id")

	// The other organization's page, read by anonymous readers.
	_, theirURL, _ := publishedSite(t, other, otherOrg, "Their docs", srv.URL)
	victim := newReader(t)
	read := func() time.Duration {
		start := time.Now()
		if r := victim.get(theirURL, ""); r.Status != 200 {
			t.Errorf("their page: %d", r.Status)
		}
		return time.Since(start)
	}
	for range 5 {
		read() // warm up
	}
	quiet := make([]time.Duration, 40)
	for i := range quiet {
		quiet[i] = read()
	}

	// The attacker's site: a section and a site space with conditions.
	site, url, sp := publishedSite(t, admin, org, "Ours", srv.URL)
	admin.op("addSectionToSite", "POST", site+"/sections", map[string]any{"spaceId": sp, "title": "Guides"})
	sec := str(admin.op("addSectionToSite", "POST", site+"/sections", map[string]any{"spaceId": sp, "title": "Beta"}).json(t), "id")
	ss := str(items(t, admin.status(200, "GET", site+"/site-spaces", nil))[0], "id")
	admin.op("updateSiteAdaptiveSchema", "PUT", site+"/adaptive-schema", map[string]any{"jsonSchema": map[string]any{
		"type": "object", "additionalProperties": false, "properties": map[string]any{"unsigned": map[string]any{
			"type": "object", "additionalProperties": false, "properties": map[string]any{"beta": map[string]any{"type": "boolean"}}}}}})
	admin.op("updateSiteById", "PATCH", site, map[string]any{"adaptiveContent": map[string]any{"enabled": true}})
	for _, path := range []string{site + "/sections/" + sec, site + "/site-spaces/" + ss} {
		start := time.Now()
		r := admin.do("PATCH", path, map[string]any{"condition": issue19Condition})
		if r.Status != 400 || !strings.Contains(string(r.Body), "condition:") || !strings.Contains(string(r.Body), "conditions allow") {
			t.Errorf("PATCH %s condition: %d %s, want a 400 naming condition", path, r.Status, r.Body)
		}
		checkErrorBody(t, r)
		t.Logf("write refused in %s", time.Since(start).Round(time.Millisecond))
	}

	// Stored earlier (before conditions were checked): straight into the database.
	ctx := context.Background()
	mc, err := mongo.Connect(options.Client().ApplyURI(p.MongoURI))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = mc.Disconnect(ctx) }()
	if res, err := mc.Database("sites").Collection("site_sections").UpdateOne(ctx, bson.M{"_id": sec},
		bson.M{"$set": bson.M{"condition": issue19Condition}}); err != nil || res.MatchedCount != 1 {
		t.Fatalf("store the condition: %v %+v", err, res)
	}
	admin.op("updateSiteById", "PATCH", site, map[string]any{"title": "Ours again"}) // the reader reads the site again

	// The attack: four anonymous readers with the claim view the site at
	// once (the issue's four concurrent views), then one goes on viewing
	// it, while the other organization's page is read.
	var mu sync.Mutex
	var theirs, ours []time.Duration
	done := make(chan struct{})
	go func() {
		defer close(done)
		var wg sync.WaitGroup
		for i := range 4 {
			wg.Go(func() {
				rd := newReader(t)
				n := 1
				if i == 0 {
					n = 100
				}
				for range n {
					start := time.Now()
					r := rd.get(url+"?visitor.beta=true", "")
					took := time.Since(start)
					mu.Lock()
					ours = append(ours, took)
					mu.Unlock()
					if r.Status != 200 || strings.Contains(string(r.Body), ">Beta</a>") {
						t.Errorf("attacker's view: %d, Beta shown: %v", r.Status, strings.Contains(string(r.Body), ">Beta</a>"))
						return
					}
				}
			})
		}
		wg.Wait()
	}()
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
			theirs = append(theirs, read())
		}
	}
	before, during := median(quiet), median(theirs)
	t.Logf("attacker's views: %d, median %s, slowest %s", len(ours), median(ours).Round(time.Microsecond), slices.Max(ours).Round(time.Microsecond))
	t.Logf("other organization's page p50: %s quiet, %s during the attempt (%d reads), ratio %.2f (shared 2-core machine: noisy)",
		before.Round(time.Microsecond), during.Round(time.Microsecond), len(theirs), float64(during)/float64(before))
	if slices.Max(ours) > 2*time.Second {
		t.Errorf("an attacker's view took %s", slices.Max(ours))
	}
	// 2× the quiet p50, with 2 ms of slack: the quiet p50 is about a
	// millisecond (a cached page), and on a 2-core machine shared with
	// other test runs any concurrent request shifts it by about that much
	// (before the allow-list the same attempt took it to seconds).
	if during > 2*before+2*time.Millisecond {
		t.Errorf("the other organization's page p50 went from %s to %s", before, during)
	}
	if !strings.Contains(logs.String(), "condition refused") {
		t.Errorf("the refused stored condition was not logged")
	}
}

// TestHostnameAbuseIsRefused: a hostname claimed first by another
// organization is not served (unverified) and blocks nobody; the owner,
// with its TXT record in DNS (a real DNS server on loopback), verifies it
// and the reader serves the owner's site there; a takeover of the verified
// hostname is a 409; the platform's own hosts and their subdomains are a 400.
func TestHostnameAbuseIsRefused(t *testing.T) {
	web := &website{pages: map[string]string{}}
	web.set("/", "Home", `<p>The real docs of the victim.</p>`)
	srv := httptest.NewServer(web)
	defer srv.Close()
	phish := &website{pages: map[string]string{}}
	phish.set("/", "Home", `<p>Please log in here.</p>`)
	phishSrv := httptest.NewServer(phish)
	defer phishSrv.Close()
	dns := dnstest.Start(t)
	p, _ := startPlatformSites(t, func(c *sites.Config) {
		c.HostnameDNSServer = dns.Addr
		c.HostnameCheckInterval = 100 * time.Millisecond
		c.ReservedHostnames = []string{"docspub.test"}
	})
	owner := client{t, p.URL, p.Credentials.DemoAdminToken}
	attacker := client{t, p.URL, p.Credentials.OtherOrgToken}
	org := "/v1/orgs/" + p.Credentials.DemoOrgID
	otherOrg := "/v1/orgs/" + str(items(t, attacker.op("listOrganizationsForAuthenticatedUser", "GET", "/v1/orgs", nil))[0], "id")
	ours, _, _ := publishedSite(t, owner, org, "Victim docs", srv.URL)
	theirs, _, _ := publishedSite(t, attacker, otherOrg, "Phish", phishSrv.URL)
	const host = "docs.acme-victim.test"
	rd := newReader(t)
	claim := func(c client, site, hostname string, want int) map[string]any {
		t.Helper()
		r := c.do("PATCH", site, map[string]any{"hostname": hostname})
		if r.Status != want {
			t.Fatalf("PATCH hostname %s: %d %s, want %d", hostname, r.Status, r.Body, want)
		}
		if want != 200 {
			checkErrorBody(t, r)
			if !strings.Contains(string(r.Body), "hostname") {
				t.Errorf("%s does not name hostname", r.Body)
			}
			return nil
		}
		m, _ := r.json(t)["customHostname"].(map[string]any)
		return m
	}

	// The attacker claims the victim's hostname first: pending, not served.
	ac := claim(attacker, theirs, host, 200)
	if str(ac, "state") != "pending" || ac["isActive"] != false {
		t.Errorf("the attacker's claim: %v", ac)
	}
	if r := rd.get(p.URL+"/", host); r.Status != 404 || strings.Contains(string(r.Body), "log in") {
		t.Errorf("an unverified hostname is served: %d %.200s", r.Status, r.Body)
	}

	// The owner claims it too (the pending claim blocks nobody), publishes the record.
	oc := claim(owner, ours, host, 200)
	if str(oc, "verification", "name") != "_docspub-challenge."+host || str(oc, "verification", "type") != "TXT" {
		t.Fatalf("the owner's verification: %v", oc)
	}
	dns.SetTXT(str(oc, "verification", "name"), str(oc, "verification", "value"))
	waittest.Until(t, "the checker verifies the owner's hostname", 20*time.Second, func() bool {
		c, _ := owner.op("getSiteById", "GET", ours, nil).json(t)["customHostname"].(map[string]any)
		return str(c, "state") == "verified"
	})
	waittest.Until(t, "the reader serves the owner's site there", 10*time.Second, func() bool {
		r := rd.get(p.URL+"/", host)
		return r.Status == 200 && strings.Contains(string(r.Body), "real docs of the victim")
	})
	if s := owner.op("getSiteById", "GET", ours, nil).json(t); str(s, "urls", "published") != "http://"+host {
		t.Errorf("urls.published %q", str(s, "urls", "published"))
	}

	// The takeover: refused; the attacker's claim failed.
	claim(attacker, theirs, host, 409)
	c, _ := attacker.op("getSiteById", "GET", theirs, nil).json(t)["customHostname"].(map[string]any)
	if str(c, "state") != "failed" {
		t.Errorf("the attacker's claim after the owner verified: %v", c)
	}
	if r := rd.get(p.URL+"/", host); !strings.Contains(string(r.Body), "real docs of the victim") {
		t.Errorf("after the takeover attempt: %d %.200s", r.Status, r.Body)
	}

	// The platform's own hosts (PUBLIC_URL, APP_URL, PUBLISHED_URL, RESERVED_HOSTNAMES) and under them.
	for _, h := range []string{"127.0.0.1", "evil.127.0.0.1", "docspub.test", "api.docspub.test", "x.y.docspub.test"} {
		claim(attacker, theirs, h, 400)
	}
}
