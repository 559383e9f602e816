package httpx_test

import (
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
