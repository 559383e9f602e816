package gitbookmd

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// table is a <table> being rewritten: what each column holds, from its
// header cells' data attributes (columnKind), and for a card table
// (data-view="cards") the row being written.
type table struct {
	cards  bool
	cols   []string
	col    int
	inCell bool
	// The card of the row: its title (the text of its first plain cell
	// that has one), whether its target was linked, where its cover image
	// is in the output and its dark cover's URL.
	title             strings.Builder
	titled, linked    bool
	coverAt, coverEnd int
	dark              string
}

func top(tables []*table) *table {
	if len(tables) == 0 {
		return nil
	}
	return tables[len(tables)-1]
}

// kind is the class of the current cell's column.
func (tb *table) kind() string {
	if tb.col < len(tb.cols) {
		return tb.cols[tb.col]
	}
	return ""
}

// columnKind is the class of a header cell's column: in a card table
// card-cover (its file shown as the card's image), card-cover-dark (the
// image in a dark scheme), card-target (the card links to it),
// card-hidden; in another table col-hidden for a hidden column.
func columnKind(t html.Token, cards bool) string {
	has := func(k string) bool {
		for _, a := range t.Attr {
			if a.Key == k {
				return true
			}
		}
		return false
	}
	switch {
	case !cards && has("data-hidden"):
		return "col-hidden"
	case !cards:
		return ""
	case has("data-card-cover"):
		return "card-cover"
	case has("data-card-cover-dark"):
		return "card-cover-dark"
	case has("data-card-target"):
		return "card-target"
	case has("data-hidden"):
		return "card-hidden"
	}
	return ""
}

// tableTag follows a table's structure and gives cells the class of
// their column.
func (rw *rewriter) tableTag(tt html.TokenType, t *html.Token) {
	if t.Data == "table" {
		if tt == html.StartTagToken {
			rw.tables = append(rw.tables, &table{cards: attr(*t, "data-view") == "cards", coverAt: -1})
		}
		return
	}
	tb := top(rw.tables)
	if tb == nil {
		return
	}
	switch t.Data {
	case "tr":
		tb.col, tb.coverAt, tb.dark, tb.titled, tb.linked = 0, -1, "", false, false
		tb.title.Reset()
	case "th":
		if tb.col >= len(tb.cols) {
			tb.cols = append(tb.cols, columnKind(*t, tb.cards))
		}
		if tb.kind() == "col-hidden" {
			addClass(t, "col-hidden")
		}
		tb.inCell = true
	case "td":
		if k := tb.kind(); k != "" {
			addClass(t, k)
		}
		tb.inCell = true
	}
}

// endTableTag closes a table, a row or a cell; a card's row gets its
// dark cover.
func (rw *rewriter) endTableTag(name string) {
	if name == "table" {
		if n := len(rw.tables); n > 0 {
			rw.tables = rw.tables[:n-1]
		}
		return
	}
	tb := top(rw.tables)
	if tb == nil {
		return
	}
	switch name {
	case "td", "th":
		tb.col++
		tb.inCell = false
		tb.titled = tb.titled || strings.TrimSpace(tb.title.String()) != ""
	case "tr":
		if tb.cards {
			rw.darkCover(tb)
		}
	}
}

// readTitle reads a card's title from the text of its first plain cell.
func (tb *table) readTitle(raw []byte) {
	if tb.cards && tb.inCell && !tb.titled && tb.kind() == "" && tb.title.Len() < 200 {
		tb.title.WriteString(html.UnescapeString(string(raw)))
	}
}

// cardAnchor writes the links of a card table's special cells and tells
// whether the anchor's tags and text are left out: the target's link
// becomes the card's link (a stretched link, named after the card's
// title); a cover's link is written as its image; a dark cover's is kept
// for darkCover. A cover whose file is not published shows nothing.
func (rw *rewriter) cardAnchor(tb *table, t *html.Token, published bool) bool {
	href := attr(*t, "href")
	switch tb.kind() {
	case "card-target":
		if published && !tb.linked {
			tb.linked = true
			addClass(t, "card-link")
			if title := cardTitle(tb.title.String()); title != "" {
				setAttr(t, "aria-label", title)
			}
		}
		return false
	case "card-cover":
		if published && href != "" && tb.coverAt < 0 {
			tb.coverAt = rw.b.Len()
			rw.b.WriteString((&html.Token{Type: html.StartTagToken, Data: "img",
				Attr: []html.Attribute{{Key: "src", Val: href}, {Key: "alt", Val: ""}}}).String())
			tb.coverEnd = rw.b.Len()
		}
	case "card-cover-dark":
		if published && safeURL(href) {
			tb.dark = href
		}
	default:
		return false
	}
	rw.skipText = true
	return true
}

// darkCover puts the card's cover image in a <picture> whose source is
// the dark cover when the reader prefers a dark scheme.
func (rw *rewriter) darkCover(tb *table) {
	if tb.coverAt < 0 || tb.dark == "" || tb.coverEnd > rw.b.Len() {
		return
	}
	rest := append([]byte(nil), rw.b.Bytes()[tb.coverAt:]...)
	rw.b.Truncate(tb.coverAt)
	srcset := strings.NewReplacer(" ", "%20", ",", "%2C").Replace(tb.dark)
	rw.b.WriteString(`<picture><source srcset="` + html.EscapeString(srcset) + `" media="(prefers-color-scheme: dark)">`)
	n := tb.coverEnd - tb.coverAt
	rw.b.Write(rest[:n])
	rw.b.WriteString("</picture>")
	rw.b.Write(rest[n:])
	tb.coverAt = -1
}

// cardTitle is a card's title as an aria-label: its words, at most 100
// characters.
func cardTitle(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	for utf8.RuneCountInString(s) > 100 {
		_, size := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-size]
	}
	return s
}

// addClass adds a class to a tag's class attribute.
func addClass(t *html.Token, class string) {
	for i, a := range t.Attr {
		if a.Key == "class" {
			t.Attr[i].Val = strings.TrimSpace(a.Val + " " + class)
			return
		}
	}
	t.Attr = append(t.Attr, html.Attribute{Key: "class", Val: class})
}

// setAttr sets a tag's attribute.
func setAttr(t *html.Token, key, val string) {
	for i, a := range t.Attr {
		if a.Key == key {
			t.Attr[i].Val = val
			return
		}
	}
	t.Attr = append(t.Attr, html.Attribute{Key: key, Val: val})
}
