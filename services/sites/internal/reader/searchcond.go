package reader

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/services/sites/internal/limits"
	"golang.org/x/net/html"
)

// spaceTreesBySpace are the current trees of the spaces listed to the
// reader, by space (a space content no longer has is left out).
func (r *Reader) spaceTreesBySpace(ctx context.Context, rd *read) (map[string]*tree, error) {
	out := map[string]*tree{}
	for _, lv := range rd.st.listed() {
		if _, ok := out[lv.v.ss.Space]; ok || len(out) >= limits.ReaderLLMSSpaces {
			continue
		}
		t, err := r.revision(ctx, rd.snap, rd.site.Organization, lv.v.ss.Space)
		if errors.Is(err, contentapi.ErrNoSpace) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out[lv.v.ss.Space] = t
	}
	return out, nil
}

// conditionalResults searches the pages holding {% if %} blocks of the
// spaces listed to the reader (at most limits.ReaderSearchConditionalPages
// of them) in their text as rendered for the reader: the page's HTML, its
// branches settled on the reader's claims. A page matches when it holds
// one of the query's words; pages holding more come first, at most
// limits.ReaderSearchResults of them; the snippet is rendered text around
// the first word found.
func (r *Reader) conditionalResults(rd *read, byspace map[string]*variant, spaces []string, trees map[string]*tree, q string) []result {
	terms := words(q)
	if len(terms) == 0 {
		return nil
	}
	type hit struct {
		res     result
		matched int
	}
	var hits []hit
	seen := 0
	for _, space := range spaces {
		v, t := byspace[space], trees[space]
		if t == nil {
			continue
		}
		for _, p := range t.docs {
			if !p.conditional || seen >= limits.ReaderSearchConditionalPages {
				continue
			}
			seen++
			text, found := r.content(rd, v, t, p).plainText(p)
			matched, first := 0, ""
			for _, term := range terms {
				if _, ok := found[term]; ok {
					matched++
					first = cmp.Or(first, term)
				}
			}
			if matched > 0 {
				hits = append(hits, hit{result{Title: p.title, URL: rd.base + v.path + "/" + p.path, Space: v.title,
					Snippet: around(text, first)}, matched})
			}
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return cmp.Compare(b.matched, a.matched) })
	out := make([]result, 0, min(len(hits), limits.ReaderSearchResults))
	for _, h := range hits[:min(len(hits), limits.ReaderSearchResults)] {
		out = append(out, h.res)
	}
	return out
}

// plainText is a rendering's text (htmlText) and the set of its page's
// words (title, description and text), made once.
type plainText struct {
	once  sync.Once
	text  string
	words map[string]struct{}
}

// plainText returns the text of c (the rendering of p) and the words of p
// as rendered, made on the first call and kept with c (a rendering made
// before plainText existed, or not kept, makes them again).
func (c rendered) plainText(p *page) (string, map[string]struct{}) {
	pt := c.text
	if pt == nil {
		pt = &plainText{}
	}
	pt.once.Do(func() {
		pt.text = htmlText(c.res.HTML)
		ws := words(p.title + " " + p.description + " " + pt.text)
		pt.words = make(map[string]struct{}, len(ws))
		for _, w := range ws {
			pt.words[w] = struct{}{}
		}
	})
	return pt.text, pt.words
}

// words are the lower-case words of s (runs of letters and digits), as
// content's search splits text.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// htmlText is the text of rendered HTML, its runs of space one space,
// without what is hidden from screen readers (aria-hidden: a typeset
// formula's drawing, whose MathML is its text).
func htmlText(h string) string {
	z := html.NewTokenizer(strings.NewReader(h))
	var b strings.Builder
	hidden := 0 // depth within an aria-hidden element
	for {
		switch z.Next() {
		case html.ErrorToken:
			return strings.Join(strings.Fields(b.String()), " ")
		case html.StartTagToken:
			name, attrs := z.TagName()
			switch {
			case voidElements[string(name)]:
			case hidden > 0:
				hidden++
			case attrs && isAriaHidden(z):
				hidden = 1
			}
		case html.EndTagToken:
			if hidden > 0 {
				hidden--
			}
		case html.TextToken:
			if hidden == 0 {
				b.Write(z.Text())
				b.WriteByte(' ')
			}
		}
	}
}

// voidElements have no end tag.
var voidElements = map[string]bool{"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true,
	"img": true, "input": true, "link": true, "meta": true, "source": true, "track": true, "wbr": true}

// isAriaHidden tells whether the start tag z is at (its name read) says
// aria-hidden="true".
func isAriaHidden(z *html.Tokenizer) bool {
	for {
		k, v, more := z.TagAttr()
		if string(k) == "aria-hidden" && string(v) == "true" {
			return true
		}
		if !more {
			return false
		}
	}
}

// around is at most snippetRunes of text around the first place word is
// in it, cut at spaces.
func around(text, word string) string {
	const snippetRunes = 240
	i := strings.Index(strings.ToLower(text), word)
	r := []rune(text)
	if i < 0 || len(r) <= snippetRunes {
		return string(r[:min(len(r), snippetRunes)])
	}
	at := len([]rune(text[:min(i, len(text))]))
	from := max(0, at-snippetRunes/3)
	to := min(len(r), from+snippetRunes)
	s := string(r[from:to])
	if from > 0 {
		if j := strings.IndexByte(s, ' '); j >= 0 {
			s = "…" + s[j+1:]
		}
	}
	if to < len(r) {
		if j := strings.LastIndexByte(s, ' '); j > 0 {
			s = s[:j] + "…"
		}
	}
	return s
}
