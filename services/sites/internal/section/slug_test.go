package section

import (
	"strings"
	"testing"

	"github.com/docspub/platform/services/sites/internal/limits"
)

func TestSlug(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		title, want string
	}{
		{"Getting Started", "getting-started"},
		{"  API  Reference v2 ", "api-reference-v2"},
		{"Café Guide", "cafe-guide"},
		{"C++ & Go!", "c-go"},
		{"日本語", "section"},
		{"---", "section"},
		{strings.Repeat("ab ", 60), strings.TrimRight(strings.Repeat("ab-", 34)[:limits.SectionPath], "-")},
	} {
		if got := Slug(tc.title); got != tc.want {
			t.Errorf("Slug(%q) = %q, want %q", tc.title, got, tc.want)
		}
	}
}

func TestFreePath(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", limits.SectionPath)
	for _, tc := range []struct {
		name string
		base string
		used []string
		want string
	}{
		{"free", "guide", []string{"other"}, "guide"},
		{"taken", "guide", []string{"guide"}, "guide-2"},
		{"taken twice", "guide", []string{"guide", "guide-2"}, "guide-3"},
		{"long base is cut", long, []string{long}, long[:limits.SectionPath-2] + "-2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			used := map[string]bool{}
			for _, u := range tc.used {
				used[u] = true
			}
			if got := freePath(tc.base, used); got != tc.want {
				t.Errorf("freePath(%q) = %q, want %q", tc.base, got, tc.want)
			}
		})
	}
}
