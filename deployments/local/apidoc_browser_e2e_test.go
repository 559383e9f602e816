package local

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestAPIReferenceInBrowser opens the gateway's API reference page in
// Chromium: under its Content-Security-Policy (scripts by nonce, the rest
// 'self' only) the vendored Swagger UI loads, fetches /v1/openapi.json and
// draws the operations.
func TestAPIReferenceInBrowser(t *testing.T) {
	exe := chromium(t)
	p := startPlatform(t)
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

	if err := chromedp.Do(bctx, chromedp.Navigate(p.URL+"/v1/docs"),
		chromedp.WaitVisible(chromedp.CSS(`.opblock-summary-path[data-path="/v1/collections/{collectionId}"]`))); err != nil {
		t.Fatalf("the reference page did not draw GET /v1/collections/{collectionId}: %v", err)
	}
	title, err := chromedp.Run(bctx, chromedp.Text(chromedp.CSS("h1.title")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(title, "Docs publishing platform API") {
		t.Errorf("title %q", title)
	}
	shot, err := chromedp.Run(bctx, chromedp.FullScreenshot(80))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "api-reference.png")
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}
