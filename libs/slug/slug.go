// Package slug makes the slugs of page paths: the one rule that Git import
// names pages by and the reader resolves repository links with, so a link
// written against a file name finds the page imported from it.
package slug

import (
	"strings"
	"unicode"
)

// MaxLen is the longest slug; a longer one is cut (without a trailing dash).
const MaxLen = 100

// Make makes a slug of s: lower-case ASCII letters and digits, one dash for
// each run of anything else, none at the ends.
func Make(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	out := b.String()
	if len(out) > MaxLen {
		out = strings.TrimRight(out[:MaxLen], "-")
	}
	return out
}
