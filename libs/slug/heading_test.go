package slug

import "testing"

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
