package gitbookmd

import (
	"strings"
	"testing"
)

// GitHub's emoji shortcodes, which GitBook's changelog pages write as text
// (":tada: New"), are drawn as their emoji; in code they stay as written,
// and GitBook's icon tags (<i class="fa-rocket">:rocket:</i>) stay icons.
func TestEmojiShortcodes(t *testing.T) {
	html := New().Render(":tada: Released, :sparkles: new.\n\n`:tada:` in code, :not-an-emoji: stays.\n\n"+
		"```\n:wave:\n```\n\n<i class=\"fa-rocket\">:rocket:</i>\n", Options{}).HTML
	for _, want := range []string{"\U0001F389 Released", "\u2728 new", "<code>:tada:</code>", ":not-an-emoji: stays", ":wave:", "<svg"} {
		if !strings.Contains(html, want) {
			t.Errorf("no %q in\n%s", want, html)
		}
	}
	if strings.Contains(html, "\U0001F680") {
		t.Errorf("an icon drawn as an emoji:\n%s", html)
	}
}
