package gitbookmd

import (
	"regexp"
	"strings"
	"testing"
)

// TestCodeContrast: in each scheme (light; dark as the system's; dark as
// the reader's pick) every class of highlighted code has a colour (its
// scheme's rule, else the light rule that still applies) with a contrast
// of at least 4.5:1 (WCAG AA) on the scheme's background, as the
// stylesheet gives them.
func TestCodeContrast(t *testing.T) {
	media := strings.Index(CodeCSS, "@media (prefers-color-scheme: dark){")
	picked := strings.Index(CodeCSS, ":root[data-theme=dark] ")
	if media < 0 || picked < media {
		t.Fatal("no dark sections in CodeCSS")
	}
	light := CodeCSS[:media]
	for _, tc := range []struct{ name, css, prefix string }{
		{"light", light, ""},
		{"dark (system)", CodeCSS[media:picked], ":root:not([data-theme=light]) "},
		{"dark (picked)", CodeCSS[picked:], ":root[data-theme=dark] "},
	} {
		bg := regexp.MustCompile(regexp.QuoteMeta(tc.prefix) + `\.chroma \{[^}]*background-color: (#[0-9a-fA-F]{6})`).FindStringSubmatch(tc.css)
		if bg == nil {
			t.Fatalf("%s: no background", tc.name)
		}
		own := colours(tc.css, tc.prefix)
		checked := 0
		for class, c := range colours(light, "") {
			if glyphless[class] {
				continue
			}
			if d, ok := own[class]; ok {
				c = d
			}
			if r := contrast(c, bg[1]); r < 4.5 {
				t.Errorf("%s: .%s: %s on %s has a contrast of %.2f, want at least 4.5", tc.name, class, c, bg[1], r)
			}
			checked++
		}
		if checked < 20 {
			t.Fatalf("%s: checked %d classes: the stylesheet did not parse", tc.name, checked)
		}
	}
}

// colours are the text colours a stylesheet gives the classes of .chroma
// under prefix.
func colours(css, prefix string) map[string]string {
	out := map[string]string{}
	re := regexp.MustCompile(`(?:^|\*/ |\n|\})` + regexp.QuoteMeta(prefix) + `\.chroma \.([A-Za-z0-9_-]+) \{[^}]*?[^-]color: (#[0-9a-fA-F]{6})`)
	for _, m := range re.FindAllStringSubmatch(css, -1) {
		out[m[1]] = m[2]
	}
	return out
}

// TestContrast: WCAG's ratios of known pairs.
func TestContrast(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want float64
	}{{"#000000", "#ffffff", 21}, {"#ffffff", "#ffffff", 1}, {"#767676", "#ffffff", 4.54}} {
		if got := contrast(tc.a, tc.b); got < tc.want-0.01 || got > tc.want+0.01 {
			t.Errorf("contrast(%s, %s) = %.2f, want %.2f", tc.a, tc.b, got, tc.want)
		}
	}
}
