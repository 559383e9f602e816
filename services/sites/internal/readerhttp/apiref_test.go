package readerhttp_test

import (
	"strings"
	"testing"

	"github.com/docspub/platform/services/sites/internal/contentclient"
	"github.com/docspub/platform/services/sites/internal/contentclient/contenttest"
)

// petstoreSpec is an OpenAPI document a repository holds under
// .gitbook/assets, as Git import stores it.
const petstoreSpec = `openapi: 3.0.3
info: {title: Petstore, version: "1"}
servers: [{url: "https://pets.example.com/v1"}]
components:
  securitySchemes:
    bearer: {type: http, scheme: bearer}
  schemas:
    Pet:
      type: object
      required: [name]
      properties:
        name: {type: string, description: The pet's name.}
        status: {type: string, enum: [available, sold]}
security: [{bearer: []}]
paths:
  /pets/{petId}:
    get:
      summary: Find a pet
      parameters:
        - {name: petId, in: path, required: true, schema: {type: integer}}
      responses:
        "200":
          description: The pet.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Pet"}
        "404": {description: No such pet.}
`

// TestAPIBlocksFromRepositoryFiles: an API reference block whose spec is
// a file of the revision shows the operation (parameters, responses, a
// curl example) and schemas; one naming a URL or a stored spec, which the
// reader never fetches, is a card linking to it; no tag is shown as text.
func TestAPIBlocksFromRepositoryFiles(t *testing.T) {
	e := newEnv(t)
	e.content.AddSpace("sp1", "acme", "API")
	md := "Intro.\n\n" +
		"{% swagger src=\"../.gitbook/assets/petstore.yaml\" path=\"/pets/{petId}\" method=\"get\" %}\n" +
		"[petstore.yaml](../.gitbook/assets/petstore.yaml)\n{% endswagger %}\n\n" +
		"{% openapi-schemas schemas=\"Pet\" src=\".gitbook/assets/petstore.yaml\" %}\n{% endopenapi-schemas %}\n\n" +
		"{% openapi src=\"https://petstore3.swagger.io/api/v3/openapi.json\" path=\"/pet\" method=\"post\" %}\n" +
		"[https://petstore3.swagger.io/api/v3/openapi.json](https://petstore3.swagger.io/api/v3/openapi.json)\n{% endopenapi %}\n\n" +
		"{% openapi src=\"../.gitbook/assets/missing.yaml\" path=\"/x\" method=\"get\" %}\n{% endopenapi %}\n"
	e.content.MergeFiles("sp1", []contentclient.Page{contenttest.Doc("p1", "Pets", "pets", md)}, map[string]contenttest.File{
		"f1": {Name: "petstore.yaml", ContentType: "application/yaml", Bytes: []byte(petstoreSpec)}})
	_, url := e.site(`{"title":"API","spaces":["sp1"]}`)
	page := e.want(url, 200)
	body := articleOf(page.body)
	for _, want := range []string{
		`<span class="api-method api-method-get">GET</span> <code class="api-path">/pets/{petId}</code>`,
		`<p class="api-summary">Find a pet</p>`,
		`<code class="api-name">petId</code></td><td>path</td><td>integer</td><td>Yes</td>`,
		`<span class="api-status">200</span> The pet.`, `<span class="api-status">404</span> No such pet.`,
		`<code class="api-name">name</code></td><td>string</td><td>Yes</td>`,
		`<code class="api-name">bearer</code> http (bearer)`,
		`<pre class="api-curl"><code class="language-bash">curl -X GET &#39;https://pets.example.com/v1/pets/{petId}&#39;`,
		`<section class="api-schema" aria-label="Pet"><p class="api-schema-name"><code>Pet</code></p>`,
		`<p class="api-card-title">API reference: POST /pet</p>`,
		`<a href="https://petstore3.swagger.io/api/v3/openapi.json" rel="nofollow">`,
		`<p class="api-card-title">API reference: GET /x</p>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %q in %s", want, body)
		}
	}
	for _, bad := range []string{"{%", "%}", "openapi src="} {
		if strings.Contains(body, bad) {
			t.Errorf("page shows %q as text", bad)
		}
	}
}

// swagger2Spec is a Swagger 2.0 document a repository holds.
const swagger2Spec = `{"swagger": "2.0", "info": {"title": "Users", "version": "1"},
 "host": "users.example.com", "basePath": "/v1", "schemes": ["https"],
 "securityDefinitions": {"key": {"type": "apiKey", "in": "header", "name": "X-Key"}},
 "security": [{"key": []}],
 "paths": {"/users": {"post": {"summary": "Create a user",
   "parameters": [{"name": "body", "in": "body", "required": true,
     "schema": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}}],
   "responses": {"201": {"description": "Created.", "examples": {"application/json": {"id": "u1"}}}}}}}}`

// TestSwaggerBlocksInPublishedPage: a block naming a Swagger 2.0 file,
// and GitBook's legacy {% swagger %} block written in the page, both show
// their operation in the published page; no tag is shown as text.
func TestSwaggerBlocksInPublishedPage(t *testing.T) {
	e := newEnv(t)
	e.content.AddSpace("sp1", "acme", "API")
	md := "{% swagger src=\".gitbook/assets/users.json\" path=\"/users\" method=\"post\" %}\n{% endswagger %}\n\n" +
		"{% swagger method=\"delete\" path=\"/users/{id}\" baseUrl=\"https://users.example.com/v1\" summary=\"Delete a user\" %}\n" +
		"{% swagger-description %}\nDeletes **for good**.\n{% endswagger-description %}\n\n" +
		"{% swagger-parameter in=\"path\" name=\"id\" type=\"String\" required=\"true\" %}\nThe user's id\n{% endswagger-parameter %}\n\n" +
		"{% swagger-response status=\"204: No Content\" description=\"Deleted\" %}\n```json\n{}\n```\n{% endswagger-response %}\n" +
		"{% endswagger %}\n"
	e.content.MergeFiles("sp1", []contentclient.Page{contenttest.Doc("p1", "Users", "users", md)}, map[string]contenttest.File{
		"f1": {Name: "users.json", ContentType: "application/json", Bytes: []byte(swagger2Spec)}})
	_, url := e.site(`{"title":"API","spaces":["sp1"]}`)
	body := articleOf(e.want(url, 200).body)
	for _, want := range []string{
		`<span class="api-method api-method-post">POST</span> <code class="api-path">/users</code>`,
		`<h4 class="api-section">Request body</h4>`, `<code class="api-name">name</code></td><td>string</td><td>Yes</td>`,
		`<span class="api-status">201</span> Created.`, `<code class="api-name">key</code> apiKey (X-Key in header)`,
		`curl -X POST &#39;https://users.example.com/v1/users&#39;`,
		`<span class="api-method api-method-delete">DELETE</span> <code class="api-path"><span class="api-base">https://users.example.com/v1</span>/users/{id}</code>`,
		`<p>Deletes <strong>for good</strong>.</p>`,
		`<code class="api-name">id</code></td><td>String</td><td>Yes</td>`,
		`<span class="api-status">204</span> Deleted`,
		`curl -X DELETE &#39;https://users.example.com/v1/users/{id}&#39;`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %q in %s", want, body)
		}
	}
	for _, bad := range []string{"{%", "%}", "api-card"} {
		if strings.Contains(body, bad) {
			t.Errorf("page shows %q", bad)
		}
	}
}
