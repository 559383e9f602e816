package apiref

import (
	"slices"
	"strings"

	yaml "github.com/pb33f/go-yaml"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	v2 "github.com/pb33f/libopenapi/datamodel/high/v2"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/orderedmap"
)

// fromSwagger2 is a Swagger 2.0 document (libopenapi's model of it) as
// the OpenAPI 3 document it says the same as, for what is rendered: its
// schemes, host and basePath become a server, an "in: body" parameter the
// request body (of the operation's consumes), a response's schema and
// examples its content (of its produces), definitions and
// securityDefinitions the components. Schemas are libopenapi's own, shared
// by both models; "formData" parameters stay parameters.
func fromSwagger2(sw *v2.Swagger) *v3.Document {
	doc := &v3.Document{Version: sw.Swagger, Info: sw.Info, Security: sw.Security, Tags: sw.Tags,
		Servers: servers2(sw.Schemes, sw.Host, sw.BasePath), Components: &v3.Components{}}
	if sw.Definitions != nil {
		doc.Components.Schemas = sw.Definitions.Definitions
	}
	if sw.SecurityDefinitions != nil && sw.SecurityDefinitions.Definitions != nil {
		doc.Components.SecuritySchemes = orderedmap.New[string, *v3.SecurityScheme]()
		for name, sc := range sw.SecurityDefinitions.Definitions.FromOldest() {
			if sc != nil {
				doc.Components.SecuritySchemes.Set(name, scheme2(sc))
			}
		}
	}
	if sw.Paths == nil || sw.Paths.PathItems == nil {
		return doc
	}
	doc.Paths = &v3.Paths{PathItems: orderedmap.New[string, *v3.PathItem]()}
	for p, item := range sw.Paths.PathItems.FromOldest() {
		if item == nil {
			continue
		}
		out := &v3.PathItem{}
		out.Parameters, _ = params2(item.Parameters, nil)
		for _, m := range []struct {
			from *v2.Operation
			to   **v3.Operation
		}{
			{item.Get, &out.Get}, {item.Put, &out.Put}, {item.Post, &out.Post}, {item.Delete, &out.Delete},
			{item.Options, &out.Options}, {item.Head, &out.Head}, {item.Patch, &out.Patch},
		} {
			if m.from != nil {
				*m.to = operation2(sw, m.from)
			}
		}
		doc.Paths.PathItems.Set(p, out)
	}
	return doc
}

// servers2 is the server of a Swagger 2.0 document or operation: its
// first scheme (https when it has it or none), host and basePath; none
// when it has neither host nor basePath.
func servers2(schemes []string, host, basePath string) []*v3.Server {
	if host == "" && basePath == "" {
		return nil
	}
	u := strings.TrimRight(basePath, "/")
	if host != "" {
		scheme := "https"
		if len(schemes) > 0 && !slices.Contains(schemes, "https") {
			scheme = schemes[0]
		}
		u = scheme + "://" + host + u
	}
	return []*v3.Server{{URL: u}}
}

// scheme2 is a Swagger 2.0 security scheme: basic is HTTP's.
func scheme2(sc *v2.SecurityScheme) *v3.SecurityScheme {
	out := &v3.SecurityScheme{Type: sc.Type, Description: sc.Description, Name: sc.Name, In: sc.In}
	if sc.Type == "basic" {
		out.Type, out.Scheme = "http", "basic"
	}
	return out
}

// operation2 is a Swagger 2.0 operation.
func operation2(sw *v2.Swagger, op *v2.Operation) *v3.Operation {
	out := &v3.Operation{Tags: op.Tags, Summary: op.Summary, Description: op.Description, OperationId: op.OperationId,
		Security: op.Security}
	if op.Deprecated {
		out.Deprecated = &op.Deprecated
	}
	if len(op.Schemes) > 0 {
		out.Servers = servers2(op.Schemes, sw.Host, sw.BasePath)
	}
	consumes := mediaTypes(op.Consumes, sw.Consumes)
	var body *v2.Parameter
	out.Parameters, body = params2(op.Parameters, consumes)
	if body != nil {
		out.RequestBody = &v3.RequestBody{Description: body.Description, Required: body.Required,
			Content: orderedmap.New[string, *v3.MediaType]()}
		for _, typ := range consumes {
			out.RequestBody.Content.Set(typ, &v3.MediaType{Schema: body.Schema})
		}
	}
	if op.Responses != nil {
		produces := mediaTypes(op.Produces, sw.Produces)
		out.Responses = &v3.Responses{Codes: orderedmap.New[string, *v3.Response]()}
		for code, r := range op.Responses.Codes.FromOldest() {
			if r != nil {
				out.Responses.Codes.Set(code, response2(r, produces))
			}
		}
		if op.Responses.Default != nil {
			out.Responses.Default = response2(op.Responses.Default, produces)
		}
	}
	return out
}

// mediaTypes are an operation's consumes or produces, else its document's,
// else JSON (at most three).
func mediaTypes(own, doc []string) []string {
	l := own
	if len(l) == 0 {
		l = doc
	}
	if len(l) == 0 {
		return []string{"application/json"}
	}
	return l[:min(len(l), 3)]
}

// params2 are Swagger 2.0 parameters, and the "in: body" one apart.
func params2(ps []*v2.Parameter, consumes []string) ([]*v3.Parameter, *v2.Parameter) {
	var out []*v3.Parameter
	var body *v2.Parameter
	for _, p := range ps {
		switch {
		case p == nil:
		case p.In == "body":
			body = p
		default:
			out = append(out, &v3.Parameter{Name: p.Name, In: p.In, Description: p.Description, Required: p.Required,
				Schema: base.CreateSchemaProxy(paramSchema(p.Type, p.Format, p.Items, p.Enum, 0))})
		}
	}
	return out, body
}

// paramSchema is the schema of a Swagger 2.0 parameter's (or items')
// type, format, items and enum.
func paramSchema(typ, format string, items *v2.Items, enum []*yaml.Node, depth int) *base.Schema {
	sc := &base.Schema{Format: format, Enum: enum}
	if typ != "" {
		sc.Type = []string{typ}
	}
	if items != nil && depth < MaxDepth {
		sc.Items = &base.DynamicValue[*base.SchemaProxy, bool]{
			A: base.CreateSchemaProxy(paramSchema(items.Type, items.Format, items.Items, items.Enum, depth+1))}
	}
	return sc
}

// response2 is a Swagger 2.0 response: its examples by media type, each
// with its schema, or its schema as the first of produces.
func response2(r *v2.Response, produces []string) *v3.Response {
	out := &v3.Response{Description: r.Description}
	if r.Examples != nil && r.Examples.Values != nil && r.Examples.Values.Len() > 0 {
		out.Content = orderedmap.New[string, *v3.MediaType]()
		for typ, ex := range r.Examples.Values.FromOldest() {
			out.Content.Set(typ, &v3.MediaType{Schema: r.Schema, Example: ex})
		}
		return out
	}
	if r.Schema != nil {
		out.Content = orderedmap.New[string, *v3.MediaType]()
		out.Content.Set(produces[0], &v3.MediaType{Schema: r.Schema})
	}
	return out
}
