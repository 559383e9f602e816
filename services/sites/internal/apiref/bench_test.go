package apiref_test

import (
	"context"
	"os"
	"testing"

	"github.com/docspub/platform/services/sites/internal/apiref"
)

// BenchmarkParse parses the platform's own API document (650 kB of JSON).
func BenchmarkParse(b *testing.B) {
	raw, err := os.ReadFile("../../../../libs/apidoc/openapi.json")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if _, err := apiref.Parse(context.Background(), raw); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOperation renders one operation of it (a body, eight responses).
func BenchmarkOperation(b *testing.B) {
	s := platformSpec(b)
	for b.Loop() {
		if _, ok := s.Operation("/v1/orgs/{organizationId}/collections", "post"); !ok {
			b.Fatal("no operation")
		}
	}
}

// BenchmarkParseSwagger2 parses the Swagger Petstore (25 kB of Swagger
// 2.0 JSON) and reads it as OpenAPI 3.
func BenchmarkParseSwagger2(b *testing.B) {
	raw, err := os.ReadFile("testdata/petstore-v2.json")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if _, err := apiref.Parse(context.Background(), raw); err != nil {
			b.Fatal(err)
		}
	}
}
