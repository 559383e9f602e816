package httpx_test

import (
	"crypto/sha256"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/logx"
	"github.com/gin-gonic/gin"
)

// TestETag: a JSON answer to GET carries a strong ETag of its body; a GET
// naming it in If-None-Match is a 304 with no body; another body has
// another ETag; errors, other methods, answers with an ETag of their own
// and answers that are not JSON pass untouched.
func TestETag(t *testing.T) {
	t.Parallel()
	e := httpx.NewEngine(logx.Discard(), "test")
	title := "Acme"
	e.GET("/org", func(c *gin.Context) { c.JSON(http.StatusOK, gin.H{"title": title}) })
	e.POST("/org", func(c *gin.Context) { c.JSON(http.StatusOK, gin.H{"title": title}) })
	e.GET("/missing", func(c *gin.Context) { httpx.Error(c, apierr.NotFound("no such thing")) })
	e.GET("/text", func(c *gin.Context) { c.String(http.StatusOK, "plain") })
	e.GET("/own", func(c *gin.Context) { c.Header("ETag", `"mine"`); c.JSON(http.StatusOK, gin.H{"a": 1}) })
	do := func(method, path, inm string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, path, nil)
		if inm != "" {
			req.Header.Set("If-None-Match", inm)
		}
		w := httptest.NewRecorder()
		e.ServeHTTP(w, req)
		return w
	}

	first := do("GET", "/org", "")
	etag := first.Header().Get("ETag")
	if first.Code != 200 || !strings.HasPrefix(etag, `"`) || first.Body.String() != `{"title":"Acme"}` {
		t.Fatalf("GET: %d ETag %q body %q", first.Code, etag, first.Body)
	}
	// Its length is said (a proxy in front relays it whole, not chunked).
	if got := first.Header().Get("Content-Length"); got != "16" {
		t.Errorf("GET: Content-Length %q, want 16", got)
	}
	for _, inm := range []string{etag, "W/" + etag, `"x", ` + etag, "*"} {
		if w := do("GET", "/org", inm); w.Code != http.StatusNotModified || w.Body.Len() != 0 || w.Header().Get("ETag") != etag {
			t.Errorf("If-None-Match %s: %d, %d bytes, ETag %q", inm, w.Code, w.Body.Len(), w.Header().Get("ETag"))
		}
	}
	if w := do("GET", "/org", `"other"`); w.Code != 200 || w.Body.String() != `{"title":"Acme"}` {
		t.Errorf("another ETag: %d %q", w.Code, w.Body)
	}
	title = "Acme 2"
	if w := do("GET", "/org", etag); w.Code != 200 || w.Header().Get("ETag") == etag {
		t.Errorf("after a change: %d, ETag %q", w.Code, w.Header().Get("ETag"))
	}
	if w := do("POST", "/org", etag); w.Code != 200 || w.Header().Get("ETag") != "" {
		t.Errorf("POST: %d ETag %q", w.Code, w.Header().Get("ETag"))
	}
	if w := do("GET", "/missing", "*"); w.Code != 404 || w.Header().Get("ETag") != "" || !strings.Contains(w.Body.String(), "no such thing") {
		t.Errorf("404: %d ETag %q %s", w.Code, w.Header().Get("ETag"), w.Body)
	}
	if w := do("GET", "/text", "*"); w.Code != 200 || w.Body.String() != "plain" || w.Header().Get("ETag") != "" {
		t.Errorf("text: %d %q", w.Code, w.Body)
	}
	if w := do("GET", "/own", `"mine"`); w.Code != 200 || w.Header().Get("ETag") != `"mine"` {
		t.Errorf("own ETag: %d %q", w.Code, w.Header().Get("ETag"))
	}
	if w := do("GET", "/healthz", ""); w.Code != 200 || !strings.Contains(w.Body.String(), "ok") {
		t.Errorf("healthz: %d %s", w.Code, w.Body)
	}
}

// TestETagReadFrom: a file served through the ETag middleware (copied by
// http.ServeContent into the writer's ReadFrom) arrives whole, with its
// length, its range, and no ETag of the middleware's; a JSON answer
// copied in with ReadFrom is still held and given its ETag.
func TestETagReadFrom(t *testing.T) {
	t.Parallel()
	e := httpx.NewEngine(logx.Discard(), "test")
	file := strings.Repeat("0123456789", 10_000) // 100 kB: several buffers
	e.GET("/file", func(c *gin.Context) {
		c.Header("Content-Type", "image/png")
		httpx.ServeFile(c.Writer, c.Request, "", strings.NewReader(file))
	})
	e.GET("/json", func(c *gin.Context) {
		c.Header("Content-Type", "application/json")
		n, err := c.Writer.(io.ReaderFrom).ReadFrom(strings.NewReader(`{"a":1}`))
		if n != 7 || err != nil {
			t.Errorf("ReadFrom = %d, %v", n, err)
		}
	})
	do := func(path string, header ...string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("GET", path, nil)
		for i := 0; i < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		w := httptest.NewRecorder()
		e.ServeHTTP(w, req)
		return w
	}
	if w := do("/file"); w.Code != 200 || w.Body.String() != file || w.Header().Get("Content-Length") != "100000" || w.Header().Get("ETag") != "" {
		t.Errorf("file: %d, %d bytes, Content-Length %q, ETag %q", w.Code, w.Body.Len(), w.Header().Get("Content-Length"), w.Header().Get("ETag"))
	}
	if w := do("/file", "Range", "bytes=10-19"); w.Code != http.StatusPartialContent || w.Body.String() != "0123456789" {
		t.Errorf("range: %d %q", w.Code, w.Body)
	}
	w := do("/json")
	if w.Code != 200 || w.Body.String() != `{"a":1}` || w.Header().Get("ETag") == "" {
		t.Fatalf("json: %d %q ETag %q", w.Code, w.Body, w.Header().Get("ETag"))
	}
	if nm := do("/json", "If-None-Match", w.Header().Get("ETag")); nm.Code != http.StatusNotModified || nm.Body.Len() != 0 {
		t.Errorf("json revalidated: %d, %d bytes", nm.Code, nm.Body.Len())
	}
}

// TestKeptJSON: a JSON answer encoded before answers as ETag() answers
// the same value encoded on the spot: the same body, ETag and length, and
// a 304 without a body for a client holding it.
func TestKeptJSON(t *testing.T) {
	t.Parallel()
	v := gin.H{"title": "Acme <&>", "items": []int{1, 2, 3}}
	body, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	e := httpx.NewEngine(logx.Discard(), "test")
	e.GET("/encoded", func(c *gin.Context) { c.JSON(http.StatusOK, v) })
	e.GET("/kept", func(c *gin.Context) { httpx.KeptJSON(c, body, sha256.Sum256(body)) })
	do := func(path, inm string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("GET", path, nil)
		req.Header.Set("If-None-Match", inm)
		w := httptest.NewRecorder()
		e.ServeHTTP(w, req)
		return w
	}
	want, got := do("/encoded", ""), do("/kept", "")
	for _, name := range []string{"ETag", "Content-Type", "Content-Length"} {
		if got.Header().Get(name) != want.Header().Get(name) || want.Header().Get(name) == "" {
			t.Errorf("%s: %q, encoded on the spot %q", name, got.Header().Get(name), want.Header().Get(name))
		}
	}
	if got.Code != 200 || got.Body.String() != want.Body.String() {
		t.Fatalf("kept: %d %q, encoded on the spot %q", got.Code, got.Body, want.Body)
	}
	if w := do("/kept", want.Header().Get("ETag")); w.Code != http.StatusNotModified || w.Body.Len() != 0 {
		t.Errorf("If-None-Match: %d, %d bytes", w.Code, w.Body.Len())
	}
}
