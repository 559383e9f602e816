package content

import (
	"context"
	"io"
	"net/http"
	"time"

	"github.com/docspub/platform/services/content/internal/importer"
	"github.com/docspub/platform/services/content/internal/pdf"
	"github.com/docspub/platform/services/content/internal/revision"
)

// websiteImporter gives change requests the website import (package importer).
type websiteImporter struct {
	client *http.Client // from urlguard: user URLs never reach private addresses unless allowed
	blobs  revision.Store
	now    func() time.Time
}

// Import crawls url and applies its pages to base's by path.
func (w websiteImporter) Import(ctx context.Context, base revision.Revision, _, url string) ([]revision.Page, []revision.File, int, int, error) {
	res, err := importer.Website(ctx, w.client, w.blobs, url, importer.Options{})
	if err != nil {
		return nil, nil, 0, 0, err
	}
	files := append([]revision.File{}, base.Files...)
	have := map[string]bool{}
	for _, f := range files {
		have[f.ID] = true
	}
	for _, f := range res.Files {
		if !have[f.ID] {
			files = append(files, f)
		}
	}
	return importer.Apply(base.Pages, res, w.now().UTC()), files, res.Imported, res.Total, nil
}

// pdfPrinter gives change requests their PDF (package pdf).
type pdfPrinter struct {
	blobs revision.Store
}

// PDF renders the revision's pages, or the one page.
func (p pdfPrinter) PDF(ctx context.Context, title string, rev revision.Revision, pageID string) ([]byte, error) {
	pages := rev.Pages
	if pageID != "" {
		pages = pdf.Only(pages, pageID)
	}
	open := func(blob string) (io.ReadCloser, error) { return p.blobs.OpenBlob(ctx, blob) }
	return pdf.Render(title, pages, open, rev.Files)
}
