package pdf

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/png"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/services/content/internal/limits"
	"github.com/docspub/platform/services/content/internal/revision"
	"github.com/google/go-cmp/cmp"
)

func TestPieces(t *testing.T) {
	tests := []struct {
		name string
		md   string
		max  int
		want []string
	}{
		{"short stays whole", "# T\n\npara\n", 100, []string{"# T\n\npara\n"}},
		{"blocks share a piece while they fit", "aaaa\n\nbbbb\n\ncccc\n", 12, []string{"aaaa\n\nbbbb\n\n", "cccc\n"}},
		{"a fence with blank lines stays together", "```\nx\n\ny\n```\n\nz\n", 15, []string{"```\nx\n\ny\n```\n\n", "z\n"}},
		{"a long fence is closed and opened around the cut", "```go\n111111\n222222\n333333\n```\n", 24,
			[]string{"```go\n111111\n222222\n```\n", "```go\n333333\n```\n"}},
		{"a long line is cut between words", "aaaa bbbb cccc dddd\n", 12, []string{"aaaa bbbb ", "cccc dddd\n"}},
		{"nesting past PDFNesting is cut", strings.Repeat("> ", 20) + "x\n", 1000, []string{strings.Repeat("> ", limits.PDFNesting) + "x\n"}},
		{"list markers too", strings.Repeat("- ", 20) + "1. x\n", 1000, []string{strings.Repeat("- ", limits.PDFNesting) + "x\n"}},
		{"fenced lines keep their markers", "```\n" + strings.Repeat("> ", 20) + "\n```\n", 1000, []string{"```\n" + strings.Repeat("> ", 20) + "\n```\n"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := pieces(tc.md, tc.max)
			if diff := cmp.Diff(got, tc.want); diff != "" {
				t.Errorf("pieces (-got +want):\n%s", diff)
			}
		})
	}
}

// FuzzRender renders any markdown, with an image file, as a PDF: it never
// panics, fails only with a 413 (too many pages or bytes) and takes a
// bounded time. The seeds under testdata/fuzz/FuzzRender run with every
// plain `go test`; `make fuzz` explores further.
func FuzzRender(f *testing.F) {
	m := image.NewGray(image.Rect(0, 0, 8, 8))
	var buf bytes.Buffer
	if err := png.Encode(&buf, m); err != nil {
		f.Fatal(err)
	}
	img := buf.Bytes()
	files := []revision.File{{ID: "f1", Name: "logo.png", ContentType: "image/png", Size: int64(len(img)), Blob: "b1"}}
	open := func(string) (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(img)), nil }
	f.Fuzz(func(t *testing.T, md string) {
		t0 := time.Now()
		out, err := Render(context.Background(), "Title", []revision.Page{{ID: "p", Kind: revision.KindDocument, Title: "Page", Markdown: md}}, open, files)
		if took := time.Since(t0); took > 10*time.Second {
			t.Fatalf("%d bytes of markdown took %s", len(md), took)
		}
		var ae *apierr.Error
		switch {
		case err == nil:
			if !bytes.HasPrefix(out, []byte("%PDF")) {
				t.Fatalf("output starts with %q", out[:min(len(out), 8)])
			}
		case errors.As(err, &ae) && ae.Status == http.StatusRequestEntityTooLarge:
		default:
			t.Fatalf("unexpected error %v", err)
		}
	})
}
