package icons

import (
	"strings"
	"testing"
)

// TestPublicDocsIcons: the icons GitBook's docs name (GitbookIO/public-docs:
// documentation/README.md's cards, getting-started/quickstart.md's tabs,
// skill.md's aliases) draw as one inline SVG each; Pro and GitBook-only
// names draw nothing.
func TestPublicDocsIcons(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"hand-pointer", "hand-pointer"}, {"fa-hand-pointer", "hand-pointer"}, {"fa-github", "github"},
		{"code", "code"}, {"fa-solid fa-rocket", "rocket"}, {"warning", "triangle-exclamation"},
		{"fa-info-circle", "circle-info"}, {"Linux", "linux"},
	} {
		svg, ok := SVG(tc.name)
		if !ok || Lookup(tc.name) != tc.want {
			t.Errorf("%q: %v %q", tc.name, ok, Lookup(tc.name))
			continue
		}
		if !strings.HasPrefix(svg, `<svg class="icon icon-`+tc.want+`" `) || !strings.HasSuffix(svg, "</svg>") ||
			strings.Count(svg, "<path ") != 1 || !strings.Contains(svg, `aria-hidden="true"`) || strings.Contains(svg, "<!--") {
			t.Errorf("%q: %s", tc.name, svg)
		}
	}
	for _, name := range []string{"gitbook-assistant", "sparkles", "brain-circuit", "", "fa-", "../LICENSE", "nope"} {
		if svg, ok := SVG(name); ok || svg != "" {
			t.Errorf("%q drew %q", name, svg)
		}
	}
}

// TestEveryIcon: each embedded file is drawn, under a valid name.
func TestEveryIcon(t *testing.T) {
	names := Names()
	if len(names) < 60 {
		t.Fatalf("%d icons", len(names))
	}
	for _, n := range names {
		if !Name.MatchString(n) {
			t.Errorf("name %q", n)
		}
		if svg, ok := SVG(n); !ok || !strings.Contains(svg, `viewBox="0 0 `) {
			t.Errorf("%s: %s", n, svg)
		}
	}
}
