package gitbookmd

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestDarkCodeContrast: in the dark scheme every class of highlighted
// code has a colour (its dark rule's, else the light rule that still
// applies) with a contrast of at least 4.5:1 (WCAG AA) on the dark
// background, as the stylesheet gives them.
func TestDarkCodeContrast(t *testing.T) {
	i := strings.Index(CodeCSS, "@media (prefers-color-scheme: dark){")
	if i < 0 {
		t.Fatal("no dark section in CodeCSS")
	}
	light, dark := colours(CodeCSS[:i]), colours(CodeCSS[i:])
	bg := regexp.MustCompile(`\.chroma \{[^}]*background-color: (#[0-9a-fA-F]{6})`).FindStringSubmatch(CodeCSS[i:])
	if bg == nil {
		t.Fatal("no dark background")
	}
	checked := 0
	for class, c := range light {
		if class == "ln" || class == "lnt" || class == "hl" || class == "err" || class == "w" {
			continue // line numbers, highlights and whitespace: no token's glyphs
		}
		if d, ok := dark[class]; ok {
			c = d
		}
		if r := contrast(c, bg[1]); r < 4.5 {
			t.Errorf(".%s: %s on %s has a contrast of %.2f, want at least 4.5", class, c, bg[1], r)
		}
		checked++
	}
	if checked < 20 {
		t.Fatalf("checked %d classes: the stylesheet did not parse", checked)
	}
}

// colours are the text colours a stylesheet gives the classes of .chroma.
func colours(css string) map[string]string {
	out := map[string]string{}
	for _, m := range regexp.MustCompile(`\.chroma \.([A-Za-z0-9_-]+) \{[^}]*?[^-]color: (#[0-9a-fA-F]{6})`).FindAllStringSubmatch(css, -1) {
		out[m[1]] = m[2]
	}
	return out
}

// contrast is WCAG's contrast ratio of two #rrggbb colours.
func contrast(a, b string) float64 {
	la, lb := luminance(a), luminance(b)
	return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
}

func luminance(hex string) float64 {
	var l float64
	for i, w := range []float64{0.2126, 0.7152, 0.0722} {
		v, _ := strconv.ParseUint(hex[1+2*i:3+2*i], 16, 8)
		c := float64(v) / 255
		if c <= 0.03928 {
			c /= 12.92
		} else {
			c = math.Pow((c+0.055)/1.055, 2.4)
		}
		l += w * c
	}
	return l
}
