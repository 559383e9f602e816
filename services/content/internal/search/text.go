package search

import (
	"github.com/docspub/platform/libs/slug"
	"html"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxTermLength is the longest token indexed; longer ones (hashes, base64)
// are dropped.
const MaxTermLength = 64

// stopwords are very common English words that are never indexed nor
// searched: they would give every page a posting and say nothing.
var stopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an and are as at be but by for from has have he her his i if in
		into is it its of on or our she so than that the their them then there these they this to was
		we were what when where which who will with you your`) {
		stopwords[w] = true
	}
}

// Tokenize splits text into lower-case terms of unicode letters and digits,
// dropping stopwords and over-long tokens, in order of appearance (with
// repetitions).
func Tokenize(text string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if stopwords[f] || utf8.RuneCountInString(f) > MaxTermLength {
			continue
		}
		out = append(out, f)
	}
	return out
}

// Terms are the distinct terms of a query, in order, at most max of them.
func Terms(query string, max int) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range Tokenize(query) {
		if seen[t] {
			continue
		}
		seen[t] = true
		out = append(out, t)
		if len(out) == max {
			break
		}
	}
	return out
}

// Phrase is the index term of two terms in a row in a title or heading:
// "_" is no letter or digit, so no term of text is one.
func Phrase(a, b string) string { return a + "_" + b }

// Phrases are the phrases of a query's terms in a row (Tokenize's, stopwords
// left out), at most max of them.
func Phrases(query string, max int) []string {
	ts := Tokenize(query)
	var out []string
	for i := 1; i < len(ts) && len(out) < max; i++ {
		if p := Phrase(ts[i-1], ts[i]); ts[i] != ts[i-1] && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// Exact is the index term of a page's whole title, and of a query that
// is one (a heading's would outrank the page of the subject: "Git Sync"
// is a heading of many pages): "=" and its terms joined by "_". A title of
// one term has none ("" as past MaxQueryTerms terms): its term is the
// match already, and a list per page would double a space's lists of
// one-word titles.
func Exact(title string) string {
	ts := Tokenize(title)
	if len(ts) < 2 || len(ts) > MaxQueryTerms {
		return ""
	}
	return "=" + strings.Join(ts, "_")
}

var (
	fence      = regexp.MustCompile("^\\s{0,3}(```|~~~)")
	atxHeading = regexp.MustCompile(`^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)
	linkTarget = regexp.MustCompile(`\]\([^)]*\)`)
	autolink   = regexp.MustCompile(`<https?://[^>]*>|https?://\S+`)
	htmlTag    = regexp.MustCompile(`</?[a-zA-Z][^>]*>`)
	blockTag   = regexp.MustCompile(`\{%.*?%\}`)
	markup     = regexp.MustCompile("[*_`#>|~]+|!\\[|\\[|\\]")
	spaces     = regexp.MustCompile(`\s+`)
)

// ifTags match the tags of GitBook's {% if %} blocks, also in quotes and
// list items.
var (
	ifOpen  = regexp.MustCompile(`^[\s>]*\{%-?\s*if\s`)
	ifClose = regexp.MustCompile(`^[\s>]*\{%-?\s*endif\s*-?%\}`)
)

// withoutConditions leaves out of markdown the lines of its {% if %}
// blocks, every branch of them (outside code fences): the index is shared
// by every reader, and what a block shows depends on the reader's claims
// (the sites reader searches such pages in their text as it shows them to
// each reader). A block without its end leaves out the rest.
func withoutConditions(markdown string) string {
	if !strings.Contains(markdown, "{%") {
		return markdown
	}
	var b strings.Builder
	depth, inFence := 0, ""
	for line := range strings.Lines(markdown) {
		if m := fence.FindStringSubmatch(strings.TrimLeft(line, "> ")); m != nil {
			switch inFence {
			case "":
				inFence = m[1]
			case m[1]:
				inFence = ""
			}
		} else if inFence == "" && ifOpen.MatchString(line) {
			depth++
			continue
		} else if inFence == "" && depth > 0 && ifClose.MatchString(line) {
			depth--
			continue
		}
		if depth == 0 {
			b.WriteString(line)
		}
	}
	return b.String()
}

// rawSection is a part of a page's markdown: the text before the first
// heading (Heading "") or a heading and the text up to the next one.
type rawSection struct {
	Heading string
	Anchor  string
	Text    string
}

// splitSections splits markdown at its ATX headings (outside code fences).
// Anchors are the heading slugs, made unique within the page with "-1",
// "-2", ... as renderers do.
func splitSections(markdown string) []rawSection {
	secs := []rawSection{{}}
	var text strings.Builder
	used := map[string]int{}
	inFence := ""
	flush := func() { secs[len(secs)-1].Text = text.String(); text.Reset() }
	for line := range strings.Lines(markdown) {
		if m := fence.FindStringSubmatch(line); m != nil {
			switch inFence {
			case "":
				inFence = m[1]
			case m[1]:
				inFence = ""
			}
		} else if inFence == "" {
			if m := atxHeading.FindStringSubmatch(line); m != nil {
				flush()
				h := plain(m[2])
				a := anchor(m[2], h)
				if a == "" {
					a = "section"
				}
				if n := used[a]; n > 0 {
					used[a] = n + 1
					a += "-" + strconv.Itoa(n)
				} else {
					used[a] = 1
				}
				secs = append(secs, rawSection{Heading: h, Anchor: a})
				continue
			}
		}
		text.WriteString(line)
	}
	flush()
	return secs
}

// anchor is a heading's id as the reader gives it: the id of the anchor
// GitBook writes in it (<a href="#x" id="x"></a>), else slug.Heading of
// its text.
func anchor(raw, text string) string {
	if m := explicitID.FindStringSubmatch(raw); m != nil {
		return m[1]
	}
	return slug.Heading(text)
}

var explicitID = regexp.MustCompile(`<a\s[^>]*\bid="([A-Za-z][A-Za-z0-9_.:-]{0,127})"[^>]*>\s*</a>`)

// plain strips markdown syntax, link targets and GitBook's block tags
// ({% hint style="info" %}, {% endtabs %}) from text, leaving words (HTML
// entities decoded): a tag's words would show in snippets and make every
// page of hints a hit of "hint".
func plain(md string) string {
	s := blockTag.ReplaceAllString(md, " ")
	s = linkTarget.ReplaceAllString(s, "]")
	s = autolink.ReplaceAllString(s, " ")
	s = htmlTag.ReplaceAllString(s, " ")
	s = html.UnescapeString(s) // GitBook writes "&#x20;" at the end of lines
	s = markup.ReplaceAllString(s, " ")
	return strings.TrimSpace(spaces.ReplaceAllString(s, " "))
}

// snippet is the first max characters of s, cut at a word boundary.
func snippet(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)[:max]
	cut := string(r)
	if i := strings.LastIndexByte(cut, ' '); i > max/2 {
		cut = cut[:i]
	}
	return cut + "…"
}
