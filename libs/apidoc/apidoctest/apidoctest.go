// Package apidoctest loads the API document (libs/apidoc) with kin-openapi,
// an OpenAPI 3.1 library: every $ref resolved, the document validated. Tests
// use it to check the document and to validate requests against it; it is
// kept apart from apidoc so that the services' binaries do not carry it.
package apidoctest

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/docspub/platform/libs/apidoc"
	"github.com/getkin/kin-openapi/openapi3"
)

// Document parses the document, resolves every $ref (all are internal: a
// reference to another file is refused) and validates it as OpenAPI 3.1.
func Document(ctx context.Context) (*openapi3.T, error) {
	l := openapi3.NewLoader()
	l.Context = ctx
	l.IsExternalRefsAllowed = false
	doc, err := l.LoadFromData(apidoc.JSON())
	if err != nil {
		return nil, fmt.Errorf("load the API document: %w", err)
	}
	if err := doc.Validate(ctx); err != nil {
		return nil, fmt.Errorf("validate the API document: %w", err)
	}
	return doc, nil
}

var (
	once   sync.Once
	loaded *openapi3.T
	errDoc error
)

// Load returns the loaded and validated document, loaded once per test
// binary; it fails the test when the document does not load. Callers must not
// modify it.
func Load(t testing.TB) *openapi3.T {
	t.Helper()
	once.Do(func() { loaded, errDoc = Document(context.Background()) })
	if errDoc != nil {
		t.Fatal(errDoc)
	}
	return loaded
}
