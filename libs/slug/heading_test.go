package slug

import (
	"os"
	"strings"
	"testing"
)

// Headings of GitBook's own docs (GitbookIO/public-docs) and the anchors
// its pages link to them with.
func TestHeading(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"1. Create an app registration in Azure", "id-1.-create-an-app-registration-in-azure"},
		{"3. Configure Azure AD for Adaptive content (optional)", "id-3.-configure-azure-ad-for-adaptive-content-optional"},
		{"2. Sign and pass a JWT token to GitBook", "id-2.-sign-and-pass-a-jwt-token-to-gitbook"},
		{"Math & TeX", "math-and-tex"},
		{"Set syntax…", "set-syntax..."},
		{"Open in ChatGPT or Claude", "open-in-chatgpt-or-claude"},
		{"Change your site’s settings", "change-your-site-s-settings"},
		{"Configure redirects", "configure-redirects"},
		{"  Café   déjà vu  ", "cafe-deja-vu"},
		{"snake_case and v1.2~beta", "snake_case-and-v1.2~beta"},
		{"!!!", ""},
	} {
		if got := Heading(tc.text); got != tc.want {
			t.Errorf("Heading(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

// TestHeadingPublicDocs: every link of GitBook's own docs
// (GitbookIO/public-docs) to a heading of another or the same page finds
// it: the fragment is the heading's id.
func TestHeadingPublicDocs(t *testing.T) {
	b, err := os.ReadFile("testdata/publicdocs-anchors.tsv")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			t.Fatalf("line %q", line)
		}
		n++
		if got := Heading(f[1]); got != f[0] {
			t.Errorf("Heading(%q) = %q, want %q (linked from %s)", f[1], got, f[0], f[2])
		}
	}
	if n < 100 {
		t.Fatalf("%d pairs read", n)
	}
}
