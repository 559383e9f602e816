package local

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// mathRepo is a GitBook repository of one page: an inline formula, a
// block formula and a mermaid flowchart.
func mathRepo() map[string][]byte {
	return map[string][]byte{
		"SUMMARY.md": []byte("# Table of contents\n\n* [Formulas](README.md)\n"),
		"README.md": []byte("# Formulas\n\nEnergy is $$E = mc^2$$ at rest.\n\n" +
			"$$\n\\int_0^1 x^2\\,dx = \\frac{1}{3}\n$$\n\n" +
			"```mermaid\nflowchart LR\n  Write[Write a page] --> Publish[Publish the site]\n```\n"),
	}
}

// cspWatch records the page's Content-Security-Policy violations in
// window.cspViolations, from before its first script runs.
const cspWatch = `window.cspViolations = []; document.addEventListener("securitypolicyviolation",
	e => window.cspViolations.push(e.violatedDirective + " " + e.blockedURI));`

// TestMathAndDiagramInBrowser publishes a page of formulas and a mermaid
// diagram and opens it in headless Chromium: the formulas are typeset
// (KaTeX's MathML and HTML, its stylesheet applied and its fonts loaded
// from the site), the diagram is drawn (an svg in place of its source) by
// the vendored Mermaid, no Content-Security-Policy violation is reported;
// in dark mode the diagram is drawn in Mermaid's dark theme, and drawn
// again in the light one when the reader picks it.
func TestMathAndDiagramInBrowser(t *testing.T) {
	exe := chromium(t)
	p := startPlatform(t)
	admin := client{t, p.URL, p.Credentials.DemoAdminToken}
	space := importRepository(t, admin, p.Credentials.DemoOrgID, "Formulas", mathRepo())
	site := createSite(t, admin, p.Credentials.DemoOrgID, "Formula docs", space)
	url := str(admin.schema("Site", 200, "POST", site+"/publish", nil).json(t), "urls", "published")

	b := openBrowser(t, exe)
	eval := b.eval
	b.step("watch CSP violations", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: cspWatch})
		return err
	}))
	b.step("open the page and wait for the diagram", chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("article div.mermaid svg")))

	if got := eval(`["article math", "article .math-inline .katex", "article .math-display .katex-display", "article pre.mermaid"].map(s => document.querySelectorAll(s).length).join(" ")`); got != "2 1 1 0" {
		t.Errorf("math elements, inline and block formulas typeset, diagram sources left: %s, want 2 1 1 0", got)
	}
	if got := eval(`getComputedStyle(document.querySelector("article .katex")).fontFamily`); !strings.Contains(got, "KaTeX_Main") {
		t.Errorf("KaTeX's stylesheet is not applied: font-family %s", got)
	}
	fonts, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.fonts.ready.then(() =>
		[...document.fonts].filter(f => f.family.includes("KaTeX") && f.status === "loaded").length + " " +
		[...document.fonts].filter(f => f.status === "error").length)`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if loaded, failed, _ := strings.Cut(fonts, " "); loaded == "0" || failed != "0" {
		t.Errorf("KaTeX fonts loaded, failed: %s", fonts)
	}
	if got := eval(`document.querySelector("article div.mermaid svg").textContent`); !strings.Contains(got, "Write a page") || !strings.Contains(got, "Publish the site") {
		t.Errorf("the diagram's labels: %q", got)
	}
	if got := eval(`JSON.stringify(window.cspViolations.slice(0, 5))`); got != "[]" {
		t.Errorf("CSP violations: %s", got)
	}
	if got := eval(`window.mermaid.mermaidAPI.getConfig().theme + " " + window.mermaid.mermaidAPI.getConfig().securityLevel`); got != "default strict" {
		t.Errorf("mermaid's theme and security level: %s", got)
	}

	b.step("dark mode", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}})
		return err
	}), chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("article div.mermaid svg")))
	if got := eval(`window.mermaid.mermaidAPI.getConfig().theme + " " + JSON.stringify(window.cspViolations.slice(0, 5))`); got != "dark []" {
		t.Errorf("in dark mode, mermaid's theme and CSP violations: %s", got)
	}
	if n, _ := strconv.Atoi(eval(`String(document.querySelectorAll("article .katex").length)`)); n != 2 {
		t.Errorf("%d formulas typeset after the reload", n)
	}
	// The theme button picks light: the diagram is drawn again, light.
	eval(`(window.before = document.querySelector("article div.mermaid svg"), "")`)
	b.step("pick the light theme", chromedp.Click(chromedp.CSS("button.theme")))
	if _, err := chromedp.Run(b.ctx, chromedp.Poll[bool](`window.mermaid.mermaidAPI.getConfig().theme === "default" &&
		document.querySelector("article div.mermaid svg") !== window.before`, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Errorf("the diagram is not drawn again in the light theme: %v", err)
	}
	if got := eval(`document.documentElement.getAttribute("data-theme") + " " + document.querySelectorAll("article div.mermaid svg").length + " " + document.querySelectorAll("article pre.mermaid").length`); got != "light 1 0" {
		t.Errorf("after picking the light theme (theme, diagrams drawn, sources left): %s", got)
	}
}
