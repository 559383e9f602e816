package reader

import (
	"context"
	"testing"
	"time"

	"github.com/docspub/platform/services/sites/internal/katex"
)

// TestHTMLTextOfFormulas: a typeset formula's text is its MathML (and
// TeX), once: not its drawing's glyphs too.
func TestHTMLTextOfFormulas(t *testing.T) {
	h, err := katex.New(4096, 5*time.Second, 1).Typeset(context.Background(), `\sqrt{zebra}`, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, html, want string }{
		{"formula", `<p>Root <span class="math math-inline">` + h + `</span> here.</p>`, `Root z e b r a \sqrt{zebra} here.`},
		{"nested hidden", `<p>a <span aria-hidden="true">b <span>c</span> <br> d</span> e</p>`, `a e`},
		{"plain", `<p>One <b>two</b></p><p>three</p>`, `One two three`},
	} {
		if got := htmlText(tc.html); got != tc.want {
			t.Errorf("%s: htmlText = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestPlainTextKeptWithRendering: a rendering's text and words are made
// once and shared by its copies (the cached rendering a search reads
// again), with the page's title and description among the words.
func TestPlainTextKeptWithRendering(t *testing.T) {
	p := &page{title: "Zebra guide", description: "About herds"}
	c := rendered{text: &plainText{}}
	c.res.HTML = `<p>Stripes <b>count</b></p>`
	copied := c
	text, found := c.plainText(p)
	if text != "Stripes count" {
		t.Fatalf("text %q", text)
	}
	for _, w := range []string{"zebra", "guide", "about", "herds", "stripes", "count"} {
		if _, ok := found[w]; !ok {
			t.Errorf("word %q missing from %v", w, found)
		}
	}
	copied.res.HTML = `<p>Other</p>` // not read again: the copy shares what was made
	if again, _ := copied.plainText(p); again != text {
		t.Errorf("a copy made its text again: %q", again)
	}
	if fresh, _ := (rendered{res: copied.res}).plainText(p); fresh != "Other" {
		t.Errorf("a rendering without kept text: %q", fresh)
	}
}
