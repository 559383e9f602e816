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
