package gitbookmd

import (
	"os"
	"strings"
	"testing"
)

// legacyUser is the legacy {% swagger %} block as GitBook's editor wrote
// it: a description, path, header and body parameters, a response.
const legacyUser = "{% swagger method=\"get\" path=\"/users/{id}\" baseUrl=\"https://api.example.com\" summary=\"Get a user\" %}\n" +
	"{% swagger-description %}\nReturns **one** user.\n{% endswagger-description %}\n\n" +
	"{% swagger-parameter in=\"path\" name=\"id\" type=\"String\" required=\"true\" %}\nThe user's id\n{% endswagger-parameter %}\n\n" +
	"{% swagger-parameter in=\"query\" name=\"fields\" type=\"String\" required=\"true\" %}\nFields to return\n{% endswagger-parameter %}\n\n" +
	"{% swagger-parameter in=\"header\" name=\"Authorization\" type=\"String\" %}\nBearer token\n{% endswagger-parameter %}\n\n" +
	"{% swagger-parameter in=\"body\" name=\"limit\" type=\"Number\" %}\nAt most\n{% endswagger-parameter %}\n\n" +
	"{% swagger-response status=\"200: OK\" description=\"The user\" %}\n```json\n{\"id\": \"u1\"}\n```\n{% endswagger-response %}\n\n" +
	"{% swagger-response status=\"404: Not Found\" description=\"\" %}\n```json\n{}\n```\n{% endswagger-response %}\n" +
	"{% endswagger %}\n"

// noTags fails when a {% tag %} of the page is shown as text.
func noTags(t *testing.T, html string) {
	t.Helper()
	if strings.Contains(html, "{%") || strings.Contains(html, "%}") {
		t.Errorf("tags shown as text:\n%s", html)
	}
}

func TestLegacySwagger(t *testing.T) {
	got := New().Render("Before.\n\n"+legacyUser+"\nAfter.\n", Options{API: func(APIRef) string {
		t.Error("API called for a legacy block")
		return ""
	}}).HTML
	for _, w := range []string{
		"<p>Before.</p>",
		`<section class="api-operation" aria-label="GET /users/{id}">`,
		`<span class="api-method api-method-get">GET</span> <code class="api-path"><span class="api-base">https://api.example.com</span>/users/{id}</code>`,
		`<p class="api-summary">Get a user</p>`,
		`<div class="api-description"><p>Returns <strong>one</strong> user.</p>`,
		`<h4 class="api-section">Path parameters</h4>`,
		`<tr><td><code class="api-name">id</code></td><td>String</td><td>Yes</td><td><div class="api-description"><p>The user&#39;s id</p>`,
		`<h4 class="api-section">Query parameters</h4>`,
		`<h4 class="api-section">Headers</h4>`,
		`<tr><td><code class="api-name">Authorization</code></td><td>String</td><td>No</td><td><div class="api-description"><p>Bearer token</p>`,
		`<h4 class="api-section">Request body</h4>`,
		`<tr><td><code class="api-name">limit</code></td><td>Number</td><td>No</td>`,
		`<h4 class="api-section">Responses</h4>`,
		`<span class="api-status">200</span> The user</p>`,
		`<span class="api-status">404</span> Not Found</p>`,
		`<span class="nt">&#34;id&#34;</span>`,
		"<pre class=\"api-curl\"><code class=\"language-bash\">curl -X GET &#39;https://api.example.com/users/{id}?fields=fields&#39; \\\n" +
			"  -H &#39;Authorization: Authorization&#39; \\\n  -H &#39;Content-Type: application/json&#39; \\\n" +
			"  --data &#39;{&#34;limit&#34;:0}&#39;</code></pre>",
		"<p>After.</p>",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("lacks %s in:\n%s", w, got)
		}
	}
	// Path parameters come before headers whatever their order in the page.
	if strings.Index(got, "Path parameters") > strings.Index(got, "Headers") {
		t.Errorf("parameters not grouped by place:\n%s", got)
	}
	noTags(t, got)
}

// TestLegacySwaggerRealPages renders pages of real repositories
// (testdata/README.md): each operation with its parameters and
// responses, no tag left as text.
func TestLegacySwaggerRealPages(t *testing.T) {
	for _, tc := range []struct {
		file string
		ops  int
		want []string
	}{
		{file: "testdata/guardian/filtersaddonblock.md", ops: 2, want: []string{
			`<span class="api-method api-method-get">GET</span> <code class="api-path"><span class="api-base">/policies/{policyId}/blocks/{uuid}</span></code>`,
			`<code class="api-name">policyID</code></td><td>String</td><td>Yes</td><td><div class="api-description"><p>Policy ID</p>`,
			`<code class="api-name">uuid</code></td><td>String</td><td>Yes</td>`, // a path parameter is required
			`<span class="api-status">200</span> Successful Operation</p>`,
			`&#34;filtersAddon&#34;`,
			`<code class="api-name">filterValue</code>`,
			`<div class="hint hint-info"`, `<th>Block Property</th>`,
		}},
		{file: "testdata/rollupid/passport-api.md", ops: 1, want: []string{
			`<span class="api-method api-method-post">POST</span>`,
			`<p class="api-summary">Exchange Token</p>`,
			`<h4 class="api-section">Request body</h4>`,
			`<code class="api-name">client_id</code></td><td></td><td>Yes</td>`,
			`<code class="api-name">grant_type</code></td><td>String</td><td>Yes</td><td><div class="api-description"><p>&#34;authorization_code&#34; or &#34;refresh_token&#34;</p>`,
			`<span class="api-status">201</span> Exchange token response</p>`,
			`access_token`,
			"curl -X POST &#39;https://passport.rollup.id/token&#39; \\\n  -H &#39;Content-Type: application/json&#39; \\\n" +
				"  --data &#39;{&#34;code&#34;:&#34;string&#34;,&#34;client_id&#34;:&#34;string&#34;,&#34;client_secret&#34;:&#34;string&#34;,&#34;grant_type&#34;:&#34;string&#34;}&#39;",
			`<div class="tabs"`,
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			raw, err := os.ReadFile(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			got := New().Render(string(raw), Options{}).HTML
			if n := strings.Count(got, `<section class="api-operation"`); n != tc.ops {
				t.Errorf("%d operations, want %d:\n%s", n, tc.ops, got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("lacks %s in:\n%s", w, got)
				}
			}
			noTags(t, got)
		})
	}
}

// TestLegacySwaggerCards: a {% swagger %} block that is no legacy one is
// the card it was, with what it holds.
func TestLegacySwaggerCards(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{name: "no end tag: the rest of the page is kept",
			src: strings.Replace(legacyUser, "{% endswagger %}\n", "", 1) + "\nAfter.\n", want: "<p>After.</p>"},
		{name: "a method that is none", src: strings.Replace(legacyUser, `method="get"`, `method="fetch"`, 1),
			want: `<div class="api-card card">`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := New().Render(tc.src, Options{}).HTML
			if strings.Contains(got, `class="api-operation"`) || !strings.Contains(got, tc.want) {
				t.Errorf("got:\n%s", got)
			}
			noTags(t, got)
		})
	}
}

// TestLegacySwaggerXSS puts a script in every attribute and part of a
// legacy block: nothing runs.
func TestLegacySwaggerXSS(t *testing.T) {
	const x = `\"><script>alert(1)</script><img src=x onerror=alert(2)>`
	attr := strings.ReplaceAll(x, `\"`, `'`)
	for i, payload := range append([]string{x}, xssPayloads...) {
		a := strings.ReplaceAll(strings.ReplaceAll(payload, `"`, `'`), "\n", " ")
		if i == 0 {
			a = attr
		}
		src := "{% swagger method=\"post\" path=\"/a" + a + "\" baseUrl=\"" + a + "\" summary=\"" + a + "\" %}\n" +
			"{% swagger-description %}\n" + payload + "\n{% endswagger-description %}\n\n" +
			"{% swagger-parameter in=\"" + a + "\" name=\"" + a + "\" type=\"" + a + "\" required=\"true\" description=\"" + a + "\" %}\n" +
			payload + "\n{% endswagger-parameter %}\n\n" +
			"{% swagger-parameter in=\"body\" name=\"" + a + "\" type=\"" + a + "\" %}\n" + payload + "\n{% endswagger-parameter %}\n\n" +
			"{% swagger-parameter in=\"header\" name=\"" + a + "\" %}\n" + payload + "\n{% endswagger-parameter %}\n\n" +
			"{% swagger-response status=\"" + a + "\" description=\"" + a + "\" %}\n" + payload + "\n\n```json\n" + payload + "\n```\n{% endswagger-response %}\n" +
			"{% endswagger %}\n"
		got := New().Render(src, Options{}).HTML
		if !strings.Contains(got, `class="api-operation"`) {
			t.Errorf("payload %d: no operation:\n%s", i, got)
		}
		if bad := executable(got); bad != "" {
			t.Errorf("payload %d %q renders %s:\n%s", i, payload, bad, got)
		}
	}
}

// TestLegacySwaggerBounds: past MaxLegacyParams parameters and
// MaxLegacyResponses responses the rest are left out.
func TestLegacySwaggerBounds(t *testing.T) {
	var b strings.Builder
	b.WriteString("{% swagger method=\"get\" path=\"/a\" baseUrl=\"\" summary=\"\" %}\n")
	for i := 0; i < MaxLegacyParams+50; i++ {
		b.WriteString("{% swagger-parameter in=\"query\" name=\"p\" type=\"String\" %}\nA parameter\n{% endswagger-parameter %}\n\n")
	}
	for i := 0; i < MaxLegacyResponses+10; i++ {
		b.WriteString("{% swagger-response status=\"200: OK\" description=\"\" %}\nA response\n{% endswagger-response %}\n\n")
	}
	b.WriteString("{% endswagger %}\n")
	got := New().Render(b.String(), Options{}).HTML
	if n := strings.Count(got, `<code class="api-name">p</code>`); n != MaxLegacyParams {
		t.Errorf("%d parameters shown, want %d", n, MaxLegacyParams)
	}
	if n := strings.Count(got, `<span class="api-status">200</span>`); n != MaxLegacyResponses {
		t.Errorf("%d responses shown, want %d", n, MaxLegacyResponses)
	}
	noTags(t, got)
}
