package apiref_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/docspub/platform/services/sites/internal/apiref"
)

// platformSpec is the platform's own API document: a real OpenAPI 3.1
// document of 650 kB, with $refs, security schemes and examples.
func platformSpec(t testing.TB) *apiref.Spec {
	t.Helper()
	raw, err := os.ReadFile("../../../../libs/apidoc/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	s, err := apiref.Parse(context.Background(), raw)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return s
}

func TestOperation(t *testing.T) {
	t.Parallel()
	s := platformSpec(t)
	tests := []struct {
		name, path, method string
		want               []string
	}{
		{name: "path parameter, body, responses", path: "/v1/orgs/{organizationId}/collections", method: "post", want: []string{
			`<span class="api-method api-method-post">POST</span> <code class="api-path">/v1/orgs/{organizationId}/collections</code>`,
			`<p class="api-summary">Create a collection</p>`,
			`<code class="api-name">organizationId</code></td><td>path</td><td>string</td><td>Yes</td>`,
			`<h4 class="api-section">Request body</h4>`,
			`<code class="api-name">title</code>`,
			`<span class="api-status">201</span>`,
			`<code class="api-name">bearer</code> http (bearer)`,
			`curl -X POST &#39;http://127.0.0.1:8080/v1/orgs/{organizationId}/collections&#39;`,
			`-H &#39;Authorization: Bearer &lt;token&gt;&#39;`,
			`-H &#39;Content-Type: application/json&#39;`,
		}},
		{name: "query parameters", path: "/v1/orgs/{organizationId}/collections", method: "get", want: []string{
			`<code class="api-name">page</code></td><td>query</td>`,
			`<span class="api-status">200</span>`,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := s.Operation(tc.path, tc.method)
			if !ok {
				t.Fatalf("Operation(%q, %q): none", tc.path, tc.method)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("missing %s in\n%s", w, got)
				}
			}
		})
	}
	if _, ok := s.Operation("/v1/nowhere", "get"); ok {
		t.Error("an operation the document has not was rendered")
	}
	if _, ok := s.Operation("/v1/orgs/{organizationId}/collections", "trace"); ok {
		t.Error("a method the path has not was rendered")
	}
}

func TestSchemas(t *testing.T) {
	t.Parallel()
	s := platformSpec(t)
	got, ok := s.Schemas([]string{"Collection", "Nothing"})
	if !ok {
		t.Fatal("Schemas: none")
	}
	for _, w := range []string{`<p class="api-schema-name"><code>Collection</code></p>`, `<code class="api-name">id</code>`} {
		if !strings.Contains(got, w) {
			t.Errorf("missing %s in\n%s", w, got)
		}
	}
	if _, ok := s.Schemas([]string{"Nothing"}); ok {
		t.Error("a schema the document has not was rendered")
	}
}

// petstore is a YAML document with a shared parameter, a $ref'd schema,
// an example, a GitBook tag and raw HTML in descriptions.
const petstore = `openapi: 3.0.3
info: {title: Petstore, version: "1"}
servers: [{url: "https://pets.example.com/v1/"}]
components:
  securitySchemes:
    key: {type: apiKey, in: header, name: X-API-Key}
  parameters:
    PetID: {name: petId, in: path, required: true, schema: {type: integer, format: int64}, description: "The pet's **id**."}
  schemas:
    Pet:
      type: object
      required: [name]
      properties:
        name: {type: string, description: "Name <script>alert(1)</script>"}
        tags: {type: array, items: {$ref: "#/components/schemas/Tag"}}
    Tag:
      type: object
      properties:
        label: {type: string}
paths:
  /pets/{petId}:
    parameters: [{$ref: "#/components/parameters/PetID"}]
    put:
      summary: Update a pet
      description: |
        {% hint style="info" %}
        Replaces the pet.
        {% endhint %}
      security: [{key: []}]
      parameters:
        - {name: dryRun, in: query, required: true, schema: {type: boolean}}
      requestBody:
        content:
          application/json:
            schema: {$ref: "#/components/schemas/Pet"}
            example: {name: Rex}
      responses:
        "200":
          description: The pet.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Pet"}
        default: {description: An error.}
`

func TestOperationYAML(t *testing.T) {
	t.Parallel()
	s, err := apiref.Parse(context.Background(), []byte(petstore))
	if err != nil {
		t.Fatal(err)
	}
	got, ok := s.Operation("/pets/{petId}", "put")
	if !ok {
		t.Fatal("Operation: none")
	}
	for _, w := range []string{
		`<code class="api-name">petId</code></td><td>path</td><td>integer (int64)</td><td>Yes</td><td><div class="api-description"><p>The pet's <strong>id</strong>.</p>`,
		`<code class="api-name">dryRun</code></td><td>query</td><td>boolean</td><td>Yes</td>`,
		`<code class="api-name">name</code></td><td>string</td><td>Yes</td>`,
		`<code class="api-name">tags</code></td><td>array of Tag</td><td>No</td>`,
		`<code class="api-name">tags[].label</code>`,
		`<span class="api-status">200</span> The pet.`, `<span class="api-status">default</span> An error.`,
		`<p>Replaces the pet.</p>`,
		`<code class="api-name">key</code> apiKey (X-API-Key in header)`,
		"curl -X PUT &#39;https://pets.example.com/v1/pets/{petId}?dryRun=dryRun&#39; \\\n  -H &#39;X-API-Key: &lt;api key&gt;&#39; \\\n" +
			"  -H &#39;Content-Type: application/json&#39; \\\n  --data &#39;{&#34;name&#34;:&#34;Rex&#34;}&#39;",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("missing %s in\n%s", w, got)
		}
	}
	for _, bad := range []string{"<script>", "{%", "%}"} {
		if strings.Contains(got, bad) {
			t.Errorf("%s shown in\n%s", bad, got)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		raw  []byte
	}{
		{name: "too large", raw: []byte(strings.Repeat(" ", apiref.MaxSpecBytes+1))},
		{name: "not OpenAPI", raw: []byte("title: a page\n")},
		{name: "Swagger 1.2", raw: []byte(`{"swaggerVersion":"1.2","apis":[]}`)},
		{name: "not YAML", raw: []byte("{{{")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if s, err := apiref.Parse(context.Background(), tc.raw); err == nil {
				t.Errorf("Parse: %v, no error", s)
			}
		})
	}
}

// A document within MaxSpecBytes but over a bound of its structure (a YAML
// alias bomb, a chain of $refs) is refused before the parse, which could
// not be stopped once begun, as integrations refuses to store it.
func TestParseBoundsADocumentFirst(t *testing.T) {
	t.Parallel()
	var bomb strings.Builder
	bomb.WriteString("openapi: 3.0.3\ninfo: {title: a, version: '1'}\npaths: {}\nx0: &x0 [a, a, a, a, a, a, a, a, a]\n")
	for i := 1; i < 9; i++ {
		fmt.Fprintf(&bomb, "x%d: &x%d [*x%d, *x%d, *x%d, *x%d, *x%d, *x%d, *x%d, *x%d, *x%d]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	var chain strings.Builder
	chain.WriteString(`{"openapi":"3.0.3","info":{"title":"a","version":"1"},"paths":{},"components":{"schemas":{`)
	for i := range 600 {
		fmt.Fprintf(&chain, `"S%d":{"properties":{"next":{"$ref":"#/components/schemas/S%d"}}},`, i, i+1)
	}
	chain.WriteString(`"S600":{"type":"string"}}}}`)
	for name, raw := range map[string]string{"an alias bomb": bomb.String(), "a chain of 600 $refs": chain.String()} {
		if _, err := apiref.Parse(context.Background(), []byte(raw)); !errors.Is(err, apiref.ErrTooLarge) {
			t.Errorf("%s: %v, want ErrTooLarge", name, err)
		}
	}
}
