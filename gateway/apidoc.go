package gateway

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/docspub/platform/libs/apidoc"
	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/httpx"
	"github.com/gin-gonic/gin"
)

// The gateway's own routes (route.GatewayRoutes): the API document and its
// reference page, with the page's assets below DocsPath.
const (
	DocumentPath = "/v1/openapi.json"
	DocsPath     = "/v1/docs"
)

// docsCSP lets the reference page load its script, stylesheet and the
// document from the gateway itself, and nothing else.
const docsCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// docsCacheControl: clients and proxies may keep the files a few minutes and
// then revalidate them by ETag (they change with a new gateway version).
const docsCacheControl = "public, max-age=300"

// docFile is one file the gateway answers itself, ready to serve.
type docFile struct {
	body        []byte
	contentType string
	etag        string
}

// apiDocs holds the API document, with servers set to the gateway's public
// URL, and the reference page's files, by request path.
type apiDocs map[string]docFile

func newAPIDocs(publicURL string) (apiDocs, error) {
	doc, err := apidoc.WithServer(publicURL)
	if err != nil {
		return nil, err
	}
	d := apiDocs{DocumentPath: newDocFile(doc, "application/json")}
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
		if name == "index.html" {
			p = DocsPath
		}
		d[p] = newDocFile(b, ct)
	}
	return d, nil
}

func newDocFile(b []byte, contentType string) docFile {
	sum := sha256.Sum256(b)
	return docFile{body: b, contentType: contentType, etag: `"` + hex.EncodeToString(sum[:16]) + `"`}
}

// owns tells whether p is one of the gateway's own paths.
func (d apiDocs) owns(p string) bool {
	return p == DocumentPath || p == DocsPath || strings.HasPrefix(p, DocsPath+"/")
}

// serve answers GET and HEAD of the document and the reference page without
// a token, with an ETag (If-None-Match gets a 304) and Cache-Control.
func (d apiDocs) serve(c *gin.Context) {
	r := c.Request
	f, ok := d[path.Clean(r.URL.Path)]
	if !ok || path.Clean(r.URL.Path) != r.URL.Path {
		httpx.Error(c, apierr.NotFound("no route for %s %s", r.Method, r.URL.Path))
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		c.Header("Allow", "GET, HEAD")
		httpx.Error(c, apierr.New(http.StatusMethodNotAllowed, "method %s not allowed on %s", r.Method, r.URL.Path))
		return
	}
	h := c.Writer.Header()
	h.Set("Content-Type", f.contentType)
	h.Set("ETag", f.etag)
	h.Set("Cache-Control", docsCacheControl)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", docsCSP)
	h.Set("Referrer-Policy", "no-referrer")
	// ServeContent answers If-None-Match (304), HEAD and ranges.
	http.ServeContent(c.Writer, r, "", time.Time{}, bytes.NewReader(f.body))
}
