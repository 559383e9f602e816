package gitbookmd

import (
	"fmt"
	"strings"

	"github.com/yuin/goldmark/ast"
)

// APIRef is what an API reference block names: {% openapi src="…"
// path="…" method="…" %}, {% openapi-operation spec="…" path="…"
// method="…" %}, {% swagger src="…" path="…" method="…" %} (an
// operation), or {% openapi-schemas spec="…" schemas="A,B" %} (schemas).
// A {% swagger %} block naming no spec is GitBook's legacy form, the
// operation written in the page: it is rendered here (swagger.go).
type APIRef struct {
	// Src is a file of the repository (relative to the page, or under
	// .gitbook/assets) or a URL; Spec a stored spec's name. One is set.
	Src, Spec string
	// Path and Method name the operation (Method lower case).
	Path, Method string
	// Schemas are the schemas of an {% openapi-schemas %} block.
	Schemas []string
}

// Bounds of an API reference block's attributes: a longer one, or a method
// that is none, makes the block a card of what it holds.
const (
	MaxAPISrc     = 2048
	MaxAPISpec    = 100
	MaxAPIPath    = 1024
	MaxAPISchemas = 20
	MaxAPISchema  = 200
)

// apiBlocks are the names of the API reference blocks.
var apiBlocks = map[string]bool{"openapi": true, "openapi-operation": true, "openapi-schemas": true, "swagger": true}

// apiMethods are the methods an operation may have.
var apiMethods = map[string]bool{"get": true, "put": true, "post": true, "delete": true, "options": true,
	"head": true, "patch": true, "trace": true, "query": true}

// apiRef reads an API reference block's attributes; false when they name
// nothing or exceed their bounds.
func apiRef(b *Block) (APIRef, bool) {
	ref := APIRef{Src: strings.TrimSpace(b.Attr("src")), Spec: strings.TrimSpace(b.Attr("spec")),
		Path: strings.TrimSpace(b.Attr("path")), Method: strings.ToLower(strings.TrimSpace(b.Attr("method")))}
	if (ref.Src == "") == (ref.Spec == "") || len(ref.Src) > MaxAPISrc || len(ref.Spec) > MaxAPISpec {
		return APIRef{}, false
	}
	if b.Name == "openapi-schemas" {
		for _, s := range strings.Split(b.Attr("schemas"), ",") {
			if s = strings.TrimSpace(s); s != "" && len(s) <= MaxAPISchema && len(ref.Schemas) < MaxAPISchemas {
				ref.Schemas = append(ref.Schemas, s)
			}
		}
		ref.Path, ref.Method = "", ""
		return ref, len(ref.Schemas) > 0
	}
	ok := strings.HasPrefix(ref.Path, "/") && len(ref.Path) <= MaxAPIPath && apiMethods[ref.Method]
	return ref, ok
}

// apiBlock writes an API reference block: the operation or schemas the
// caller rendered (Options.API), or else a card of what the block holds
// (GitBook writes a link to the spec in it).
func apiBlock(_ *nodeRenderer, t blockTags, b *Block) ast.WalkStatus {
	if b.html != "" {
		if t.entering {
			_, _ = t.w.WriteString(b.html)
		}
		return ast.WalkSkipChildren
	}
	if t.entering {
		title := "API reference"
		if m, p := b.Attr("method"), b.Attr("path"); m != "" && p != "" && len(p) <= MaxAPIPath {
			title += ": " + strings.ToUpper(m) + " " + p
		}
		fmt.Fprintf(t.w, `<div class="api-card card"><p class="api-card-title">%s</p>`+"\n", esc(title))
		if src := b.Attr("src"); b.FirstChild() == nil && (strings.HasPrefix(src, "https://") || strings.HasPrefix(src, "http://")) {
			fmt.Fprintf(t.w, `<p><a href="%s">%s</a></p>`+"\n", esc(src), esc(src))
		}
	}
	t.shut("</div>\n")
	return ast.WalkContinue
}
