package apiref_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/docspub/platform/services/sites/internal/apiref"
)

// swagger2 is a Swagger 2.0 document in YAML: schemes, host and basePath,
// a path parameter shared by the path, query, header and form parameters,
// an "in: body" parameter, a $ref'd definition, a response example,
// security definitions, and raw HTML in a description.
const swagger2 = `swagger: "2.0"
info: {title: Petstore, version: "1"}
host: pets.example.com
basePath: /v2/
schemes: [http, https]
consumes: [application/json]
produces: [application/json]
securityDefinitions:
  key: {type: apiKey, in: header, name: X-API-Key}
  login: {type: basic}
security: [{key: []}]
definitions:
  Pet:
    type: object
    required: [name]
    properties:
      name: {type: string, description: "Name <script>alert(1)</script>"}
      tags: {type: array, items: {$ref: "#/definitions/Tag"}}
  Tag:
    type: object
    properties:
      label: {type: string}
paths:
  /pets/{petId}:
    parameters:
      - {name: petId, in: path, required: true, type: integer, format: int64, description: "The pet's **id**."}
    put:
      summary: Update a pet
      description: Replaces the pet.
      parameters:
        - {name: dryRun, in: query, required: true, type: boolean}
        - {name: X-Trace, in: header, type: string}
        - {name: ids, in: query, type: array, items: {type: string}}
        - {name: body, in: body, required: true, description: The new pet., schema: {$ref: "#/definitions/Pet"}}
      responses:
        "200":
          description: The pet.
          schema: {$ref: "#/definitions/Pet"}
          examples:
            application/json: {name: Rex}
        default: {description: An error.}
  /pets/{petId}/photo:
    post:
      summary: Upload a photo
      deprecated: true
      consumes: [multipart/form-data]
      security: [{login: []}]
      parameters:
        - {name: petId, in: path, required: true, type: integer}
        - {name: photo, in: formData, required: true, type: file, description: The photo.}
      responses:
        "204": {description: Uploaded.}
`

func TestSwagger2Operation(t *testing.T) {
	t.Parallel()
	s, err := apiref.Parse(context.Background(), []byte(swagger2))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, method string
		want               []string
	}{
		{name: "parameters, body, responses", path: "/pets/{petId}", method: "put", want: []string{
			`<span class="api-method api-method-put">PUT</span> <code class="api-path">/pets/{petId}</code>`,
			`<p class="api-summary">Update a pet</p>`,
			`<p>Replaces the pet.</p>`,
			`<code class="api-name">petId</code></td><td>path</td><td>integer (int64)</td><td>Yes</td><td><div class="api-description"><p>The pet's <strong>id</strong>.</p>`,
			`<code class="api-name">dryRun</code></td><td>query</td><td>boolean</td><td>Yes</td>`,
			`<code class="api-name">X-Trace</code></td><td>header</td><td>string</td><td>No</td>`,
			`<code class="api-name">ids</code></td><td>query</td><td>array of string</td>`,
			`<h4 class="api-section">Request body</h4>`, `<p>The new pet.</p>`,
			`<code class="api-name">name</code></td><td>string</td><td>Yes</td>`,
			`<code class="api-name">tags</code></td><td>array of Tag</td><td>No</td>`,
			`<code class="api-name">tags[].label</code>`,
			`<span class="api-status">200</span> The pet.`, `<span class="api-status">default</span> An error.`,
			`&#34;name&#34;: &#34;Rex&#34;`,
			`<code class="api-name">key</code> apiKey (X-API-Key in header)`,
			"curl -X PUT &#39;https://pets.example.com/v2/pets/{petId}?dryRun=dryRun&#39; \\\n  -H &#39;X-API-Key: &lt;api key&gt;&#39; \\\n" +
				"  -H &#39;Content-Type: application/json&#39; \\\n  --data &#39;{&#34;name&#34;:&#34;string&#34;,&#34;tags&#34;:[{&#34;label&#34;:&#34;string&#34;}]}&#39;",
		}},
		{name: "form data, basic auth", path: "/pets/{petId}/photo", method: "post", want: []string{
			`<span class="api-deprecated">Deprecated</span>`,
			`<code class="api-name">photo</code></td><td>formData</td><td>file</td><td>Yes</td><td><div class="api-description"><p>The photo.</p>`,
			`<code class="api-name">login</code> http (basic)`,
			`<span class="api-status">204</span> Uploaded.`,
			"curl -X POST &#39;https://pets.example.com/v2/pets/{petId}/photo&#39; \\\n  -u &#39;username:password&#39; \\\n  -F &#39;photo=photo&#39;",
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
			if strings.Contains(got, "<script>") {
				t.Errorf("raw HTML shown in\n%s", got)
			}
		})
	}
	if _, ok := s.Operation("/pets/{petId}", "get"); ok {
		t.Error("a method the path has not was rendered")
	}
	got, ok := s.Schemas([]string{"Pet"})
	if !ok || !strings.Contains(got, `<code class="api-name">tags[].label</code>`) {
		t.Errorf("Schemas: %v\n%s", ok, got)
	}
}

// TestSwagger2JSON: a JSON document without host or schemes calls its
// basePath; one without basePath either calls the path alone.
func TestSwagger2JSON(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, doc, want string }{
		{name: "basePath", want: "curl -X GET &#39;/api/users&#39;",
			doc: `{"swagger":"2.0","info":{"title":"a","version":"1"},"basePath":"/api","paths":{"/users":{"get":{"responses":{"200":{"description":"ok"}}}}}}`},
		{name: "host, one scheme", want: "curl -X GET &#39;http://h.example/users&#39;",
			doc: `{"swagger":"2.0","info":{"title":"a","version":"1"},"host":"h.example","schemes":["http"],"paths":{"/users":{"get":{"responses":{"200":{"description":"ok"}}}}}}`},
		{name: "neither", want: "curl -X GET &#39;/users&#39;",
			doc: `{"swagger":"2.0","info":{"title":"a","version":"1"},"paths":{"/users":{"get":{"responses":{"200":{"description":"ok"}}}}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, err := apiref.Parse(context.Background(), []byte(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			got, ok := s.Operation("/users", "get")
			if !ok || !strings.Contains(got, tc.want) || !strings.Contains(got, `<span class="api-status">200</span> ok`) {
				t.Errorf("Operation: %v, want %s in\n%s", ok, tc.want, got)
			}
		})
	}
}

// TestSwagger2Petstore renders operations of the Swagger Petstore, the
// real Swagger 2.0 document (testdata/README.md).
func TestSwagger2Petstore(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("testdata/petstore-v2.json")
	if err != nil {
		t.Fatal(err)
	}
	s, err := apiref.Parse(context.Background(), raw)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, method string
		want               []string
	}{
		{name: "form data", path: "/pet/{petId}/uploadImage", method: "post", want: []string{
			`<p class="api-summary">uploads an image</p>`,
			`<code class="api-name">petId</code></td><td>path</td><td>integer (int64)</td><td>Yes</td>`,
			`<code class="api-name">file</code></td><td>formData</td><td>file</td><td>No</td>`,
			`<code class="api-name">petstore_auth</code> oauth2`,
			`<code class="api-name">code</code></td><td>integer (int32)</td>`, // ApiResponse
			"curl -X POST &#39;https://petstore.swagger.io/v2/pet/{petId}/uploadImage&#39; \\\n  -H &#39;Authorization: Bearer &lt;token&gt;&#39;",
		}},
		{name: "array query", path: "/pet/findByStatus", method: "get", want: []string{
			`<code class="api-name">status</code></td><td>query</td><td>array of string enum</td><td>Yes</td>`,
			`<span class="api-status">200</span> successful operation`, `<span class="api-status">400</span> Invalid status value`,
			`<p class="api-media"><code>application/json</code></p>`,
			`<code class="api-name">category.name</code>`,
			"curl -X GET &#39;https://petstore.swagger.io/v2/pet/findByStatus?status=status&#39;",
		}},
		{name: "body", path: "/pet", method: "post", want: []string{
			`<h4 class="api-section">Request body</h4>`, `<p>Pet object that needs to be added to the store</p>`,
			`<code class="api-name">photoUrls</code></td><td>array of string</td><td>Yes</td>`,
			`-H &#39;Content-Type: application/json&#39;`,
		}},
		{name: "api key", path: "/store/inventory", method: "get", want: []string{
			`<code class="api-name">api_key</code> apiKey (api_key in header)`,
			`-H &#39;api_key: &lt;api key&gt;&#39;`,
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
}

// TestSwagger2Refs: shared parameters and responses ($ref'd) are shown,
// a circular definition to MaxDepth.
func TestSwagger2Refs(t *testing.T) {
	t.Parallel()
	const doc = `swagger: "2.0"
info: {title: a, version: "1"}
parameters:
  Limit: {name: limit, in: query, type: integer, required: true, description: How many.}
responses:
  NotFound: {description: Not there., schema: {$ref: "#/definitions/Err"}}
definitions:
  Err: {type: object, properties: {message: {type: string}}}
  Node: {type: object, properties: {child: {$ref: "#/definitions/Node"}}}
paths:
  /a:
    get:
      parameters: [{$ref: "#/parameters/Limit"}]
      responses:
        "404": {$ref: "#/responses/NotFound"}
        "200": {description: ok, schema: {$ref: "#/definitions/Node"}}
`
	s, err := apiref.Parse(context.Background(), []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	got, ok := s.Operation("/a", "get")
	if !ok {
		t.Fatal("Operation: none")
	}
	for _, w := range []string{
		`<code class="api-name">limit</code></td><td>query</td><td>integer</td><td>Yes</td><td><div class="api-description"><p>How many.</p>`,
		`<span class="api-status">404</span> Not there.`, `<code class="api-name">message</code>`,
		`<code class="api-name">child.child.child.child</code></td><td>Node</td>`,
		"curl -X GET &#39;/a?limit=limit&#39;",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("missing %s in\n%s", w, got)
		}
	}
	if strings.Contains(got, "child.child.child.child.child</code>") {
		t.Errorf("a circular schema past MaxDepth:\n%s", got)
	}
}
