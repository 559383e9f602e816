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

func TestWithoutConditions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, in, want string }{
		{"every branch", "Open.\n{% if visitor.claims.a %}\nSecret.\n{% elif visitor.claims.b %}\nB.\n{% else %}\nElse.\n{% endif %}\nAfter.\n", "Open.\nAfter.\n"},
		{"nested", "{% if a %}\n{% if b %}\nX.\n{% endif %}\nY.\n{% endif %}\nZ.\n", "Z.\n"},
		{"in a quote", "> {% if a %}\n> Secret.\n> {% endif %}\n> Shown.\n", "> Shown.\n"},
		{"code is code", "```\n{% if a %}\n```\nShown.\n", "```\n{% if a %}\n```\nShown.\n"},
		{"no end", "Shown.\n{% if a %}\nSecret.\n\nMore secret.\n", "Shown.\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := withoutConditions(tc.in); got != tc.want {
				t.Errorf("withoutConditions:\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

// Sections are anchored as the reader anchors headings: GitBook's ids,
// or the id of the anchor GitBook writes in a heading.
func TestSectionAnchors(t *testing.T) {
	secs := splitSections("intro\n\n## 1. Install\n\nx\n\n## Math & TeX\n\n## Setup <a href=\"#custom\" id=\"custom\"></a>\n\n## Math & TeX\n")
	var got []string
	for _, s := range secs[1:] {
		got = append(got, s.Anchor)
	}
	want := []string{"id-1.-install", "math-and-tex", "custom", "math-and-tex-1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("anchors (-want +got):\n%s", diff)
	}
}

// GitBook's block tags are no words of a page: neither indexed nor shown.
func TestPlainLeavesOutBlockTags(t *testing.T) {
	t.Parallel()
	md := "{% hint style=\"info\" %}\n**Info hints** show tips.\n{% endhint %}\n\n{% tabs %}\n{% tab title=\"Go\" %}\nRun it.\n{% endtab %}\n{% endtabs %}\n"
	if got, want := plain(md), "Info hints show tips. Run it."; got != want {
		t.Errorf("plain = %q, want %q", got, want)
	}
	if got, want := plain("Add mathTeX inline.&#x20;\nSay &quot;hi&quot; &amp; more."), "Add mathTeX inline. Say \"hi\" & more."; got != want {
		t.Errorf("plain = %q, want %q", got, want)
	}
}

func TestPhrasesAndExact(t *testing.T) {
	t.Parallel()
	if diff := cmp.Diff(Phrases("Set up the merge rules, merge rules", 4), []string{"set_up", "up_merge", "merge_rules", "rules_merge"}); diff != "" {
		t.Errorf("Phrases (-got +want):\n%s", diff)
	}
	if got := Phrases("a b c d e f", 2); len(got) != 2 {
		t.Errorf("Phrases past max: %v", got)
	}
	for in, want := range map[string]string{"Merge rules": "=merge_rules", "The": "", "Hints": "", "SSO & SAML": "=sso_saml"} {
		if got := Exact(in); got != want {
			t.Errorf("Exact(%q) = %q, want %q", in, got, want)
		}
	}
}
