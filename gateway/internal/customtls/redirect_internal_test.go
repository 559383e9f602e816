package customtls

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// A plain HTTP GET or HEAD of a custom hostname goes to the same URL over
// https; anything else, or a request without a host, is refused.
func TestRedirectToHTTPS(t *testing.T) {
	for _, tc := range []struct {
		method, target, host string
		status               int
		location             string
	}{
		{http.MethodGet, "/docs/a?q=1", "docs.example.com:80", http.StatusPermanentRedirect, "https://docs.example.com/docs/a?q=1"},
		{http.MethodHead, "/", "docs.example.com", http.StatusPermanentRedirect, "https://docs.example.com/"},
		{http.MethodPost, "/", "docs.example.com", http.StatusBadRequest, ""},
		{http.MethodGet, "/", "", http.StatusBadRequest, ""},
	} {
		r := httptest.NewRequest(tc.method, tc.target, nil)
		r.Host = tc.host
		w := httptest.NewRecorder()
		redirectToHTTPS(w, r)
		if w.Code != tc.status || w.Header().Get("Location") != tc.location {
			t.Errorf("%s %s (host %q) = %d %q, want %d %q", tc.method, tc.target, tc.host, w.Code, w.Header().Get("Location"), tc.status, tc.location)
		}
	}
}
