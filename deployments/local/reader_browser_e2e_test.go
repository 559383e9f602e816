package local

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// navRepo is a GitBook repository of many pages, in groups, one folded
// page (first/page-1 with a page under it) and a page three levels down
// (deep/level2/target.md) with code in several languages and text long
// enough to scroll.
func navRepo() map[string][]byte {
	files := map[string][]byte{"README.md": []byte("# Welcome\n\nThe navigation test.\n")}
	var summary strings.Builder
	summary.WriteString("# Table of contents\n\n* [Welcome](README.md)\n")
	for _, g := range []string{"first", "second", "third", "fourth"} {
		fmt.Fprintf(&summary, "\n## %s group\n\n", g)
		for i := 1; i <= 14; i++ {
			p := fmt.Sprintf("%s/page-%d.md", g, i)
			fmt.Fprintf(&summary, "* [%s page %d](%s)\n", g, i, p)
			files[p] = []byte(fmt.Sprintf("# %s page %d\n\nWords of %s.\n", g, i, p))
			if g == "first" && i == 1 {
				summary.WriteString("  * [Under page 1](first/under.md)\n")
				files["first/under.md"] = []byte("# Under page 1\n\nBelow.\n")
			}
		}
	}
	summary.WriteString("\n## Deep group\n\n* [Deep](deep/README.md)\n  * [Level two](deep/level2/README.md)\n    * [Target](deep/level2/target.md)\n")
	files["deep/README.md"] = []byte("# Deep\n\nOne down.\n")
	files["deep/level2/README.md"] = []byte("# Level two\n\nTwo down.\n")
	var target strings.Builder
	target.WriteString("# Target\n\nThe deepest page.\n\n")
	for _, code := range []string{
		"```go\npackage main\n\nimport \"fmt\"\n\n// main says hello.\nfunc main() {\n\tx := map[string]int{\"a\": 1}\n\tfmt.Println(x, len(x), true, nil)\n}\n```\n",
		"```python\n@decorator\ndef f(self, x=1.5):\n    \"\"\"Doc.\"\"\"\n    return [i for i in range(x) if i is not None]  # comment\n```\n",
		"```javascript\nconst app = require('express')();\napp.get('/', (req, res) => res.send({ ok: true, n: 42 }));\n```\n",
		"```yaml\nsite:\n  title: Docs # comment\n  spaces: [a, b]\n  enabled: true\n```\n",
		"```json\n{\"name\": \"docs\", \"version\": 2, \"tags\": [\"a\", null]}\n```\n",
		"```bash\nexport PATH=\"$HOME/bin:$PATH\"\nfor f in *.md; do echo \"$f\" | wc -l; done\n```\n",
		"```html\n<div class=\"card\" data-x='1'><a href=\"/x\">&amp; link</a><!-- note --></div>\n```\n",
	} {
		target.WriteString(code + "\n")
	}
	for i := 0; i < 120; i++ {
		fmt.Fprintf(&target, "Paragraph %d of the deepest page, long enough to scroll the window far down.\n\n", i)
	}
	files["deep/level2/target.md"] = []byte(target.String())
	files["SUMMARY.md"] = []byte(summary.String())
	return files
}

// TestReaderNavigationAndThemeInBrowser opens a page three levels deep of
// a published GitBook repository in headless Chromium: its entry in the
// sidebar is within the sidebar's visible rect after load (the sidebar
// scrolled to it), the pages above it are unfolded and other folded
// pages are not, and after the window scrolls far down the sidebar is
// still in view (stuck at the top) with the entry in it. The theme button
// switches to light then dark, the choice outlives a reload, and in each
// picked theme every token of highlighted code has a contrast of at
// least 4.5:1 on its background as Chromium computes the styles.
func TestReaderNavigationAndThemeInBrowser(t *testing.T) {
	exe := chromium(t)
	p := startPlatform(t)
	admin := client{t, p.URL, p.Credentials.DemoAdminToken}
	space := importRepository(t, admin, p.Credentials.DemoOrgID, "Navigation", navRepo())
	site := createSite(t, admin, p.Credentials.DemoOrgID, "Navigation docs", space)
	url := str(admin.schema("Site", 200, "POST", site+"/publish", nil).json(t), "urls", "published")

	b := openBrowser(t, exe)
	step := b.step
	eval := b.eval

	step("open the deep page", chromedp.Navigate(url+"/deep-group/deep/level2/target"), chromedp.WaitVisible(chromedp.CSS("h1")))
	if got := eval(`document.title + " " + String(document.querySelectorAll('nav.toc a[aria-current="page"]').length)`); got != "Target | Navigation docs 1" {
		t.Fatalf("the deep page: %s", got)
	}
	if got := eval(entryInView); !strings.HasPrefix(got, "in view") || strings.HasSuffix(got, "scrollTop 0") {
		t.Errorf("after load, the current page's entry: %s", got)
	}
	if got := eval(folds); got != "open open closed" {
		t.Errorf("folds (deep, level two, first page 1): %s, want open open closed", got)
	}
	before := eval(`String(document.querySelector(".sidebar").scrollTop)`)
	if got := eval(`window.scrollTo(0, 4000); String(window.scrollY)`); got == "0" {
		t.Fatal("the window did not scroll: the page is too short for the test")
	}
	if got := eval(entryInView); !strings.HasPrefix(got, "in view") {
		t.Errorf("after scrolling the window, the current page's entry: %s", got)
	}
	if got := eval(`String(document.querySelector(".sidebar").getBoundingClientRect().top)`); got != "0" {
		t.Errorf("after scrolling the window, the sidebar's top is at %s px, want 0 (stuck)", got)
	}
	if after := eval(`String(document.querySelector(".sidebar").scrollTop)`); after != before {
		t.Errorf("the sidebar's own scroll moved with the window: %s, then %s", before, after)
	}

	for _, want := range []string{"light", "dark"} {
		step("switch the theme", chromedp.Click(chromedp.CSS("button.theme")))
		if got := eval(`document.documentElement.getAttribute("data-theme") || "system"`); got != want {
			t.Fatalf("theme after a click: %s, want %s", got, want)
		}
		got := eval(codeContrast)
		if !strings.HasPrefix(got, "ok") {
			t.Errorf("%s theme: %s", want, got)
		}
		t.Logf("%s theme: %s", want, got)
	}
	step("reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("button.theme")))
	if got := eval(`document.documentElement.getAttribute("data-theme") + " " + getComputedStyle(document.body).backgroundColor`); got != "dark rgb(16, 18, 22)" {
		t.Errorf("after a reload: %s, want the dark theme kept", got)
	}
}

// entryInView says whether the current page's link is within the
// sidebar's visible rect (the sidebar's rect within the window).
const entryInView = `(() => {
	const s = document.querySelector(".sidebar"), a = s.querySelector('a[aria-current="page"]');
	const q = s.getBoundingClientRect(), r = a.getBoundingClientRect();
	const top = Math.max(q.top, 0), bottom = Math.min(q.bottom, window.innerHeight);
	const ok = r.height > 0 && r.top >= top && r.bottom <= bottom;
	return (ok ? "in view" : "out of view") + ": link " + r.top + "-" + r.bottom + ", sidebar visible " + top + "-" + bottom + ", scrollTop " + s.scrollTop;
})()`

// folds are whether the <details> of Deep, Level two and first page 1 are
// open.
const folds = `(() => ["Deep", "Level two", "first page 1"].map(title => {
	const a = [...document.querySelectorAll("nav.toc summary > a")].find(a => a.textContent === title);
	return a ? (a.closest("details").open ? "open" : "closed") : "missing";
}).join(" "))()`

// codeContrast is the lowest WCAG contrast of a code token's colour on
// its background (the nearest one not transparent), as computed.
const codeContrast = `(() => {
	const rgb = s => s.match(/[\d.]+/g).map(Number);
	const lum = c => c.slice(0, 3).map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); })
		.reduce((l, v, i) => l + v * [0.2126, 0.7152, 0.0722][i], 0);
	const bg = el => { for (; el; el = el.parentElement) { const c = rgb(getComputedStyle(el).backgroundColor); if (c.length < 4 || c[3] > 0) return c; } return [255, 255, 255]; };
	let worst = 99, what = "", n = 0;
	for (const el of document.querySelectorAll("article pre.chroma span[class]")) {
		if (!el.textContent.trim() || el.children.length || /^(ln|lnt|line|cl|w)$/.test(el.className)) continue;
		const a = lum(rgb(getComputedStyle(el).color)), b = lum(bg(el)), r = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
		n++;
		if (r < worst) { worst = r; what = "." + el.className + " " + JSON.stringify(el.textContent) + " " + getComputedStyle(el).color + " on " + bg(el); }
	}
	if (n < 30) return "only " + n + " tokens";
	return (worst >= 4.5 ? "ok" : "too low") + ": " + n + " tokens, lowest " + worst.toFixed(2) + " " + what;
})()`
