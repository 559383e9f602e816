package search

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTokenize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"lower-cases and splits on punctuation", "Hello, World! API-v2", []string{"hello", "world", "api", "v2"}},
		{"drops stopwords", "the gateway and the token", []string{"gateway", "token"}},
		{"keeps unicode letters", "Über Größe café", []string{"über", "größe", "café"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(Tokenize(tc.in), tc.want); diff != "" {
				t.Errorf("Tokenize(%q) (-got +want):\n%s", tc.in, diff)
			}
		})
	}
}

func TestSplitSections(t *testing.T) {
	t.Parallel()
	md := "Intro text.\n\n# Setup\n\nSteps.\n\n```\n# not a heading\n```\n\n## Setup\n\nAgain.\n"
	got := splitSections(md)
	var anchors []string
	for _, s := range got {
		anchors = append(anchors, s.Anchor+"|"+s.Heading)
	}
	if diff := cmp.Diff(anchors, []string{"|", "setup|Setup", "setup-1|Setup"}); diff != "" {
		t.Errorf("sections (-got +want):\n%s", diff)
	}
	if plain(got[1].Text) != "Steps. not a heading" {
		t.Errorf("section text %q", plain(got[1].Text))
	}
}
