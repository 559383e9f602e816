// Package pdf renders a space's pages as a PDF document: each document
// page's title as a heading, then its markdown (parsed with goldmark) as
// headings, paragraphs, bullet and numbered lists, quotes, code blocks in a
// monospace font and images embedded from the revision's files ("files/<id>"
// links). Text is set in the Go fonts, which cover Latin, Greek and Cyrillic
// scripts; other characters print as "?".
//
// A render is bounded (package limits): markdown is parsed in pieces
// (pieces.go) with its nesting cut, an image is decoded only when its header
// says it has at most limits.ImagePixels pixels and the PDF's image budget
// allows it (otherwise a placeholder names it), and a PDF over
// limits.PDFPages pages or limits.PDFBytes bytes is a 413. Rendering stops
// with ctx's error as soon as ctx is done.
package pdf

import (
	"bytes"
	"context"
	"fmt"
	"image"
	_ "image/gif" // decoders for embedded images
	_ "image/jpeg"
	_ "image/png"
	"io"
	"path"
	"strings"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/services/content/internal/limits"
	"github.com/docspub/platform/services/content/internal/revision"
	"github.com/signintech/gopdf"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goitalic"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/goregular"
)

// Page geometry, in points (A4).
const (
	pageW, pageH = 595.0, 842.0
	margin       = 56.0
	contentW     = pageW - 2*margin
	bodySize     = 11.0
	codeSize     = 9.0
	listIndent   = 18.0
	maxImageH    = 400.0
	placeholderH = 36.0
)

// Font families registered in every document.
const (
	regular = "regular"
	bold    = "bold"
	italic  = "italic"
	mono    = "mono"
)

var headingSizes = [...]float64{0, 20, 16, 14, 12.5, 11.5, 11}

// Only returns the page with the id as the only page to render (its
// children left out), or nil when there is none.
func Only(pages []revision.Page, pageID string) []revision.Page {
	for _, f := range revision.Flatten(pages) {
		if f.Page.ID == pageID {
			p := *f.Page
			p.Pages = nil
			return []revision.Page{p}
		}
	}
	return nil
}

// ErrTooManyPages and ErrTooLarge refuse a PDF over the limits.
var (
	ErrTooManyPages = apierr.TooLarge("the PDF would have more than %d pages; print one page at a time (only=true&page=...)", limits.PDFPages)
	ErrTooLarge     = apierr.TooLarge("the PDF would be larger than %d MiB; print one page at a time (only=true&page=...)", limits.PDFBytes>>20)
)

// Render makes a PDF of the document pages of a tree, in tree order, after
// a title line. open reads a file's bytes by blob id; an image whose file is
// unknown or unreadable is left out.
func Render(ctx context.Context, title string, pages []revision.Page, open func(blobID string) (io.ReadCloser, error), files []revision.File) ([]byte, error) {
	r := &renderer{ctx: ctx, open: open, files: map[string]revision.File{}, shown: map[string]bool{}, md: goldmark.New(goldmark.WithExtensions(extension.GFM))}
	for _, f := range files {
		r.files[f.ID] = f
		if _, ok := r.files[f.Name]; !ok {
			r.files[f.Name] = f
		}
	}
	r.pdf.Start(gopdf.Config{PageSize: *gopdf.PageSizeA4, Unit: gopdf.UnitPT})
	opt := gopdf.TtfOption{OnGlyphNotFoundSubstitute: func(rune) rune { return '?' }}
	for _, f := range []struct {
		name string
		ttf  []byte
	}{{regular, goregular.TTF}, {bold, gobold.TTF}, {italic, goitalic.TTF}, {mono, gomono.TTF}} {
		if err := r.pdf.AddTTFFontDataWithOption(f.name, f.ttf, opt); err != nil {
			return nil, fmt.Errorf("pdf font %s: %w", f.name, err)
		}
	}
	r.newPage()
	if title != "" {
		r.text(title, bold, 24, 0, 30)
		r.y += 8
	}
	for _, f := range revision.Flatten(pages) {
		if f.Page.Kind == revision.KindLink {
			continue
		}
		if f.Page.Kind == revision.KindGroup {
			r.space(12)
			r.text(f.Page.Title, bold, 13, 0, 18)
			continue
		}
		if err := r.page(f.Page); err != nil {
			return nil, err
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	var buf bytes.Buffer
	if err := r.pdf.Write(&buf); err != nil {
		return nil, fmt.Errorf("write pdf: %w", err)
	}
	if buf.Len() > limits.PDFBytes {
		return nil, ErrTooLarge
	}
	return buf.Bytes(), nil
}

type renderer struct {
	ctx    context.Context
	pdf    gopdf.GoPdf
	y      float64
	pages  int             // PDF pages started
	bytes  int             // text and image bytes written so far
	images int             // image bytes embedded so far
	shown  map[string]bool // blobs embedded (gopdf embeds an image once however often it shows)
	open   func(string) (io.ReadCloser, error)
	files  map[string]revision.File
	md     goldmark.Markdown
	err    error
}

// fail records the first error; rendering stops at the next check.
func (r *renderer) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// newPage starts a PDF page, unless the PDF reached limits.PDFPages or ctx is done.
func (r *renderer) newPage() {
	if err := r.ctx.Err(); err != nil {
		r.fail(err)
	}
	if r.pages >= limits.PDFPages {
		r.fail(ErrTooManyPages)
	}
	if r.err != nil {
		return
	}
	r.pages++
	r.pdf.AddPage()
	r.y = margin
}

// wrote counts bytes written to the PDF; past limits.PDFBytes it fails.
func (r *renderer) wrote(n int) {
	r.bytes += n
	if r.bytes > limits.PDFBytes {
		r.fail(ErrTooLarge)
	}
}

// space adds vertical space, or starts a new page when less than h is left.
func (r *renderer) space(h float64) {
	if r.y+h > pageH-margin {
		r.newPage()
		return
	}
	r.y += h
}

func (r *renderer) need(h float64) {
	if r.y+h > pageH-margin && r.y > margin {
		r.newPage()
	}
}

// page renders a document page: its title, then its markdown piece by
// piece (see pieces).
func (r *renderer) page(p *revision.Page) error {
	r.space(16)
	r.text(p.Title, bold, 18, 0, 24)
	r.y += 4
	for _, piece := range pieces(p.Markdown, limits.MarkdownPiece) {
		if err := r.ctx.Err(); err != nil {
			r.fail(err)
		}
		if r.err != nil {
			break
		}
		src := []byte(piece)
		r.blocks(r.md.Parser().Parse(text.NewReader(src)), src, 0)
	}
	return r.err
}

// blocks renders the block children of n, indented by indent.
func (r *renderer) blocks(n ast.Node, src []byte, indent float64) {
	for c := n.FirstChild(); c != nil && r.err == nil; c = c.NextSibling() {
		if err := r.ctx.Err(); err != nil {
			r.fail(err)
			return
		}
		r.block(c, src, indent)
	}
}

// nested is the indent of a level below indent: deeper than limits.PDFNesting
// levels, it stays.
func nested(indent, by float64) float64 { return min(indent+by, limits.PDFNesting*listIndent) }

func (r *renderer) block(n ast.Node, src []byte, indent float64) {
	switch b := n.(type) {
	case *ast.Heading:
		size := headingSizes[min(b.Level, 6)]
		r.space(size * 0.6)
		r.text(inline(b, src), bold, size, indent, size*1.3)
	case *ast.Paragraph, *ast.TextBlock:
		if img := onlyImage(n); img != nil {
			r.image(img)
			return
		}
		r.text(inline(n, src), regular, bodySize, indent, bodySize*1.4)
		for _, img := range images(n) {
			r.image(img)
		}
		if _, ok := n.(*ast.Paragraph); ok {
			r.y += 5
		}
	case *ast.List:
		num := b.Start
		for item := b.FirstChild(); item != nil && r.err == nil; item = item.NextSibling() {
			marker := "•"
			if b.IsOrdered() {
				marker = fmt.Sprintf("%d.", num)
				num++
			}
			r.need(bodySize * 1.4)
			r.set(regular, bodySize)
			r.pdf.SetXY(margin+indent, r.y)
			_ = r.pdf.Cell(nil, marker)
			r.blocks(item, src, nested(indent, listIndent))
		}
		r.y += 4
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		r.code(n, src, indent)
	case *ast.Blockquote:
		start := r.y
		r.blocks(b, src, nested(indent, 12))
		if r.y > start {
			r.pdf.SetLineWidth(2)
			r.pdf.SetStrokeColor(200, 200, 200)
			r.pdf.Line(margin+indent+4, start, margin+indent+4, r.y-4)
			r.pdf.SetStrokeColor(0, 0, 0)
		}
	case *ast.ThematicBreak:
		r.space(8)
		r.pdf.SetLineWidth(0.5)
		r.pdf.Line(margin, r.y, pageW-margin, r.y)
		r.y += 8
	case *east.Table:
		for row := b.FirstChild(); row != nil; row = row.NextSibling() {
			var cells []string
			for cell := row.FirstChild(); cell != nil; cell = cell.NextSibling() {
				cells = append(cells, inline(cell, src))
			}
			font := regular
			if _, ok := row.(*east.TableHeader); ok {
				font = bold
			}
			r.text(strings.Join(cells, "  |  "), font, bodySize, indent, bodySize*1.4)
		}
		r.y += 5
	case *ast.HTMLBlock:
		// raw HTML is not rendered
	default:
		r.blocks(n, src, indent)
	}
}

// code renders a code block's lines in the monospace font on a grey band.
func (r *renderer) code(n ast.Node, src []byte, indent float64) {
	lh := codeSize * 1.35
	r.set(mono, codeSize)
	var lines []string
	for i := 0; i < n.Lines().Len(); i++ {
		seg := n.Lines().At(i)
		line := strings.TrimRight(strings.ReplaceAll(string(seg.Value(src)), "\t", "    "), "\r\n")
		wrapped, err := r.pdf.SplitText(line, contentW-indent-12)
		if err != nil || len(wrapped) == 0 {
			wrapped = []string{line}
		}
		lines = append(lines, wrapped...)
	}
	r.y += 2
	for _, l := range lines {
		r.need(lh)
		if r.err != nil {
			return
		}
		r.pdf.SetFillColor(242, 242, 242)
		r.pdf.RectFromUpperLeftWithStyle(margin+indent, r.y, contentW-indent, lh, "F")
		r.pdf.SetFillColor(0, 0, 0)
		r.set(mono, codeSize)
		r.pdf.SetXY(margin+indent+6, r.y+1)
		_ = r.pdf.Cell(nil, l)
		r.wrote(len(l))
		r.y += lh
	}
	r.y += 8
}

// text writes s wrapped to the width left after indent, line by line.
func (r *renderer) text(s, font string, size, indent, lh float64) {
	if r.err != nil || strings.TrimSpace(s) == "" {
		return
	}
	r.set(font, size)
	for _, para := range strings.Split(s, "\n") {
		lines, err := r.pdf.SplitTextWithWordWrap(para, contentW-indent)
		if err != nil || len(lines) == 0 {
			lines = []string{para}
		}
		for _, l := range lines {
			r.need(lh)
			if r.err != nil {
				return
			}
			r.set(font, size)
			r.pdf.SetXY(margin+indent, r.y)
			if err := r.pdf.Cell(nil, l); err != nil {
				r.fail(fmt.Errorf("pdf text: %w", err))
				return
			}
			r.wrote(len(l))
			r.y += lh
		}
	}
}

func (r *renderer) set(font string, size float64) {
	if err := r.pdf.SetFont(font, "", size); err != nil {
		r.fail(fmt.Errorf("pdf font: %w", err))
	}
}

// image embeds the file an image links to ("files/<id>", or any path whose
// last segment is a file's id or name), scaled to the text width. Only its
// header is decoded first: an image of more than limits.ImagePixels pixels,
// or one past the PDF's budget of image bytes, prints as a placeholder that
// names it.
func (r *renderer) image(img *ast.Image) {
	dest := string(img.Destination)
	if strings.Contains(dest, "://") {
		return // external images are not fetched
	}
	f, ok := r.files[path.Base(strings.SplitN(dest, "?", 2)[0])]
	if !ok || r.open == nil {
		return
	}
	again := r.shown[f.Blob]
	if !again && (f.Size > limits.FileBytes || r.images+int(f.Size) > limits.PDFImageBytes) {
		r.placeholder(f, "over the PDF's budget of images")
		return
	}
	rc, err := r.open(f.Blob)
	if err != nil {
		return
	}
	b, err := io.ReadAll(io.LimitReader(rc, limits.FileBytes+1))
	rc.Close()
	if err != nil || len(b) > limits.FileBytes {
		return
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(b))
	if err != nil || cfg.Width <= 0 || cfg.Height <= 0 {
		return
	}
	if int64(cfg.Width)*int64(cfg.Height) > limits.ImagePixels {
		r.placeholder(f, fmt.Sprintf("%d × %d pixels, too large to print", cfg.Width, cfg.Height))
		return
	}
	if !again && r.images+len(b) > limits.PDFImageBytes {
		r.placeholder(f, "over the PDF's budget of images")
		return
	}
	w, h := float64(cfg.Width)*0.75, float64(cfg.Height)*0.75 // 96 dpi pixels to points
	if w > contentW {
		w, h = contentW, h*contentW/w
	}
	if h > maxImageH {
		w, h = w*maxImageH/h, maxImageH
	}
	r.need(h + 6)
	if r.err != nil {
		return
	}
	holder, err := gopdf.ImageHolderByBytes(b)
	if err == nil {
		err = r.pdf.ImageByHolder(holder, margin, r.y, &gopdf.Rect{W: w, H: h})
	}
	if err != nil {
		// gopdf embeds JPEG and PNG; convert anything else (GIF) through image.Image.
		m, _, derr := image.Decode(bytes.NewReader(b))
		if derr != nil || r.pdf.ImageFrom(m, margin, r.y, &gopdf.Rect{W: w, H: h}) != nil {
			return
		}
	}
	if !again {
		r.shown[f.Blob] = true
		r.images += len(b)
		r.wrote(len(b))
	}
	r.y += h + 6
}

// placeholder prints a grey box naming an image that is not embedded.
func (r *renderer) placeholder(f revision.File, why string) {
	r.need(placeholderH + 6)
	if r.err != nil {
		return
	}
	r.pdf.SetFillColor(235, 235, 235)
	r.pdf.RectFromUpperLeftWithStyle(margin, r.y, contentW, placeholderH, "F")
	r.pdf.SetFillColor(0, 0, 0)
	r.set(italic, codeSize)
	r.pdf.SetXY(margin+8, r.y+placeholderH/2-codeSize/2)
	label := "Image " + f.Name + ": " + why
	if lines, err := r.pdf.SplitText(label, contentW-16); err == nil && len(lines) > 0 {
		label = lines[0]
	}
	_ = r.pdf.Cell(nil, label)
	r.wrote(len(label))
	r.y += placeholderH + 6
}

// inline is the plain text of n's inline content; line breaks stay.
func inline(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch t := c.(type) {
		case *ast.Text:
			b.Write(t.Value(src))
			switch {
			case t.HardLineBreak():
				b.WriteByte('\n')
			case t.SoftLineBreak():
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(t.Value)
		case *ast.CodeSpan:
			for s := t.FirstChild(); s != nil; s = s.NextSibling() {
				if tx, ok := s.(*ast.Text); ok {
					b.Write(tx.Value(src))
				}
			}
			return ast.WalkSkipChildren, nil
		case *ast.AutoLink:
			b.Write(t.URL(src))
			return ast.WalkSkipChildren, nil
		case *ast.Image, *ast.RawHTML:
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

func images(n ast.Node) []*ast.Image {
	var out []*ast.Image
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if img, ok := c.(*ast.Image); ok && entering {
			out = append(out, img)
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return out
}

// onlyImage is the image of a paragraph that holds nothing else.
func onlyImage(n ast.Node) *ast.Image {
	img, ok := n.FirstChild().(*ast.Image)
	if !ok || n.ChildCount() != 1 {
		return nil
	}
	return img
}
