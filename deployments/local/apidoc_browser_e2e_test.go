package local

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	b := openBrowser(t, exe)
	bctx := b.ctx

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
