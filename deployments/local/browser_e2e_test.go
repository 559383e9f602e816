package local

import (
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromium finds Debian's Chromium (CHROMIUM names another binary); the
// test is skipped without one (.ci/run installs it).
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium on PATH (apt-get install chromium, or set CHROMIUM)")
	return ""
}

// TestPublishedSiteInBrowser opens a published site in headless Chromium,
// reads its home page, clicks through its navigation and its next link,
// and saves a screenshot under the test's temporary directory.
func TestPublishedSiteInBrowser(t *testing.T) {
	exe := chromium(t)
	web := &website{pages: map[string]string{}}
	srv := httptest.NewServer(web)
	defer srv.Close()
	web.set("/", "Home", `<p>Welcome to the browser test.</p><img src="/logo.png" alt="logo"><a href="/guide">Guide</a> <a href="/api">API</a>`)
	web.set("/guide", "Guide", `<p>The guide, read in a browser.</p><pre><code>make run</code></pre>`)
	web.set("/api", "API", `<p>The API page.</p>`)

	p := startPlatform(t)
	admin := client{t, p.URL, p.Credentials.DemoAdminToken}
	org := "/v1/orgs/" + p.Credentials.DemoOrgID
	space := str(admin.schema("Space", 201, "POST", org+"/spaces", map[string]any{"title": "Browser"}).json(t), "id")
	crs := "/v1/spaces/" + space + "/change-requests"
	cr := crs + "/" + str(admin.op("createChangeRequest", "POST", crs, map[string]any{"subject": "Import"}).json(t), "id")
	admin.status(201, "POST", cr+"/content/import", map[string]any{"source": "website", "url": srv.URL + "/"})
	admin.op("mergeChangeRequest", "POST", cr+"/merge", nil)
	site := org + "/sites/" + str(admin.op("createSite", "POST", org+"/sites", map[string]any{"title": "Browser docs", "spaces": []string{space}}).json(t), "id")
	url := str(admin.schema("Site", 200, "POST", site+"/publish", nil).json(t), "urls", "published")

	dir := t.TempDir()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(filepath.Join(dir, "profile")),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.WindowSize(1280, 900),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()

	step := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(bctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	text := func(sel chromedp.CSS) string {
		t.Helper()
		s, err := chromedp.Run(bctx, chromedp.Text(sel))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return s
	}
	step("open "+url, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("nav.toc")))
	home := text("article")
	step("click Guide", chromedp.Click(chromedp.Search(`//nav[@class="toc"]//a[normalize-space()="Guide"]`)),
		chromedp.WaitVisible(chromedp.Search(`//h1[normalize-space()="Guide"]`)))
	guide := text("article")
	step("click next", chromedp.Click(chromedp.CSS(`a[rel="next"]`)),
		chromedp.WaitVisible(chromedp.Search(`//h1[normalize-space()="API"]`)))
	next := text("article")
	title, err := chromedp.Run(bctx, chromedp.Title())
	if err != nil {
		t.Fatal(err)
	}
	shot, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(home, "Welcome to the browser test.") {
		t.Errorf("home page text: %q", home)
	}
	if !strings.Contains(guide, "The guide, read in a browser.") || !strings.Contains(guide, "make run") {
		t.Errorf("guide text: %q", guide)
	}
	if !strings.Contains(next, "The API page.") || title != "API | Browser docs" {
		t.Errorf("after next: %q, title %q", next, title)
	}
	path := filepath.Join(dir, "published-site.png")
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	if len(shot) < 1000 {
		t.Errorf("screenshot of %d bytes", len(shot))
	}
	t.Logf("screenshot: %s (%d bytes)", path, len(shot))
}
