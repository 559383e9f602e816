package apidoc_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/docspub/platform/libs/apidoc/apidoctest"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

var pathParam = regexp.MustCompile(`\{[^}]+\}`)

// TestRequestExamples sends every documented request body example, as a
// client would, through the document's own request validation (path,
// query, body): each operation's example is a request the document accepts.
func TestRequestExamples(t *testing.T) {
	doc := apidoctest.Load(t)
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	server := doc.Servers[0].URL
	n := 0
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.RequestBody == nil || op.RequestBody.Value.Content.Get("application/json") == nil {
				continue
			}
			media := op.RequestBody.Value.Content.Get("application/json")
			if media.Example == nil {
				t.Errorf("%s %s (%s): no request example", method, path, op.OperationID)
				continue
			}
			n++
			body, err := json.Marshal(media.Example)
			if err != nil {
				t.Fatal(err)
			}
			if err := validate(router, server, method, path, op, body); err != nil {
				t.Errorf("%s %s (%s): example %s rejected: %v", method, path, op.OperationID, body, err)
			}
		}
	}
	if n < 50 {
		t.Errorf("%d operations with a request example; want every one with a body", n)
	}

	// The same validation refuses what the document's limits refuse.
	for _, tc := range []struct {
		method, path, body string
	}{
		{"POST", "/v1/orgs/{organizationId}/collections", `{"title":"` + strings.Repeat("x", 51) + `"}`},
		{"POST", "/v1/orgs/{organizationId}/sites/{siteId}/share-links", `{}`},
		{"PATCH", "/v1/spaces/{spaceId}/change-requests/{changeRequestId}", `{"subject":"` + strings.Repeat("x", 101) + `"}`},
	} {
		op := doc.Paths.Find(tc.path).GetOperation(tc.method)
		if err := validate(router, server, tc.method, tc.path, op, []byte(tc.body)); err == nil {
			t.Errorf("%s %s: %s accepted", tc.method, tc.path, tc.body)
		}
	}
}

// validate builds the request of an operation with body (path parameters
// and required query parameters from their examples) and validates it.
func validate(router routers.Router, server, method, path string, op *openapi3.Operation, body []byte) error {
	q := url.Values{}
	for _, p := range op.Parameters {
		if p.Value.In == openapi3.ParameterInQuery && p.Value.Required {
			q.Set(p.Value.Name, fmt.Sprint(p.Value.Example))
		}
	}
	target := server + pathParam.ReplaceAllString(path, "x1")
	if len(q) > 0 {
		target += "?" + q.Encode()
	}
	req := httptest.NewRequest(method, target, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer example-token")
	route, params, err := router.FindRoute(req)
	if err != nil {
		return fmt.Errorf("find route: %w", err)
	}
	return openapi3filter.ValidateRequest(context.Background(), &openapi3filter.RequestValidationInput{
		Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true},
	})
}
