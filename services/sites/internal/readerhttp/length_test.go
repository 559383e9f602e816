package readerhttp_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/docspub/platform/services/sites/internal/contentclient/contenttest"
)

// TestPageLength: a page larger than the 2 KiB net/http buffers before it
// chunks an answer carries its length, plain and gzipped, as its HEAD
// does (gin's Data sets it), so that the gateway's proxy does not take
// it for a stream and flush each piece it reads.
func TestPageLength(t *testing.T) {
	e := newEnv(t)
	e.content.AddSpace("sp1", "acme", "Handbook", contenttest.Doc("p1", "Welcome", "welcome", strings.Repeat("Many words here. ", 2000)))
	_, url := e.site(`{"title":"Docs","spaces":["sp1"]}`)
	for _, enc := range []string{"", "gzip"} {
		h := map[string]string{"Accept-Encoding": enc}
		get := e.readWith(http.MethodGet, url, h, returning...)
		if get.status != 200 || len(get.body) <= 2048 {
			t.Fatalf("%q: %d, %d bytes", enc, get.status, len(get.body))
		}
		if cl := get.header.Get("Content-Length"); cl != strconv.Itoa(len(get.body)) {
			t.Errorf("%q: Content-Length %q, body %d bytes", enc, cl, len(get.body))
		}
		if head := e.readWith(http.MethodHead, url, h, returning...); head.header.Get("Content-Length") != get.header.Get("Content-Length") {
			t.Errorf("%q: HEAD Content-Length %q, GET %q", enc, head.header.Get("Content-Length"), get.header.Get("Content-Length"))
		}
	}
}
