package content

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/services/content/internal/importer"
	"github.com/docspub/platform/services/content/internal/limits"
	"github.com/docspub/platform/services/content/internal/pdf"
	"github.com/docspub/platform/services/content/internal/revision"
)

// websiteImporter gives change requests the website import (package importer).
type websiteImporter struct {
	client *http.Client // from urlguard: user URLs never reach private addresses unless allowed
	blobs  revision.Store
	now    func() time.Time
}

// Import crawls url and applies its pages to base's by path. The markdown
// it brings is bounded by the import's limit and by what base leaves of a
// revision's (a base already full is a 413 before any fetch).
func (w websiteImporter) Import(ctx context.Context, base revision.Revision, _, url string) ([]revision.Page, []revision.File, int, int, error) {
	room := min(limits.ImportMarkdown, limits.RevisionMarkdown-base.Size().Markdown)
	if room <= 0 {
		return nil, nil, 0, 0, apierr.TooLarge("the change request already holds %d MiB of markdown, as much as a revision may", limits.RevisionMarkdown>>20)
	}
	res, err := importer.Website(ctx, w.client, w.blobs, url, importer.Options{Owner: base.Owner(), MaxMarkdown: room})
	if err != nil {
		return nil, nil, 0, 0, err
	}
	res = reuseFiles(base.Files, res)
	files := append(append([]revision.File{}, base.Files...), res.Files...)
	return importer.Apply(base.Pages, res, w.now().UTC()), files, res.Imported, res.Total, nil
}

// reuseFiles keeps the files base already has: an imported file with the
// same name, type and size as one of base's is the same file downloaded
// again, so the pages keep pointing at base's (a re-import then changes no
// markdown, and two change requests importing the same site merge cleanly).
func reuseFiles(base []revision.File, res importer.Result) importer.Result {
	type key struct {
		name, contentType string
		size              int64
	}
	known := map[key]string{}
	for _, f := range base {
		known[key{f.Name, f.ContentType, f.Size}] = f.ID
	}
	var fresh []revision.File
	for _, f := range res.Files {
		old, ok := known[key{f.Name, f.ContentType, f.Size}]
		if !ok {
			fresh = append(fresh, f)
			continue
		}
		for i := range res.Pages {
			res.Pages[i].Markdown = strings.ReplaceAll(res.Pages[i].Markdown, importer.FilePrefix+f.ID, importer.FilePrefix+old)
		}
	}
	res.Files = fresh
	return res
}

// pdfPrinter gives change requests their PDF (package pdf).
type pdfPrinter struct {
	blobs revision.Store
}

// PDF renders the revision's pages, or the one page, within
// limits.PDFTime (a 413 past it).
func (p pdfPrinter) PDF(ctx context.Context, title string, rev revision.Revision, pageID string) ([]byte, error) {
	pages := rev.Pages
	if pageID != "" {
		pages = pdf.Only(pages, pageID)
	}
	rctx, cancel := context.WithTimeout(ctx, limits.PDFTime)
	defer cancel()
	open := func(blob string) (io.ReadCloser, error) { return p.blobs.OpenBlob(rctx, blob, -1) }
	b, err := pdf.Render(rctx, title, pages, open, rev.Files)
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		return nil, apierr.TooLarge("the PDF takes more than %s to render; print one page at a time (only=true&page=...)", limits.PDFTime)
	}
	return b, err
}
