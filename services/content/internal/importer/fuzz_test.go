package importer

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/services/content/internal/limits"
)

// FuzzConvert feeds the page converter (parse, extract, toMarkdown) any
// HTML: it never panics, never answers more than limits.PageMarkdown of
// markdown, never nests quotes deeper than limits.HTMLQuoteDepth, and keeps
// titles single-line and bounded. The seeds under testdata/fuzz/FuzzConvert
// run with every plain `go test`; `make fuzz` explores further.
func FuzzConvert(f *testing.F) {
	f.Fuzz(func(t *testing.T, page []byte) {
		doc, err := parse(bytes.NewReader(page))
		if err != nil {
			return // too deep for the HTML parser itself
		}
		title, content := extract(doc)
		if len([]rune(title)) > limits.PageTitle || strings.ContainsAny(title, "\x00\n\r\t\u202e") {
			t.Fatalf("title %q is not a cleaned single line", title)
		}
		t0 := time.Now()
		md, err := toMarkdown(context.Background(), content)
		if took := time.Since(t0); took > 10*time.Second {
			t.Fatalf("%d bytes of HTML took %s to convert", len(page), took)
		}
		if err != nil {
			if !errors.Is(err, errTooMuchMarkdown) && !errors.Is(err, errUnconvertible) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if len(md) > limits.PageMarkdown+1 {
			t.Fatalf("%d bytes of markdown", len(md))
		}
	})
}
