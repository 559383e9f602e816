package gitbookmd

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The API reference blocks as GitBook's own pages write them
// (GitbookIO/public-docs: create-content/openapi/README.md,
// skill/write-openapi.md, how-to-write-incredible-api-documentation.md),
// and the {% swagger %} form of older GitBook pages.
const (
	pdOpenAPI = "{% openapi src=\"https://petstore3.swagger.io/api/v3/openapi.json\" path=\"/pet\" method=\"post\" %}\n" +
		"[https://petstore3.swagger.io/api/v3/openapi.json](https://petstore3.swagger.io/api/v3/openapi.json)\n{% endopenapi %}\n"
	pdOperation = "{% openapi-operation spec=\"gitbook\" path=\"/\" method=\"get\" %}\n" +
		"[OpenAPI gitbook](https://api.gitbook.com/openapi.yaml)\n{% endopenapi-operation %}\n"
	pdSchemas = "{% openapi-schemas spec=\"petstore\" schemas=\"Pet\" grouped=\"false\" %}\nThe Pet object\n{% endopenapi-schemas %}\n"
	pdSwagger = "{% swagger src=\"../.gitbook/assets/petstore.yaml\" path=\"/pets/{petId}\" method=\"PUT\" %}\n" +
		"[petstore.yaml](../.gitbook/assets/petstore.yaml)\n{% endswagger %}\n"
)

func TestAPIBlocks(t *testing.T) {
	r := New()
	for _, tc := range []struct {
		name, src string
		want      APIRef
	}{
		{name: "openapi from a URL", src: pdOpenAPI,
			want: APIRef{Src: "https://petstore3.swagger.io/api/v3/openapi.json", Path: "/pet", Method: "post"}},
		{name: "openapi-operation of a stored spec", src: pdOperation, want: APIRef{Spec: "gitbook", Path: "/", Method: "get"}},
		{name: "openapi-schemas", src: pdSchemas, want: APIRef{Spec: "petstore", Schemas: []string{"Pet"}}},
		{name: "swagger from a file", src: pdSwagger,
			want: APIRef{Src: "../.gitbook/assets/petstore.yaml", Path: "/pets/{petId}", Method: "put"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []APIRef
			html := r.Render("Before.\n\n"+tc.src+"\nAfter.\n", Options{Links: pdLinks, API: func(ref APIRef) string {
				got = append(got, ref)
				return `<section class="api-operation">rendered</section>`
			}}).HTML
			if diff := cmp.Diff([]APIRef{tc.want}, got); diff != "" {
				t.Errorf("refs (-want +got):\n%s", diff)
			}
			if !strings.Contains(html, `<section class="api-operation">rendered</section>`) || strings.Contains(html, "{%") ||
				!strings.Contains(html, "<p>After.</p>") {
				t.Errorf("got\n%s", html)
			}
		})
	}
}

// TestAPIBlockCards: a block whose operation is not rendered (no API, or
// attributes past their bounds) is a card of what it holds, never its
// tags as text.
func TestAPIBlockCards(t *testing.T) {
	r := New()
	for _, tc := range []struct {
		name, src string
		api       func(APIRef) string
		want      []string
	}{
		{name: "no rendering", src: pdOpenAPI, api: func(APIRef) string { return "" },
			want: []string{`<div class="api-card card"><p class="api-card-title">API reference: POST /pet</p>`,
				`<a href="https://petstore3.swagger.io/api/v3/openapi.json" rel="nofollow">https://petstore3.swagger.io/api/v3/openapi.json</a>`}},
		{name: "no API", src: pdSchemas, want: []string{`<p class="api-card-title">API reference</p>`, "The Pet object"}},
		{name: "a method that is none", src: strings.Replace(pdOperation, `"get"`, `"fetch"`, 1),
			api: func(APIRef) string { t.Error("API called"); return "x" }, want: []string{`<div class="api-card card">`}},
		{name: "a path too long", src: strings.Replace(pdOperation, `path="/"`, `path="/`+strings.Repeat("a", MaxAPIPath)+`"`, 1),
			api: func(APIRef) string { t.Error("API called"); return "x" }, want: []string{`<p class="api-card-title">API reference</p>`}},
		{name: "a leaf tag", src: "{% swagger src=\"https://x.example/s.json\" path=\"/a\" method=\"get\" %}\n\nText.\n",
			want: []string{`API reference: GET /a`, "<p>Text.</p>"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := r.Render(tc.src, Options{Links: pdLinks, API: tc.api}).HTML
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("lacks %q in:\n%s", w, got)
				}
			}
			if strings.Contains(got, "{%") || strings.Contains(got, "%}") {
				t.Errorf("tags shown as text:\n%s", got)
			}
		})
	}
}
