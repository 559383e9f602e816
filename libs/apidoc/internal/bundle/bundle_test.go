package bundle_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/docspub/platform/libs/apidoc/internal/bundle"
	"github.com/google/go-cmp/cmp"
)

const root = "openapi: 3.1.0\ninfo:\n  title: t\n  version: '1'\n"

func TestBundle(t *testing.T) {
	fsys := fstest.MapFS{
		"openapi.yaml": {Data: []byte(root)},
		"content/spaces.yaml": {Data: []byte(`paths:
  /v1/spaces/{spaceId}:
    get:
      operationId: getSpace
      x-service: content
      responses:
        '200':
          $ref: '#/components/responses/Space'
components:
  responses:
    Space:
      description: <the space> & more
`)},
		"content/more.yaml": {Data: []byte(`paths:
  /v1/spaces/{spaceId}:
    delete:
      operationId: deleteSpace
      x-service: content
      responses:
        '204':
          description: gone
`)},
		"components/schemas.yaml": {Data: []byte("components:\n  schemas:\n    Id:\n      type: string\n      maxLength: 64\n")},
		"README.md":               {Data: []byte("not a part")},
	}
	b, err := bundle.Bundle(fsys)
	if err != nil {
		t.Fatal(err)
	}
	var got any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"openapi": "3.1.0",
		"info":    map[string]any{"title": "t", "version": "1"},
		"paths": map[string]any{"/v1/spaces/{spaceId}": map[string]any{
			"get": map[string]any{"operationId": "getSpace", "x-service": "content",
				"responses": map[string]any{"200": map[string]any{"$ref": "#/components/responses/Space"}}},
			"delete": map[string]any{"operationId": "deleteSpace", "x-service": "content",
				"responses": map[string]any{"204": map[string]any{"description": "gone"}}},
		}},
		"components": map[string]any{
			"responses": map[string]any{"Space": map[string]any{"description": "<the space> & more"}},
			"schemas":   map[string]any{"Id": map[string]any{"type": "string", "maxLength": float64(64)}},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("bundle (-want +got):\n%s", diff)
	}
	again, err := bundle.Bundle(fsys)
	if err != nil || string(again) != string(b) {
		t.Errorf("a second bundle differs (%v)", err)
	}
	if !strings.Contains(string(b), "<the space> & more") {
		t.Errorf("HTML characters escaped:\n%s", b)
	}
}

func TestBundleRefuses(t *testing.T) {
	op := func(service string) []byte {
		return []byte("paths:\n  /v1/a:\n    get:\n      operationId: a\n      x-service: " + service + "\n")
	}
	tests := []struct {
		name  string
		files fstest.MapFS
		want  string
	}{
		{name: "no root", files: fstest.MapFS{"content/a.yaml": {Data: op("content")}}, want: "openapi.yaml"},
		{name: "paths in the root", files: fstest.MapFS{"openapi.yaml": {Data: []byte(root + "paths: {}\n")}}, want: "belong in the other files"},
		{name: "operation twice", files: fstest.MapFS{"content/a.yaml": {Data: op("content")}, "content/b.yaml": {Data: op("content")}},
			want: "GET /v1/a is defined twice"},
		{name: "component twice", files: fstest.MapFS{
			"components/a.yaml": {Data: []byte("components:\n  schemas:\n    X: {type: string}\n")},
			"content/b.yaml":    {Data: []byte("components:\n  schemas:\n    X: {type: number}\n")}},
			want: "component schemas/X is defined twice"},
		{name: "another service's operation", files: fstest.MapFS{"sites/a.yaml": {Data: op("content")}}, want: "x-service content in the folder of sites"},
		{name: "operation among the shared components", files: fstest.MapFS{"components/a.yaml": {Data: op("content")}}, want: "holds no operations"},
		{name: "part outside a folder", files: fstest.MapFS{"a.yaml": {Data: op("content")}}, want: "belongs in a service's folder"},
		{name: "unknown key", files: fstest.MapFS{"content/a.yaml": {Data: []byte("tags: []\n")}}, want: `"tags": a part holds only paths and components`},
		{name: "not YAML", files: fstest.MapFS{"content/a.yaml": {Data: []byte("paths: [\n")}}, want: "content/a.yaml"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, ok := tc.files["openapi.yaml"]; !ok && tc.name != "no root" {
				tc.files["openapi.yaml"] = &fstest.MapFile{Data: []byte(root)}
			}
			_, err := bundle.Bundle(tc.files)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Bundle: %v, want an error with %q", err, tc.want)
			}
		})
	}
}

// BenchmarkBundle is go generate's cost of bundling the document's sources.
func BenchmarkBundle(b *testing.B) {
	fsys := os.DirFS("../../src")
	for b.Loop() {
		if _, err := bundle.Bundle(fsys); err != nil {
			b.Fatal(err)
		}
	}
}
