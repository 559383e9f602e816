package gitbookmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/yuin/goldmark/ast"
)

// GitBook's legacy API block, which older GitBook pages hold: the
// operation written out in the page rather than named in a spec.
//
//	{% swagger method="get" path="/users/{id}" baseUrl="https://api.example.com" summary="Get a user" %}
//	{% swagger-description %} … {% endswagger-description %}
//	{% swagger-parameter in="path" name="id" type="String" required="true" %} … {% endswagger-parameter %}
//	{% swagger-response status="200: OK" description="The user" %} … {% endswagger-response %}
//	{% endswagger %}
//
// It is drawn as apiref draws a spec's operation (the same classes): its
// method and path, summary, description, parameters by where they go,
// responses by status, and a curl example; the markdown within its parts
// is rendered as the page's.

// Bounds of a legacy block: parameters and responses past them are left
// out (a base URL and path longer than MaxAPISrc+MaxAPIPath make the block
// a card).
const (
	MaxLegacyParams    = 100
	MaxLegacyResponses = 30
)

// legacyParamGroups are the places of parameters in the order shown, with
// their sections' titles.
var legacyParamGroups = []struct{ in, title string }{
	{"path", "Path parameters"}, {"query", "Query parameters"}, {"header", "Headers"},
	{"cookie", "Cookies"}, {"formData", "Form data"}, {"body", "Request body"},
}

// isLegacySwagger tells whether b is a legacy {% swagger %} block: it
// names no spec, has a method and an end tag (without one it would hold
// the rest of the page), and its URL is within bounds.
func isLegacySwagger(b *Block) bool {
	return b.Name == "swagger" && b.end >= 0 && b.Attr("src") == "" && b.Attr("spec") == "" &&
		apiMethods[strings.ToLower(strings.TrimSpace(b.Attr("method")))] &&
		len(b.Attr("path"))+len(b.Attr("baseUrl")) <= MaxAPISrc+MaxAPIPath
}

// legacyParam is a {% swagger-parameter %}.
type legacyParam struct {
	name, in, typ string
	required      bool
	desc          string // HTML
}

// legacySwagger renders a legacy {% swagger %} block; its parts' markdown
// renders through the page's renderer.
func (r *Renderer) legacySwagger(b *Block, src []byte) string {
	method := strings.ToLower(strings.TrimSpace(b.Attr("method")))
	path, base := strings.TrimSpace(b.Attr("path")), strings.TrimSpace(b.Attr("baseUrl"))
	var desc strings.Builder
	var params []legacyParam
	var responses []*Block
	for c := b.FirstChild(); c != nil; c = c.NextSibling() {
		part, _ := c.(*Block)
		switch {
		case part == nil:
			desc.WriteString(r.node(c, src))
		case part.Name == "swagger-description":
			desc.WriteString(r.children(part, src))
		case part.Name == "swagger-parameter" && len(params) < MaxLegacyParams:
			in := strings.TrimSpace(part.Attr("in"))
			params = append(params, legacyParam{name: strings.TrimSpace(part.Attr("name")), in: in,
				typ: strings.TrimSpace(part.Attr("type")), required: in == "path" || part.Attr("required") == "true",
				desc: r.children(part, src) + markdownAttr(part.Attr("description"))})
		case part.Name == "swagger-response" && len(responses) < MaxLegacyResponses:
			responses = append(responses, part)
		case strings.HasPrefix(part.Name, "swagger-"):
		default:
			desc.WriteString(r.node(c, src))
		}
	}
	var w strings.Builder
	f := func(format string, args ...any) { fmt.Fprintf(&w, format, args...) }
	label := strings.ToUpper(method) + " " + path
	if path == "" {
		label = strings.ToUpper(method) + " " + base
	}
	f(`<section class="api-operation"`)
	if plainLabel(label) {
		f(` aria-label="%s"`, esc(label))
	}
	f(">\n")
	f(`<div class="api-head"><span class="api-method api-method-%s">%s</span> <code class="api-path">`, method, strings.ToUpper(method))
	if base != "" {
		f(`<span class="api-base">%s</span>`, esc(base))
	}
	f("%s</code></div>\n", esc(path))
	if s := strings.TrimSpace(b.Attr("summary")); s != "" {
		f(`<p class="api-summary">%s</p>`+"\n", esc(s))
	}
	if d := strings.TrimSpace(desc.String()); d != "" {
		f(`<div class="api-description">%s</div>`+"\n", d)
	}
	for _, g := range legacyParamGroups {
		legacyParams(&w, g.title, params, func(in string) bool { return strings.EqualFold(in, g.in) })
	}
	legacyParams(&w, "Parameters", params, func(in string) bool {
		for _, g := range legacyParamGroups {
			if strings.EqualFold(in, g.in) {
				return false
			}
		}
		return true
	})
	if len(responses) > 0 {
		f(`<h4 class="api-section">Responses</h4>` + "\n")
	}
	for _, resp := range responses {
		code, text, _ := strings.Cut(resp.Attr("status"), ":")
		head := strings.TrimSpace(resp.Attr("description"))
		if head == "" {
			head = strings.TrimSpace(text)
		}
		f(`<div class="api-response"><p class="api-response-head"><span class="api-status">%s</span> %s</p>`+"\n",
			esc(strings.TrimSpace(code)), esc(head))
		f("%s</div>\n", r.children(resp, src))
	}
	f(`<h4 class="api-section">Example request</h4>` + "\n")
	f(`<pre class="api-curl"><code class="language-bash">%s</code></pre>`+"\n", esc(legacyCurl(method, base+path, params)))
	f("</section>\n")
	return w.String()
}

// plainLabel tells whether a label is fit for an aria-label: no script
// URL is in it, even as text.
func plainLabel(s string) bool {
	s = strings.ToLower(strings.Join(strings.Fields(s), ""))
	return len(s) <= 100 && !strings.Contains(s, "script:")
}

// legacyParams writes the table of the parameters whose place is in, under
// title (nothing when there are none).
func legacyParams(w *strings.Builder, title string, params []legacyParam, in func(string) bool) {
	n := 0
	for _, p := range params {
		if !in(p.in) {
			continue
		}
		if n == 0 {
			fmt.Fprintf(w, `<h4 class="api-section">%s</h4>`+"\n", esc(title))
			w.WriteString(`<table class="api-params"><thead><tr><th>Name</th><th>Type</th><th>Required</th><th>Description</th></tr></thead><tbody>` + "\n")
		}
		n++
		req := "No"
		if p.required {
			req = "Yes"
		}
		fmt.Fprintf(w, `<tr><td><code class="api-name">%s</code></td><td>%s</td><td>%s</td><td><div class="api-description">%s</div></td></tr>`+"\n",
			esc(p.name), esc(p.typ), req, p.desc)
	}
	if n > 0 {
		w.WriteString("</tbody></table>\n")
	}
}

// legacyCurl is a curl command calling the operation: its URL with its
// required query parameters, its headers, its form fields and a JSON body
// of its body parameters (a value of each one's type).
func legacyCurl(method, u string, params []legacyParam) string {
	var query, body, headers, form []string
	for _, p := range params {
		if p.name == "" {
			continue
		}
		switch strings.ToLower(p.in) {
		case "query":
			if p.required {
				query = append(query, p.name+"="+p.name)
			}
		case "header":
			headers = append(headers, "-H "+quote(p.name+": "+p.name))
		case "formdata":
			form = append(form, "-F "+quote(p.name+"="+p.name))
		case "body":
			k, _ := json.Marshal(p.name)
			v, _ := json.Marshal(sampleOf(p.typ))
			body = append(body, string(k)+":"+string(v)) // in the page's order
		}
	}
	if len(query) > 0 {
		sep := "?"
		if strings.Contains(u, "?") {
			sep = "&"
		}
		u += sep + strings.Join(query, "&")
	}
	lines := append([]string{"curl -X " + strings.ToUpper(method) + " " + quote(u)}, headers...)
	lines = append(lines, form...)
	if len(body) > 0 {
		lines = append(lines, "-H "+quote("Content-Type: application/json"), "--data "+quote("{"+strings.Join(body, ",")+"}"))
	}
	return strings.Join(lines, " \\\n  ")
}

// sampleOf is a value of a legacy parameter's type as GitBook's editor
// names them (String, Number, Boolean, Object, Array, String[] …).
func sampleOf(typ string) any {
	t := strings.ToLower(strings.TrimSpace(typ))
	switch {
	case strings.HasSuffix(t, "[]") || t == "array":
		return []any{}
	case t == "number" || t == "integer" || t == "int" || t == "long" || t == "float" || t == "double":
		return 0
	case t == "boolean" || t == "bool":
		return true
	case t == "object" || t == "json":
		return map[string]any{}
	}
	return "string"
}

// quote quotes s for a POSIX shell.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// markdownAttr is an attribute's text as a paragraph ("" when empty).
func markdownAttr(s string) string {
	if s = strings.TrimSpace(s); s == "" {
		return ""
	}
	return "<p>" + esc(s) + "</p>"
}

// children renders the children of a block as the page's.
func (r *Renderer) children(b *Block, src []byte) string {
	var out strings.Builder
	for c := b.FirstChild(); c != nil; c = c.NextSibling() {
		out.WriteString(r.node(c, src))
	}
	return out.String()
}

// node renders one node of the page.
func (r *Renderer) node(n ast.Node, src []byte) string {
	var b bytes.Buffer
	if err := r.md.Renderer().Render(&b, src, n); err != nil {
		return ""
	}
	return b.String()
}
