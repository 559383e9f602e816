package slug

import (
	"strings"
	"testing"
)

func TestMake(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Getting Started", "getting-started"},
		{"  --Git sync: FAQ!--  ", "git-sync-faq"},
		{"Über API v2", "ber-api-v2"},
		{"README.md", "readme-md"},
		{"", ""},
		{strings.Repeat("a", 99) + " b", strings.Repeat("a", 99)},
	} {
		if got := Make(tc.in); got != tc.want {
			t.Errorf("Make(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
