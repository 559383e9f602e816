package apiref

import (
	"encoding/json"
	"strings"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
)

// requirements are the security requirements of an operation: its own,
// else the document's.
func (s *Spec) requirements(op *v3.Operation) []*base.SecurityRequirement {
	if op.Security != nil {
		return op.Security
	}
	return s.doc.Security
}

// scheme is a security scheme of the document by name (nil when none).
func (s *Spec) scheme(name string) *v3.SecurityScheme {
	if s.doc.Components == nil {
		return nil
	}
	return s.doc.Components.SecuritySchemes.GetOrZero(name)
}

// security writes the names of the schemes the operation may use.
func (s *Spec) security(w *writer, op *v3.Operation) {
	var names []string
	for _, req := range s.requirements(op) {
		if req == nil {
			continue
		}
		for name := range req.Requirements.FromOldest() {
			if len(names) < 10 {
				names = append(names, name)
			}
		}
	}
	if len(names) == 0 {
		return
	}
	w.f(`<h4 class="api-section">Authorization</h4><ul class="api-security">` + "\n")
	for _, name := range names {
		desc := ""
		if sc := s.scheme(name); sc != nil {
			desc = sc.Type
			if sc.Scheme != "" {
				desc += " (" + sc.Scheme + ")"
			} else if sc.In != "" {
				desc += " (" + sc.Name + " in " + sc.In + ")"
			}
		}
		w.f(`<li><code class="api-name">%s</code> %s</li>`+"\n", esc(name), esc(desc))
	}
	w.f("</ul>\n")
}

// curl is a curl command calling the operation: its first server's URL,
// its path, its required query parameters, its first security scheme's
// header, its required headers and form fields and its JSON body's
// example.
func (s *Spec) curl(item *v3.PathItem, op *v3.Operation, path, method string, params []*v3.Parameter) string {
	server := ""
	for _, l := range [][]*v3.Server{op.Servers, item.Servers, s.doc.Servers} {
		if len(l) > 0 && l[0] != nil {
			server = strings.TrimRight(l[0].URL, "/")
			break
		}
	}
	u := server + path
	var query []string
	for _, p := range params {
		if p.In == "query" && p.Required != nil && *p.Required {
			query = append(query, p.Name+"="+p.Name)
		}
	}
	if len(query) > 0 {
		u += "?" + strings.Join(query, "&")
	}
	lines := []string{"curl -X " + strings.ToUpper(method) + " " + quote(u)}
	lines = append(lines, s.authHeaders(op)...)
	for _, p := range params {
		switch {
		case p.Required == nil || !*p.Required:
		case p.In == "header":
			lines = append(lines, "-H "+quote(p.Name+": "+p.Name))
		case p.In == "formData": // Swagger 2.0's form fields
			lines = append(lines, "-F "+quote(p.Name+"="+p.Name))
		}
	}
	if rb := op.RequestBody; rb != nil {
		for typ, mt := range rb.Content.FromOldest() {
			lines = append(lines, "-H "+quote("Content-Type: "+typ))
			if ex := exampleOf(mt); ex != "" && strings.Contains(typ, "json") {
				lines = append(lines, "--data "+quote(compact(ex)))
			}
			break
		}
	}
	return strings.Join(lines, " \\\n  ")
}

// authHeaders are the headers of the operation's first security scheme.
func (s *Spec) authHeaders(op *v3.Operation) []string {
	for _, req := range s.requirements(op) {
		if req == nil {
			continue
		}
		for name := range req.Requirements.FromOldest() {
			sc := s.scheme(name)
			switch {
			case sc == nil:
			case sc.Type == "http" && strings.EqualFold(sc.Scheme, "basic"):
				return []string{"-u " + quote("username:password")}
			case sc.Type == "http", sc.Type == "oauth2", sc.Type == "openIdConnect":
				return []string{"-H " + quote("Authorization: Bearer <token>")}
			case sc.Type == "apiKey" && sc.In == "header":
				return []string{"-H " + quote(sc.Name+": <api key>")}
			}
			return nil
		}
	}
	return nil
}

// compact is an indented JSON example on one line.
func compact(ex string) string {
	var v any
	if json.Unmarshal([]byte(ex), &v) != nil {
		return ex
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// quote quotes s for a POSIX shell.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
