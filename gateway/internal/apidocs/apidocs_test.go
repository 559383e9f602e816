package apidocs_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/docspub/platform/gateway/internal/apidocs"
	"github.com/gin-gonic/gin"
)

func TestServe(t *testing.T) {
	if _, err := apidocs.New("docs.example.com"); err == nil {
		t.Error("New accepted a public URL that is no absolute URL")
	}
	files, err := apidocs.New("https://docs.example.com")
	if err != nil {
		t.Fatal(err)
	}
	gin.SetMode(gin.TestMode)
	e := gin.New()
	e.NoRoute(files.Serve)
	tests := []struct {
		method, path string
		owns         bool
		want         int
		contains     string
	}{
		{method: "GET", path: apidocs.DocumentPath, owns: true, want: 200, contains: `"url":"https://docs.example.com"`},
		{method: "HEAD", path: apidocs.DocumentPath, owns: true, want: 200},
		{method: "POST", path: apidocs.DocumentPath, owns: true, want: 405},
		{method: "GET", path: apidocs.DocsPath, owns: true, want: 200, contains: `<script nonce="`},
		{method: "GET", path: apidocs.DocsPath + "/init.js", owns: true, want: 200},
		{method: "GET", path: apidocs.DocsPath + "/nothing.js", owns: true, want: 404},
		{method: "GET", path: apidocs.DocsPath + "/../openapi.json", owns: true, want: 404},
		{method: "GET", path: "/v1/spaces", want: 404},
	}
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			if got := files.Owns(tc.path); got != tc.owns {
				t.Errorf("Owns = %v, want %v", got, tc.owns)
			}
			w := httptest.NewRecorder()
			e.ServeHTTP(w, httptest.NewRequest(tc.method, tc.path, nil))
			if w.Code != tc.want {
				t.Fatalf("status %d, want %d: %.200s", w.Code, tc.want, w.Body)
			}
			if tc.contains != "" && !strings.Contains(w.Body.String(), tc.contains) {
				t.Errorf("body lacks %s: %.300s", tc.contains, w.Body)
			}
			if tc.want == http.StatusMethodNotAllowed && w.Header().Get("Allow") != "GET, HEAD" {
				t.Errorf("Allow = %q", w.Header().Get("Allow"))
			}
		})
	}
}
