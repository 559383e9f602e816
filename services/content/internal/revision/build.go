package revision

import (
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/docspub/platform/libs/ids"
	"github.com/docspub/platform/services/content/internal/limits"
	"golang.org/x/text/unicode/norm"
)

// NewPageID returns a new page id.
func NewPageID() string { return ids.New() }

// NewFileID returns a new file id.
func NewFileID() string { return ids.New() }

// Build makes a new revision after parent: a new id, parent as its only
// parent, parent's space, organization, reusable contents and redirects,
// and the given pages and files (nil ones become empty). The caller sets
// MergedFrom on a merge and stores it.
func Build(parent Revision, typ string, pages []Page, files []File, now time.Time) Revision {
	if pages == nil {
		pages = []Page{}
	}
	if files == nil {
		files = []File{}
	}
	reusable := parent.ReusableContents
	if reusable == nil {
		reusable = []ReusableContent{}
	}
	return Revision{
		ID:               ids.New(),
		Space:            parent.Space,
		Organization:     parent.Organization,
		Type:             typ,
		Parents:          []string{parent.ID},
		Pages:            pages,
		Files:            files,
		ReusableContents: reusable,
		Redirects:        slices.Clone(parent.Redirects),
		CreatedAt:        now.UTC(),
	}
}

// MaxSlug bounds a slug (RevisionPageSlug).
const MaxSlug = limits.PageSlug

// folded spells letters that do not decompose into an ASCII letter and
// marks.
var folded = map[rune]string{
	'ß': "ss", 'æ': "ae", 'Æ': "ae", 'ø': "o", 'Ø': "o", 'œ': "oe", 'Œ': "oe",
	'đ': "d", 'Đ': "d", 'ł': "l", 'Ł': "l", 'þ': "th", 'Þ': "th", 'ð': "d", 'Ð': "d", 'ı': "i",
}

// Slugify makes a slug of a title: lower-case ASCII letters and digits,
// accents dropped ("É" → "e"), every other run of characters one dash, no
// dash at either end, at most MaxSlug characters. A title without any
// letter or digit of the Latin alphabet gives "".
func Slugify(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range norm.NFKD.String(title) {
		if unicode.Is(unicode.Mn, r) {
			continue // a combining mark of a decomposed letter
		}
		s, ok := folded[r]
		switch {
		case ok:
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			s = string(unicode.ToLower(r))
		default:
			dash = b.Len() > 0
			continue
		}
		if dash {
			b.WriteByte('-')
			dash = false
		}
		b.WriteString(s)
	}
	out := b.String()
	if len(out) > MaxSlug {
		out = strings.TrimRight(out[:MaxSlug], "-")
	}
	return out
}
