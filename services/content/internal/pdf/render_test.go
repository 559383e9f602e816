package pdf_test

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/png"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/docspub/platform/services/content/internal/pdf"
	"github.com/docspub/platform/services/content/internal/revision"
)

var pageObject = regexp.MustCompile(`/Type\s*/Page[^s]`)

func pngBytes(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 40, 20))
	for x := range 40 {
		img.Set(x, 10, color.RGBA{B: 255, A: 255})
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func render(t *testing.T, pages []revision.Page, files []revision.File, blobs map[string][]byte) []byte {
	t.Helper()
	open := func(id string) (io.ReadCloser, error) {
		b, ok := blobs[id]
		if !ok {
			return nil, errors.New("no blob")
		}
		return io.NopCloser(bytes.NewReader(b)), nil
	}
	out, err := pdf.Render(context.Background(), "Handbook", pages, open, files)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(out, []byte("%PDF")) {
		t.Fatalf("output starts with %q", out[:min(len(out), 8)])
	}
	return out
}

const everything = "Intro with **bold**, _emphasis_, `code` and a [link](https://example.com).\n\n" +
	"# Heading one\n\n## Heading two\n\n### Heading three\n\n" +
	"- bullet one\n- bullet two\n  - nested bullet\n\n1. first\n2. second\n\n" +
	"> a quote\n\n```go\nfunc main() {\n\tprintln(\"hi\")\n}\n```\n\n    indented code\n\n" +
	"![logo](files/f1)\n\n![missing](files/nope)\n\n![external](https://example.com/x.png)\n\n" +
	"| a | b |\n|---|---|\n| 1 | 2 |\n\n---\n\nUnicode: Grüße, Ελληνικά, Русский, 漢字 and emoji 🎉.\n\n<div>raw html</div>\n"

func TestRenderEveryElement(t *testing.T) {
	pages := []revision.Page{
		{ID: "g", Kind: revision.KindGroup, Title: "Group", Slug: "group", Pages: []revision.Page{
			{ID: "p1", Kind: revision.KindDocument, Title: "Everything", Slug: "everything", Markdown: everything},
		}},
	}
	files := []revision.File{{ID: "f1", Name: "logo.png", ContentType: "image/png", Blob: "b1"}}
	out := render(t, pages, files, map[string][]byte{"b1": pngBytes(t)})
	if !bytes.Contains(out, []byte("/Subtype /Image")) {
		t.Error("the image is not embedded")
	}
}

func TestRenderLongContentHasPages(t *testing.T) {
	md := strings.Repeat("A paragraph of text that goes on and on to fill the page with words. ", 40) + "\n\n"
	pages := []revision.Page{{ID: "p", Kind: revision.KindDocument, Title: "Long", Slug: "long", Markdown: strings.Repeat(md, 20)}}
	out := render(t, pages, nil, nil)
	if n := len(pageObject.FindAll(out, -1)); n < 2 {
		t.Fatalf("%d pages, want more than one", n)
	}
}

func TestOnly(t *testing.T) {
	pages := []revision.Page{{ID: "a", Kind: revision.KindDocument, Title: "A", Slug: "a", Pages: []revision.Page{
		{ID: "b", Kind: revision.KindDocument, Title: "B", Slug: "b", Markdown: "bee"},
	}}}
	got := pdf.Only(pages, "a")
	if len(got) != 1 || got[0].ID != "a" || len(got[0].Pages) != 0 {
		t.Fatalf("Only(a) = %+v", got)
	}
	if got := pdf.Only(pages, "b"); len(got) != 1 || got[0].ID != "b" {
		t.Fatalf("Only(b) = %+v", got)
	}
	if got := pdf.Only(pages, "zzz"); got != nil {
		t.Fatalf("Only(zzz) = %+v", got)
	}
	if n := len(pageObject.FindAll(render(t, pdf.Only(pages, "b"), nil, nil), -1)); n != 1 {
		t.Fatalf("one short page rendered on %d pages", n)
	}
}
