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

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
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

// browser is a headless Chromium of one test: a fresh profile, 1280×900,
// at most 90 s, closed with the test.
type browser struct {
	t   *testing.T
	ctx context.Context
}

// openBrowser starts exe (chromium's answer) for t.
func openBrowser(t *testing.T, exe string) *browser {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(filepath.Join(t.TempDir(), "profile")),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.WindowSize(1280, 900),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelBrowser(); cancelAlloc(); cancel() })
	return &browser{t: t, ctx: bctx}
}

// step runs actions, failing the test as what when one fails.
func (b *browser) step(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, actions...); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

// eval is the string js evaluates to in the page.
func (b *browser) eval(js string) string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](js))
	if err != nil {
		b.t.Fatalf("evaluate %s: %v", js, err)
	}
	return s
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
	b := openBrowser(t, exe)
	bctx := b.ctx

	step := b.step
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

// TestGitBookPageInBrowser opens the GitBook fixture's richest page in
// headless Chromium: its second tab shows when clicked (radio inputs, no
// script needed), a relative link leads to its page, the copy button of
// the page's one script is there, and screenshots in light and dark mode
// are saved (GITBOOK_SHOTS names a folder to keep them in).
func TestGitBookPageInBrowser(t *testing.T) {
	exe := chromium(t)
	p := startPlatform(t)
	url := gitbookSite(t, p)

	dir := t.TempDir()
	b := openBrowser(t, exe)
	bctx := b.ctx
	step := b.step
	eval := b.eval
	shots := os.Getenv("GITBOOK_SHOTS")
	if shots == "" {
		shots = dir
	}
	shoot := func(name string) {
		t.Helper()
		shot, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(shots, name)
		if err := os.WriteFile(path, shot, 0o644); err != nil {
			t.Fatal(err)
		}
		if len(shot) < 10000 {
			t.Errorf("screenshot %s of %d bytes", name, len(shot))
		}
		t.Logf("screenshot: %s (%d bytes)", path, len(shot))
	}
	panel := `(i) => getComputedStyle(document.querySelectorAll(".tabs")[0].querySelectorAll(".tab-panel")[i]).display`

	step("open the blocks page", chromedp.Navigate(url+"/getting-started/blocks"), chromedp.WaitVisible(chromedp.CSS(".tabs")))
	if got := eval("(" + panel + ")(0) + ' ' + (" + panel + ")(1)"); got != "block none" {
		t.Errorf("tab panels before the switch: %s", got)
	}
	if got := eval(`String(document.querySelectorAll("button.copy").length)`); got == "0" {
		t.Error("no copy button: the page's script did not run")
	}
	shoot("gitbook-light.png")
	step("switch to the second tab", chromedp.Click(chromedp.CSS(`label[for="tabs-1-1"]`)),
		chromedp.WaitVisible(chromedp.Search(`//div[@role="tabpanel"]//p[contains(., "Run the shell variant")]`)))
	if got := eval("(" + panel + ")(0) + ' ' + (" + panel + ")(1)"); got != "none block" {
		t.Errorf("tab panels after the switch: %s", got)
	}
	step("dark mode", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}})
		return err
	}))
	if bg := eval(`getComputedStyle(document.body).backgroundColor`); bg != "rgb(16, 18, 22)" {
		t.Errorf("dark background %s", bg)
	}
	shoot("gitbook-dark.png")
	step("follow a relative link", chromedp.Click(chromedp.Search(`//article//a[normalize-space()="git sync folder"]`)),
		chromedp.WaitVisible(chromedp.Search(`//h1[normalize-space()="Git sync"]`)))
	if got := eval(`document.querySelector("article").innerText`); !strings.Contains(got, "Git sync keeps the zebra herd") {
		t.Errorf("after the link: %q", got)
	}
	shoot("gitbook-dark-linked.png")

	// A narrow screen: the navigation folds behind a button that needs no script.
	toc := `getComputedStyle(document.querySelector("nav.toc")).display`
	step("narrow screen", chromedp.EmulateViewport(390, 844), chromedp.WaitVisible(chromedp.CSS(".nav-label")))
	if got := eval(toc); got != "none" {
		t.Errorf("navigation on a narrow screen: display %s", got)
	}
	step("open the navigation", chromedp.Click(chromedp.CSS(".nav-label")), chromedp.WaitVisible(chromedp.CSS("nav.toc")))
	if got := eval(toc); got != "block" {
		t.Errorf("navigation opened: display %s", got)
	}
	shoot("gitbook-narrow.png")

	// A click anywhere on a card opens its target (a stretched link).
	step("the blocks page, wide", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(url+"/getting-started/blocks"),
		chromedp.WaitVisible(chromedp.CSS(`table[data-view="cards"]`)))
	step("click a card's title", chromedp.Click(chromedp.CSS(`table[data-view="cards"] tbody tr:first-child td:first-child`)),
		chromedp.WaitVisible(chromedp.Search(`//h1[normalize-space()="Concepts"]`)))
	if got := eval(`location.pathname`); !strings.HasSuffix(got, "/reference/concepts") {
		t.Errorf("the card led to %s", got)
	}
	// Getting started's front matter hides its title and shows a cover.
	step("open a page with a cover", chromedp.Navigate(url+"/getting-started"),
		chromedp.Poll[chromedp.Void](`(() => { const i = document.querySelector(".page-cover img"); return i && i.complete && i.naturalWidth > 0 })()`,
			chromedp.WithPollingTimeout(20*time.Second)))
	if got := eval(`String(document.querySelectorAll("article h1").length)`); got != "0" {
		t.Errorf("a page whose title is hidden shows %s h1", got)
	}
	if got := eval(`String(Math.round(document.querySelector(".page-cover").getBoundingClientRect().height))`); got == "0" {
		t.Error("the cover has no height")
	}
	shoot("gitbook-cover.png")
	// A SUMMARY entry linking to a page's anchor is a link of the sidebar
	// (listed under Getting started, unfolded there).
	step("click the sidebar's link entry", chromedp.Click(chromedp.Search(`//nav[@class="toc"]//li[@class="link"]/a[normalize-space()="Install step"]`)),
		chromedp.WaitVisible(chromedp.Search(`//h1[normalize-space()="Quickstart"]`)))
	if got := eval(`location.pathname + location.hash`); !strings.HasSuffix(got, "/getting-started/quickstart#install") {
		t.Errorf("the sidebar's link entry led to %s", got)
	}
}
