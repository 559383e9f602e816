package pdf_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/services/content/internal/contenttest"
	"github.com/docspub/platform/services/content/internal/limits"
	"github.com/docspub/platform/services/content/internal/pdf"
	"github.com/docspub/platform/services/content/internal/revision"
)

func opener(blobs map[string][]byte) func(string) (io.ReadCloser, error) {
	return func(id string) (io.ReadCloser, error) {
		b, ok := blobs[id]
		if !ok {
			return nil, errors.New("no blob")
		}
		return io.NopCloser(bytes.NewReader(b)), nil
	}
}

func status(err error) int {
	var ae *apierr.Error
	if errors.As(err, &ae) {
		return ae.Status
	}
	return 0
}

func TestHugeImagePrintsAPlaceholder(t *testing.T) {
	big := contenttest.BigPNG(t, 10000, 10000)
	files := []revision.File{{ID: "big", Name: "huge.png", ContentType: "image/png", Size: int64(len(big)), Blob: "b"}}
	pages := []revision.Page{{ID: "p", Kind: revision.KindDocument, Title: "Photo", Markdown: "![huge](files/big)\n"}}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	out, err := pdf.Render(context.Background(), "Handbook", pages, opener(map[string][]byte{"b": big}), files)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("a %d KB PNG of 10000 × 10000 pixels: %d KB of PDF, %d MB allocated", len(big)>>10, len(out)>>10, alloc>>20)
	if bytes.Contains(out, []byte("/Subtype /Image")) {
		t.Error("the huge image was embedded")
	}
	if alloc > 64<<20 {
		t.Errorf("rendering allocated %d MB: the image was decoded", alloc>>20)
	}
}

func TestImageBudget(t *testing.T) {
	// Noisy 700 × 700 images do not compress: about 1.9 MB each, distinct.
	n := limits.PDFImageBytes/(1900<<10) + 4
	blobs := map[string][]byte{}
	var files []revision.File
	var md strings.Builder
	for i := range n {
		m := image.NewNRGBA(image.Rect(0, 0, 700, 700))
		if _, err := rand.Read(m.Pix); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, m); err != nil {
			t.Fatal(err)
		}
		id := fmt.Sprint("f", i)
		blobs[id] = buf.Bytes()
		files = append(files, revision.File{ID: id, Name: id + ".png", Size: int64(buf.Len()), Blob: id})
		fmt.Fprintf(&md, "![%s](files/%s)\n\n![again](files/%s)\n\n", id, id, id)
	}
	out, err := pdf.Render(context.Background(), "", []revision.Page{{ID: "p", Kind: revision.KindDocument, Markdown: md.String()}},
		opener(blobs), files)
	if err != nil {
		t.Fatal(err)
	}
	all := 0
	for _, b := range blobs {
		all += len(b)
	}
	t.Logf("%d distinct images of %d KB in all, each shown twice: %d KB of PDF", n, all>>10, len(out)>>10)
	if len(out) > limits.PDFImageBytes+4<<20 {
		t.Errorf("%d bytes of PDF: more than the image budget of %d", len(out), limits.PDFImageBytes)
	}
}

func TestPageLimit(t *testing.T) {
	// About 36 short paragraphs fill a page.
	md := strings.Repeat("x\n\n", 40*(limits.PDFPages+1))
	_, err := pdf.Render(context.Background(), "", []revision.Page{{ID: "p", Kind: revision.KindDocument, Markdown: md}}, nil, nil)
	if status(err) != http.StatusRequestEntityTooLarge {
		t.Fatalf("err %v, want a 413", err)
	}
}

func TestRenderStopsWhenCancelled(t *testing.T) {
	md := strings.Repeat("A paragraph of words that fills lines. ", 30) + "\n\n"
	var pages []revision.Page
	for i := range 200 {
		pages = append(pages, revision.Page{ID: string(rune('a' + i%26)), Kind: revision.KindDocument, Title: "Page", Markdown: strings.Repeat(md, 50)})
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := pdf.Render(ctx, "Long", pages, nil, nil)
		errc <- err
	}()
	cancel()
	contenttest.Stops(t, "rendering", errc)
}

// TestPathologicalMarkdownStopsAtItsDeadline renders a megabyte of the
// markdown that the parser takes quadratic time over: parsed in pieces,
// rendering checks its context often enough to stop within moments of its
// deadline (unbounded, the parser alone took minutes).
func TestPathologicalMarkdownStopsAtItsDeadline(t *testing.T) {
	const size = 1 << 20
	for name, unit := range map[string]string{
		"nested quotes":       ">",
		"nested list markers": "- ",
		"open links":          "[a](",
		"brackets and parens": "[](",
		"fenced code":         "```\ncode line\n\n",
	} {
		t.Run(name, func(t *testing.T) {
			md := strings.Repeat(unit, size/len(unit))
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			t0 := time.Now()
			_, err := pdf.Render(ctx, "", []revision.Page{{ID: "p", Kind: revision.KindDocument, Markdown: md}}, nil, nil)
			took := time.Since(t0)
			if err != nil && !errors.Is(err, context.DeadlineExceeded) && status(err) != http.StatusRequestEntityTooLarge {
				t.Fatal(err)
			}
			if took > 3*time.Second {
				t.Errorf("a render with a deadline of 1s took %s", took)
			}
		})
	}
}
