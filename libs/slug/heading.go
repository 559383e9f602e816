package slug

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Heading is a heading's id as GitBook computes it, so that deep links
// written against GitBook-hosted docs keep working: the text decomposed
// (NFKD: "…" is "..."), "&" read as "and", lower case; letters, digits,
// "_", "." and "~" kept, one dash for each run of anything else, none at
// the ends; "id-" before an id that starts with a digit ("1. Install" is
// "id-1.-install", "Math & TeX" is "math-and-tex"). At most MaxLen bytes.
// Checked against the anchors GitBook's own docs link to.
func Heading(text string) string {
	var b strings.Builder
	dash := false
	for _, r := range norm.NFKD.String(strings.ReplaceAll(text, "&", " and ")) {
		r = unicode.ToLower(r)
		switch {
		case unicode.Is(unicode.Mn, r):
			continue // a combining mark NFKD split off its letter: "é" is "e"
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '.' || r == '~':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		default:
			dash = true
		}
		if b.Len() >= MaxLen {
			break
		}
	}
	out := b.String()
	if out != "" && out[0] >= '0' && out[0] <= '9' {
		out = "id-" + out
	}
	return out
}
