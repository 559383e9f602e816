package main

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestProbe(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/readyz" {
			w.WriteHeader(http.StatusOK)
			return
		}
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	if err := probe(srv.URL + "/readyz"); err != nil {
		t.Errorf("probe of a ready server = %v", err)
	}
	if err := probe(srv.URL + "/down"); err == nil {
		t.Error("probe of a 503 succeeded")
	}
	if err := probe("http://127.0.0.1:1/readyz"); err == nil {
		t.Error("probe of nothing succeeded")
	}
}
