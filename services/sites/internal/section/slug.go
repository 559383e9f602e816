package section

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/docspub/platform/services/sites/internal/limits"
	"golang.org/x/text/unicode/norm"
)

// Slug makes a path from a title: lower-case ASCII letters and digits, other
// runs of characters become one "-", accents are dropped ("Café Guide" →
// "cafe-guide"); at most limits.SectionPath characters; "section" when nothing is left.
func Slug(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range norm.NFKD.String(title) {
		switch {
		case unicode.Is(unicode.Mn, r): // a combining accent
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(unicode.ToLower(r))
		default:
			dash = true
		}
	}
	out := b.String()
	if len(out) > limits.SectionPath {
		out = strings.TrimRight(out[:limits.SectionPath], "-")
	}
	if out == "" {
		return "section"
	}
	return out
}

// freePath is base, or base with the first "-2", "-3", ... suffix that no
// path in used has, cut so that it fits limits.SectionPath.
func freePath(base string, used map[string]bool) string {
	if !used[base] {
		return base
	}
	for n := 2; ; n++ {
		suffix := "-" + strconv.Itoa(n)
		p := base
		if len(p)+len(suffix) > limits.SectionPath {
			p = p[:limits.SectionPath-len(suffix)]
		}
		if p += suffix; !used[p] {
			return p
		}
	}
}
