package local

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestAPIBlockInBrowser: an {% openapi %} block whose spec is a file of
// the repository, synced through Git and published, shows in Chromium
// as an operation: its method and path, its parameters, its responses'
// statuses and a curl example the page's copy button copies; no block
// source is shown as text.
func TestAPIBlockInBrowser(t *testing.T) {
	exe := chromium(t)
	p := startPlatform(t)
	url := gitbookSite(t, p)
	b := openBrowser(t, exe)

	b.step("open the blocks page", chromedp.Navigate(url+"/getting-started/blocks"),
		chromedp.WaitVisible(chromedp.CSS(".api-operation")))
	op := b.eval(`document.querySelector(".api-operation").innerText`)
	for _, want := range []string{"GET", "/zebras/{zebraId}", "Find a zebra", "zebraId", "stripes", "The zebra's id.",
		"200", "The zebra.", "404", "No such zebra.", "bearer", "curl -X GET 'https://api.zebra.example/zebras/{zebraId}'"} {
		if !strings.Contains(op, want) {
			t.Errorf("the API block lacks %q: %q", want, op)
		}
	}
	if got := b.eval(`String(document.querySelectorAll(".api-params tbody tr").length)`); got != "2" {
		t.Errorf("%s parameter rows, want 2", got)
	}
	if got := b.eval(`Array.from(document.querySelectorAll(".api-status")).map(e => e.textContent).join(",")`); got != "200,404" {
		t.Errorf("response statuses %q", got)
	}
	if got := b.eval(`String(document.querySelectorAll("pre.api-curl button.copy").length)`); got != "1" {
		t.Errorf("%s copy buttons on the curl example", got)
	}
	if got := b.eval(`getComputedStyle(document.querySelector(".api-method")).color`); got != "rgb(255, 255, 255)" {
		t.Errorf("the method badge is unstyled: color %s", got)
	}
	text := b.eval(`(() => { const a = document.querySelector("article").cloneNode(true);` +
		` a.querySelectorAll("pre, code").forEach(e => e.remove()); return a.innerText })()`)
	for _, bad := range []string{"{%", "%}", "openapi src="} {
		if strings.Contains(text, bad) {
			t.Errorf("the page shows %q as text outside code", bad)
		}
	}
}
