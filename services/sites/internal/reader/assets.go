package reader

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"sync"

	"github.com/docspub/platform/services/sites/internal/katex"
)

// Vendored assets of pages (static/README.md says where each comes from):
// KaTeX's stylesheet and fonts for typeset math, Mermaid's script for
// diagrams. Each is served under <site>/~static/<path>, the version in
// the path, so that readers keep it for good.
const (
	katexDir   = "katex-" + katex.Version
	mermaidDir = "mermaid-12.3.0"
	// KaTeXCSS and MermaidJS are the assets' paths under ~static/.
	KaTeXCSS  = katexDir + "/katex.min.css"
	MermaidJS = mermaidDir + "/mermaid.min.js"
)

//go:embed static/katex-*/katex.min.css static/katex-*/fonts/*.woff2 static/mermaid-*/mermaid.min.js.gz
var staticFS embed.FS

// staticTypes are the types of the assets served, by extension; a file of
// another extension under static/ is not served.
var staticTypes = map[string]string{
	".css":   "text/css; charset=utf-8",
	".js":    "text/javascript; charset=utf-8",
	".woff2": "font/woff2",
}

// asset is one vendored file: its bytes (plain, for a file committed
// gzipped inflated when a reader first needs them) and validator.
type asset struct {
	typ, etag string
	plain     []byte
	gz        []byte // the file as committed, gzipped; nil when it is not
	once      sync.Once
	err       error
}

// body is the asset's bytes as is.
func (a *asset) body() ([]byte, error) {
	a.once.Do(func() {
		if a.plain != nil || a.gz == nil {
			return
		}
		zr, err := gzip.NewReader(bytes.NewReader(a.gz))
		if err == nil {
			a.plain, err = io.ReadAll(zr)
		}
		if err != nil {
			a.err = fmt.Errorf("inflate vendored asset: %w", err)
		}
	})
	return a.plain, a.err
}

var (
	assetsOnce sync.Once
	assets     map[string]*asset
)

// staticAssets are the vendored files by their path under ~static/ (a
// gzipped one without its .gz).
func staticAssets() map[string]*asset {
	assetsOnce.Do(func() {
		assets = map[string]*asset{}
		_ = fs.WalkDir(staticFS, "static", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := staticFS.ReadFile(p)
			if err != nil {
				return err
			}
			name := strings.TrimPrefix(p, "static/")
			a := &asset{plain: b}
			if n, ok := strings.CutSuffix(name, ".gz"); ok {
				name, a.plain, a.gz = n, nil, b
			}
			a.typ = staticTypes[path.Ext(name)]
			sum := sha256.Sum256(b)
			a.etag = hex.EncodeToString(sum[:])
			if a.typ != "" {
				assets[name] = a
			}
			return nil
		})
	})
	return assets
}

// static answers a vendored asset (name: its path under ~static/): kept
// by every cache for good (its version is in its path), gzipped as
// committed to a reader who takes gzip.
func (r *Reader) static(rd *read, name string) *Response {
	a, ok := staticAssets()[name]
	if !ok {
		return r.notFound(rd, "This file does not exist.")
	}
	resp := rd.resp
	resp.Status, resp.Type, resp.Immutable, resp.Inline = http.StatusOK, a.typ, true, true
	resp.Name, resp.ETag = path.Base(name), a.etag
	if a.gz != nil {
		resp.Encodings = true
		if rd.req.AcceptsGzip {
			resp.Gzip = a.gz
			return resp
		}
	}
	body, err := a.body()
	if err != nil {
		return r.failed(rd, err)
	}
	resp.Body = body
	return resp
}

// staticURL is where the site serves a vendored asset.
func (rd *read) staticURL(name string) string {
	return rd.base + "/~static/" + name
}
