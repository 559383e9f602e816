package apiref

import (
	"fmt"
	"html"
	"regexp"
	"strings"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/orderedmap"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// md renders descriptions: CommonMark with GitHub's tables, raw HTML left
// out (goldmark's default).
var md = goldmark.New(goldmark.WithExtensions(extension.GFM))

// tagLines are GitBook's {% tag %} lines in a description (a spec's tag
// descriptions hold {% openapi-schemas %} blocks): left out, never shown
// as text.
var tagLines = regexp.MustCompile(`(?m)^[ \t]*\{%.*%\}[ \t]*$`)

func esc(s string) string { return html.EscapeString(s) }

// writer writes one rendering, counting the rows it wrote.
type writer struct {
	b    strings.Builder
	rows int
}

func (w *writer) f(format string, args ...any) { fmt.Fprintf(&w.b, format, args...) }

// markdown writes a description as HTML.
func (w *writer) markdown(cls, src string) {
	src = strings.TrimSpace(tagLines.ReplaceAllString(src, ""))
	if src == "" {
		return
	}
	w.f(`<div class="%s">`, cls)
	if err := md.Convert([]byte(src), &w.b); err != nil {
		w.f("<p>%s</p>", esc(src))
	}
	w.f("</div>\n")
}

// operation finds an operation by path and method (lower case).
func (s *Spec) operation(path, method string) (*v3.PathItem, *v3.Operation) {
	if s.doc.Paths == nil {
		return nil, nil
	}
	item := s.doc.Paths.PathItems.GetOrZero(path)
	if item == nil {
		return nil, nil
	}
	for m, op := range item.GetOperations().FromOldest() {
		if strings.EqualFold(m, method) {
			return item, op
		}
	}
	return item, nil
}

// Operation renders the operation at path with method (lower case); false
// when the document has none.
func (s *Spec) Operation(path, method string) (string, bool) {
	item, op := s.operation(path, method)
	if op == nil {
		return "", false
	}
	w := &writer{}
	m := strings.ToLower(method)
	w.f(`<section class="api-operation" aria-label="%s %s">`+"\n", esc(strings.ToUpper(m)), esc(path))
	w.f(`<div class="api-head"><span class="api-method api-method-%s">%s</span> <code class="api-path">%s</code>`,
		esc(m), esc(strings.ToUpper(m)), esc(path))
	if op.Deprecated != nil && *op.Deprecated {
		w.f(` <span class="api-deprecated">Deprecated</span>`)
	}
	w.f("</div>\n")
	if op.Summary != "" {
		w.f(`<p class="api-summary">%s</p>`+"\n", esc(op.Summary))
	}
	w.markdown("api-description", op.Description)
	s.security(w, op)
	params := parameters(item, op)
	if len(params) > 0 {
		w.f(`<h4 class="api-section">Parameters</h4>` + "\n")
		w.params(params)
	}
	if rb := op.RequestBody; rb != nil {
		w.f(`<h4 class="api-section">Request body</h4>` + "\n")
		w.markdown("api-description", rb.Description)
		w.content(rb.Content)
	}
	w.responses(op.Responses)
	w.f(`<h4 class="api-section">Example request</h4>` + "\n")
	w.f(`<pre class="api-curl"><code class="language-bash">%s</code></pre>`+"\n", esc(s.curl(item, op, path, m, params)))
	w.f("</section>\n")
	return w.b.String(), true
}

// parameters are the operation's parameters after its path's (an
// operation's parameter replaces its path's of the same name and place).
func parameters(item *v3.PathItem, op *v3.Operation) []*v3.Parameter {
	var out []*v3.Parameter
	seen := map[string]bool{}
	for _, p := range op.Parameters {
		if p != nil {
			seen[p.In+"\x00"+p.Name] = true
		}
	}
	for _, p := range item.Parameters {
		if p != nil && !seen[p.In+"\x00"+p.Name] {
			out = append(out, p)
		}
	}
	for _, p := range op.Parameters {
		if p != nil {
			out = append(out, p)
		}
	}
	return out
}

// params writes the parameters' table.
func (w *writer) params(ps []*v3.Parameter) {
	w.f(`<table class="api-params"><thead><tr><th>Name</th><th>In</th><th>Type</th><th>Required</th><th>Description</th></tr></thead><tbody>` + "\n")
	for i, p := range ps {
		if i >= MaxRows {
			break
		}
		req := p.In == "path" || (p.Required != nil && *p.Required)
		w.f(`<tr><td><code class="api-name">%s</code></td><td>%s</td><td>%s</td><td>%s</td><td>`,
			esc(p.Name), esc(p.In), esc(typeOf(p.Schema)), yesNo(req))
		w.markdown("api-description", p.Description)
		w.f("</td></tr>\n")
	}
	w.f("</tbody></table>\n")
}

func yesNo(b bool) string {
	if b {
		return "Yes"
	}
	return "No"
}

// responses writes the operation's responses: status, description,
// schema and example.
func (w *writer) responses(rs *v3.Responses) {
	if rs == nil {
		return
	}
	w.f(`<h4 class="api-section">Responses</h4>` + "\n")
	n := 0
	one := func(code string, r *v3.Response) {
		if r == nil || n >= MaxResponses {
			return
		}
		n++
		w.f(`<div class="api-response"><p class="api-response-head"><span class="api-status">%s</span> %s</p>`+"\n",
			esc(code), esc(firstLine(r.Description)))
		w.content(r.Content)
		w.f("</div>\n")
	}
	for code, r := range rs.Codes.FromOldest() {
		one(code, r)
	}
	one("default", rs.Default)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// content writes a body's media types: each one's schema and example.
func (w *writer) content(c *orderedmap.Map[string, *v3.MediaType]) {
	for typ, mt := range c.FromOldest() {
		if mt == nil {
			continue
		}
		w.f(`<p class="api-media"><code>%s</code></p>`+"\n", esc(typ))
		if mt.Schema != nil {
			w.schema(mt.Schema)
		}
		if ex := exampleOf(mt); ex != "" {
			w.f(`<pre class="api-example"><code class="language-json">%s</code></pre>`+"\n", esc(ex))
		}
	}
}

// Schemas renders the named schemas of the document's components; false
// when it has none of them.
func (s *Spec) Schemas(names []string) (string, bool) {
	if s.doc.Components == nil {
		return "", false
	}
	w := &writer{}
	found := false
	for _, name := range names {
		sp := s.doc.Components.Schemas.GetOrZero(name)
		if sp == nil {
			continue
		}
		found = true
		w.f(`<section class="api-schema" aria-label="%s"><p class="api-schema-name"><code>%s</code></p>`+"\n", esc(name), esc(name))
		if sc := schemaOf(sp); sc != nil {
			w.markdown("api-description", sc.Description)
		}
		w.schema(sp)
		w.f("</section>\n")
	}
	return w.b.String(), found
}

// schemaOf builds a schema, nil when it cannot be.
func schemaOf(sp *base.SchemaProxy) (s *base.Schema) {
	if sp == nil {
		return nil
	}
	defer func() {
		if recover() != nil {
			s = nil
		}
	}()
	return sp.Schema()
}
