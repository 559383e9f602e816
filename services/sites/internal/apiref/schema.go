package apiref

import (
	"encoding/json"
	"path"
	"slices"
	"strings"

	yaml "github.com/pb33f/go-yaml"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
)

// schema writes a schema: its properties' table (nested ones indented, to
// MaxDepth, at most MaxRows rows), or its type when it has none.
func (w *writer) schema(sp *base.SchemaProxy) {
	sc := objectOf(schemaOf(sp))
	if sc == nil || sc.Properties == nil || sc.Properties.Len() == 0 {
		w.f(`<p class="api-type">Type: <code>%s</code></p>`+"\n", esc(typeOf(sp)))
		return
	}
	w.rows = 0
	w.f(`<table class="api-schema-props"><thead><tr><th>Property</th><th>Type</th><th>Required</th><th>Description</th></tr></thead><tbody>` + "\n")
	w.props(sc, "", 1)
	w.f("</tbody></table>\n")
}

// props writes the rows of a schema's properties, prefix naming where
// they are ("owner.").
func (w *writer) props(sc *base.Schema, prefix string, depth int) {
	for name, p := range sc.Properties.FromOldest() {
		if w.rows >= MaxRows {
			return
		}
		w.rows++
		ps := schemaOf(p)
		desc := ""
		if ps != nil {
			desc = ps.Description
		}
		w.f(`<tr><td><code class="api-name">%s</code></td><td>%s</td><td>%s</td><td>`,
			esc(prefix+name), esc(typeOf(p)), yesNo(slices.Contains(sc.Required, name)))
		w.markdown("api-description", desc)
		w.f("</td></tr>\n")
		if inner := objectOf(ps); inner != nil && depth < MaxDepth && inner.Properties != nil {
			suffix := "."
			if isArray(ps) {
				suffix = "[]."
			}
			w.props(inner, prefix+name+suffix, depth+1)
		}
	}
}

// objectOf is the schema whose properties a schema shows: its own, its
// items' for an array, its first allOf's with properties otherwise.
func objectOf(sc *base.Schema) *base.Schema {
	if sc == nil {
		return nil
	}
	if sc.Properties != nil && sc.Properties.Len() > 0 {
		return sc
	}
	if isArray(sc) && sc.Items != nil && sc.Items.IsA() {
		if it := schemaOf(sc.Items.A); it != nil && it.Properties != nil && it.Properties.Len() > 0 {
			return it
		}
	}
	for _, a := range sc.AllOf {
		if s := schemaOf(a); s != nil && s.Properties != nil && s.Properties.Len() > 0 {
			return s
		}
	}
	return nil
}

func isArray(sc *base.Schema) bool { return sc != nil && slices.Contains(sc.Type, "array") }

// typeOf names a schema's type: a component's name, "array of …", the
// type with its format, or the alternatives of a oneOf/anyOf.
func typeOf(sp *base.SchemaProxy) string {
	return typeName(sp, 0)
}

func typeName(sp *base.SchemaProxy, depth int) string {
	if sp == nil {
		return "any"
	}
	if ref := sp.GetReference(); ref != "" && (strings.Contains(ref, "#/components/schemas/") || strings.Contains(ref, "#/definitions/")) {
		return path.Base(ref)
	}
	sc := schemaOf(sp)
	if sc == nil || depth > 3 {
		return "any"
	}
	if isArray(sc) && sc.Items != nil && sc.Items.IsA() {
		return "array of " + typeName(sc.Items.A, depth+1)
	}
	alts := sc.OneOf
	if len(alts) == 0 {
		alts = sc.AnyOf
	}
	if len(sc.Type) == 0 && len(alts) > 0 {
		var names []string
		for _, a := range alts[:min(len(alts), 5)] {
			names = append(names, typeName(a, depth+1))
		}
		return strings.Join(names, " | ")
	}
	t := strings.Join(sc.Type, " | ")
	if t == "" {
		t = "object"
	}
	if sc.Format != "" {
		t += " (" + sc.Format + ")"
	}
	if len(sc.Enum) > 0 {
		t += " enum"
	}
	return t
}

// exampleOf is a media type's example as indented JSON: its example, its
// first named example, its schema's example, or one made of its schema.
func exampleOf(mt *v3.MediaType) string {
	var n *yaml.Node
	switch {
	case mt.Example != nil:
		n = mt.Example
	case mt.Examples != nil && mt.Examples.Len() > 0:
		if ex := mt.Examples.First().Value(); ex != nil {
			n = ex.Value
		}
	}
	if n == nil {
		if sc := schemaOf(mt.Schema); sc != nil && sc.Example != nil {
			n = sc.Example
		}
	}
	var v any
	if n == nil || n.Decode(&v) != nil {
		if mt.Schema == nil {
			return ""
		}
		v = sample(mt.Schema, 0)
	}
	return bounded(v)
}

// bounded is v as indented JSON, cut at MaxExampleBytes.
func bounded(v any) string {
	b, err := json.MarshalIndent(jsonable(v), "", "  ")
	if err != nil {
		return ""
	}
	if len(b) > MaxExampleBytes {
		return string(b[:MaxExampleBytes]) + "\n…"
	}
	return string(b)
}

// jsonable turns the map[any]any YAML may decode into map[string]any.
func jsonable(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = jsonable(e)
		}
	case map[any]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			if s, ok := k.(string); ok {
				m[s] = jsonable(e)
			}
		}
		return m
	case []any:
		for i, e := range t {
			t[i] = jsonable(e)
		}
	}
	return v
}

// sample makes a value of a schema: its example, default or first enum
// value, or a value of its type (objects to MaxDepth, at most MaxRows
// properties each).
func sample(sp *base.SchemaProxy, depth int) any {
	sc := schemaOf(sp)
	if sc == nil || depth > MaxDepth {
		return nil
	}
	for _, n := range []*yaml.Node{sc.Example, sc.Default} {
		var v any
		if n != nil && n.Decode(&v) == nil {
			return v
		}
	}
	if len(sc.Enum) > 0 {
		var v any
		if sc.Enum[0].Decode(&v) == nil {
			return v
		}
	}
	if obj := objectOf(sc); obj != nil && !isArray(sc) {
		m := map[string]any{}
		for name, p := range obj.Properties.FromOldest() {
			if len(m) >= MaxRows {
				break
			}
			m[name] = sample(p, depth+1)
		}
		return m
	}
	switch {
	case isArray(sc):
		if sc.Items != nil && sc.Items.IsA() {
			return []any{sample(sc.Items.A, depth+1)}
		}
		return []any{}
	case slices.Contains(sc.Type, "integer"), slices.Contains(sc.Type, "number"):
		return 0
	case slices.Contains(sc.Type, "boolean"):
		return true
	case slices.Contains(sc.Type, "string"):
		return "string"
	}
	return nil
}
