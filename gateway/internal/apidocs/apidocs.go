// Package apidocs serves the gateway's own operations: the API document
// (libs/apidoc), with servers set to the gateway's public URL, and its
// reference page, both without a token.
package apidocs

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/docspub/platform/libs/apidoc"
	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/httpx"
	"github.com/gin-gonic/gin"
)

// The gateway's own operations (x-service gateway): the API document and
// its reference page, with the page's assets below DocsPath.
const (
	DocumentPath = "/v1/openapi.json"
	DocsPath     = "/v1/docs"
)

// pageCSP is the reference page's policy, %s its nonce: it runs only the
// scripts it names, each carrying the answer's nonce, never a script by
// its origin ('self'), which also serves tenants' files (a published
// site's); it loads its stylesheet and the document from the gateway.
const pageCSP = "default-src 'none'; script-src 'nonce-%s'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// filesCSP is the policy of the page's other files, which are no pages.
const filesCSP = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// docsCacheControl: clients and proxies may keep the files a few minutes and
// then revalidate them by ETag (they change with a new gateway version).
const docsCacheControl = "public, max-age=300"

// docFile is one file the gateway answers itself, ready to serve.
type docFile struct {
	body        []byte
	contentType string
	etag        string
	// page: the reference page, whose scripts get a nonce per answer.
	page bool
}

// Files are the API document, with servers set to the gateway's public
// URL, and the reference page's files, by request path.
type Files map[string]docFile

// New returns the files, the document's servers set to publicURL.
func New(publicURL string) (Files, error) {
	doc, err := apidoc.WithServer(publicURL)
	if err != nil {
		return nil, err
	}
	d := Files{DocumentPath: newDocFile(doc, "application/json")}
	files, err := apidoc.Reference()
	if err != nil {
		return nil, err
	}
	for name, ct := range map[string]string{
		"index.html":                       "text/html; charset=utf-8",
		"init.js":                          "text/javascript; charset=utf-8",
		"swagger-ui-bundle.js":             "text/javascript; charset=utf-8",
		"swagger-ui.css":                   "text/css; charset=utf-8",
		"LICENSE":                          "text/plain; charset=utf-8",
		"NOTICE":                           "text/plain; charset=utf-8",
		"swagger-ui-bundle.js.LICENSE.txt": "text/plain; charset=utf-8",
	} {
		b, err := fs.ReadFile(files, name)
		if err != nil {
			return nil, fmt.Errorf("reference page: %w", err)
		}
		p := DocsPath + "/" + name
		f := newDocFile(b, ct)
		if name == "index.html" {
			p, f.page, f.etag = DocsPath, true, ""
		}
		d[p] = f
	}
	return d, nil
}

func newDocFile(b []byte, contentType string) docFile {
	sum := sha256.Sum256(b)
	return docFile{body: b, contentType: contentType, etag: `"` + hex.EncodeToString(sum[:16]) + `"`}
}

// Owns tells whether p is one of the gateway's own paths.
func (d Files) Owns(p string) bool {
	return p == DocumentPath || p == DocsPath || strings.HasPrefix(p, DocsPath+"/")
}

// Serve answers GET and HEAD of the document and the reference page without
// a token: the files with an ETag (If-None-Match gets a 304) and
// Cache-Control, the page (servePage) kept by no cache.
func (d Files) Serve(c *gin.Context) {
	r := c.Request
	f, ok := d[path.Clean(r.URL.Path)]
	if !ok || path.Clean(r.URL.Path) != r.URL.Path {
		httpx.Error(c, apierr.NotFound("no route for %s %s", r.Method, r.URL.Path))
		return
	}
	if !httpx.OnlyReads(c) {
		return
	}
	h := c.Writer.Header()
	h.Set("Content-Type", f.contentType)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	if f.page {
		servePage(c, f)
		return
	}
	h.Set("ETag", f.etag)
	h.Set("Cache-Control", docsCacheControl)
	h.Set("Content-Security-Policy", filesCSP)
	// ServeFile answers If-None-Match (304), HEAD and ranges.
	httpx.ServeFile(c.Writer, r, "", bytes.NewReader(f.body))
}

// servePage answers the reference page with a nonce of its own: on each
// of its scripts and in its policy, the only scripts it runs. It is kept
// by no cache (a nonce is for one answer).
func servePage(c *gin.Context, f docFile) {
	var n [18]byte
	if _, err := rand.Read(n[:]); err != nil {
		httpx.Error(c, fmt.Errorf("reference page nonce: %w", err))
		return
	}
	nonce := base64.StdEncoding.EncodeToString(n[:])
	h := c.Writer.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", fmt.Sprintf(pageCSP, nonce))
	body := bytes.ReplaceAll(f.body, []byte("<script "), []byte(`<script nonce="`+nonce+`" `))
	httpx.ServeFile(c.Writer, c.Request, "", bytes.NewReader(body))
}
