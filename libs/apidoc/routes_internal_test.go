package apidoc

import (
	"strings"
	"testing"
)

func TestReadRoutesRefuses(t *testing.T) {
	tests := []struct {
		name, doc, want string
	}{
		{name: "no service", doc: `{"paths":{"/v1/a":{"get":{}}}}`, want: "no x-service"},
		{name: "rest not last", doc: `{"paths":{"/v1/{a}/b":{"get":{"x-service":"s","parameters":[{"name":"a","in":"path","x-docspub-rest":true}]}}}}`,
			want: "not the last path parameter"},
		{name: "rest in query", doc: `{"paths":{"/v1/{a}":{"get":{"x-service":"s","parameters":[{"name":"a","in":"query","x-docspub-rest":true}]}}}}`,
			want: "not the last path parameter"},
		{name: "not JSON", doc: `{"paths":`, want: "apidoc"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readRoutes([]byte(tc.doc))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("readRoutes: %v, want an error with %q", err, tc.want)
			}
		})
	}
}

// BenchmarkReadRoutes is the gateway's start-up cost of reading its routes
// from the document (once per process).
func BenchmarkReadRoutes(b *testing.B) {
	for b.Loop() {
		if _, err := readRoutes(document); err != nil {
			b.Fatal(err)
		}
	}
}
