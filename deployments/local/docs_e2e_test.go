package local

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/config"
	"github.com/docspub/platform/libs/logx"
)

// startAsMakeRun starts the platform as `make run` does: its configuration
// from the defaults (none of the tests' adjustments: outbound private
// addresses refused), from the repository's top so that DOCS_REPO finds
// .gitbook.yaml, on dataDir.
func startAsMakeRun(t *testing.T, dataDir string) *Platform {
	t.Helper()
	inProcessOnly(t) // make run's own start: its docs, its data directory
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var cfg Config
	if err := config.LoadMap(ctx, &cfg, map[string]string{"ADDR": "127.0.0.1:0", "DATA_DIR": dataDir, "LOG_LEVEL": "warn"}); err != nil {
		t.Fatal(err)
	}
	cfg.DocsRepo = "../.." // make run starts at the repository's top; the tests in this package
	log := logx.Discard()
	if os.Getenv("E2E_LOG") != "" {
		log = logx.New("e2e", "debug")
	}
	begin := time.Now()
	p, err := Start(ctx, cfg, log)
	if err != nil {
		t.Fatalf("start platform: %v", err)
	}
	t.Logf("started in %v", time.Since(begin).Round(time.Millisecond))
	return p
}

var (
	h1Re = regexp.MustCompile(`<h1[^>]*>([^<]+)</h1>`)
	h2Re = regexp.MustCompile(`<h2 id="([^"]+)"[^>]*>([^<]+)`)
)

// TestDocsSitePublishedOnStart: the platform started as `make run` does
// imports its own docs (the repository's .gitbook.yaml → deployments/docs)
// through Git sync and publishes them; the configuration reference reads
// through the gateway without a token, with its headings and a link that
// resolves to another page, and the architecture image is served. Integrations
// refuses loopback remotes again afterwards, the docs' Git server's address
// too once that server closed, and a restart with unchanged
// docs imports nothing and serves the same site.
func TestDocsSitePublishedOnStart(t *testing.T) {
	dataDir := t.TempDir()
	p := startAsMakeRun(t, dataDir)
	c := p.Credentials
	if c.DocsURL == "" || c.DocsSpaceID == "" {
		t.Fatalf("no docs site: %+v", c)
	}
	creds, err := os.ReadFile(filepath.Join(dataDir, "credentials.env"))
	if err != nil || !strings.Contains(string(creds), "DOCS_URL="+c.DocsURL+"\n") {
		t.Errorf("credentials.env lacks the docs URL: %s", creds)
	}
	rd := newReader(t)
	page := rd.want(200, c.DocsURL+"/operations/configuration")
	if m := h1Re.FindStringSubmatch(page); m == nil || m[1] != "Configuration reference" {
		t.Errorf("the configuration page's title is %q", m)
	}
	headings := map[string]bool{}
	for _, m := range h2Re.FindAllStringSubmatch(page, -1) {
		headings[strings.TrimSpace(m[2])] = true
	}
	for _, want := range []string{"Embedded defaults", "gateway", "integrations"} {
		found := false
		for h := range headings {
			found = found || strings.HasPrefix(h, want)
		}
		if !found {
			t.Errorf("the configuration page has no %q heading (%v)", want, headings)
		}
	}
	for _, want := range []string{"<code>DOCS_REPO</code>", "<code>GIT_MAX_OBJECTS</code>", "<table>"} {
		if !strings.Contains(page, want) {
			t.Errorf("the configuration page lacks %s", want)
		}
	}
	var limits string
	for _, m := range hrefRe.FindAllStringSubmatch(articleRe.FindString(page), -1) {
		if strings.HasSuffix(m[1], "/limits") && strings.HasPrefix(m[1], strings.TrimPrefix(c.DocsURL, p.URL)) {
			limits = m[1]
		}
	}
	if limits == "" {
		t.Fatalf("the configuration page has no link to Limits: %v", hrefRe.FindAllString(articleRe.FindString(page), 20))
	}
	if m := h1Re.FindStringSubmatch(rd.want(200, p.URL+limits)); m == nil || m[1] != "Limits" {
		t.Errorf("the linked Limits page (%s) has the title %q", limits, m)
	}
	var services string
	for _, l := range tocLinks(page) {
		if strings.HasSuffix(l, "/architecture/services") {
			services = l
		}
	}
	img := imgSrcRe.FindStringSubmatch(articleRe.FindString(rd.want(200, p.URL+services)))
	if img == nil {
		t.Fatalf("the services page %q shows no image (navigation %v)", services, tocLinks(page))
	}
	if r := rd.get(p.URL+img[1], ""); r.Status != 200 || r.Header.Get("Content-Type") != "image/svg+xml" {
		t.Errorf("GET %s = %d %s", img[1], r.Status, r.Header.Get("Content-Type"))
	}

	// the Git remotes of users may not reach loopback again, nor the docs'
	// Git server's address once that server closed (another may listen there)
	admin := client{t, p.URL, c.DemoAdminToken}
	space := newSpace(t, admin, c.DemoOrgID, "Loopback")
	for _, remote := range []string{"http://127.0.0.1:1/x.git", "http://" + p.docsLn.Addr().String() + "/docs.git"} {
		if r := admin.do("POST", "/v1/spaces/"+space+"/git/import", map[string]any{"url": remote, "ref": "refs/heads/main"}); r.Status != 400 {
			t.Errorf("the Git remote %s after start = %d %s", remote, r.Status, r.Body)
		}
	}

	gateway := p.URL
	info := admin.status(200, "GET", "/v1/spaces/"+c.DocsSpaceID+"/git/info", nil).json(t)
	p.Close()
	p = startAsMakeRun(t, dataDir)
	defer p.Close()
	if path := strings.TrimPrefix(c.DocsURL, gateway); p.Credentials.DocsURL != p.URL+path {
		t.Errorf("after a restart the docs are at %s, were at %s", p.Credentials.DocsURL, c.DocsURL)
	}
	again := client{t, p.URL, c.DemoAdminToken}.status(200, "GET", "/v1/spaces/"+c.DocsSpaceID+"/git/info", nil).json(t)
	if str(again, "operation", "startedAt") != str(info, "operation", "startedAt") {
		t.Errorf("unchanged docs were imported again: %v, then %v", info["operation"], again["operation"])
	}
	if m := h1Re.FindStringSubmatch(newReader(t).want(200, p.Credentials.DocsURL+"/operations/configuration")); m == nil || m[1] != "Configuration reference" {
		t.Errorf("after a restart the configuration page's title is %q", m)
	}
}
