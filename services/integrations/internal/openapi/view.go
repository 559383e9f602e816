package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/docspub/platform/services/integrations/internal/access"
	"github.com/docspub/platform/services/integrations/internal/limits"
	"go.yaml.in/yaml/v3"
)

// View is a spec as the API returns it (OpenAPISpec).
type View struct {
	Object                  string        `json:"object"`
	ID                      string        `json:"id"`
	CreatedAt               time.Time     `json:"createdAt"`
	UpdatedAt               time.Time     `json:"updatedAt"`
	Slug                    string        `json:"slug"`
	SourceURL               string        `json:"sourceURL,omitempty"`
	ProcessingState         string        `json:"processingState"`
	Visibility              string        `json:"visibility"`
	LastVersion             string        `json:"lastVersion,omitempty"`
	LastProcessedAt         *time.Time    `json:"lastProcessedAt,omitempty"`
	LastProcessErrorCode    string        `json:"lastProcessErrorCode,omitempty"`
	LastProcessedErrors     []ErrorObject `json:"lastProcessedErrors,omitempty"`
	LastProcessedErrorCount int           `json:"lastProcessedErrorCount"`
	Permissions             Permissions   `json:"permissions"`
	URLs                    URLs          `json:"urls"`
}

// Permissions say what the caller may do with a spec.
type Permissions struct {
	View bool `json:"view"`
	Edit bool `json:"edit"`
}

// URLs are a spec's URLs.
type URLs struct {
	Location string `json:"location"`
	App      string `json:"app"`
}

// VersionView is a version as the API returns it (OpenAPISpecVersion).
type VersionView struct {
	Object    string    `json:"object"`
	ID        string    `json:"id"`
	CreatedAt time.Time `json:"createdAt"`
	URL       string    `json:"url"`
	URLs      struct {
		Location string `json:"location"`
	} `json:"urls"`
}

// ContentView is a version's content (OpenAPISpecContent): the document
// as JSON under filesystem.
type ContentView struct {
	Filesystem json.RawMessage `json:"filesystem"`
	URLs       ContentURLs     `json:"urls"`
}

// ContentURLs are the URLs of a version's content.
type ContentURLs struct {
	Source string  `json:"source"`
	Public *string `json:"public"`
}

// RawView is a version's content as fetched (OpenAPISpecRawContent).
type RawView struct {
	Text   string `json:"text"`
	Format string `json:"format"`
}

func (s *Service) location(sp Spec) string {
	return s.public + "/v1/orgs/" + sp.Organization + "/openapi/" + sp.Slug
}

func (s *Service) view(sp Spec, c access.Caller) View {
	r, _ := c.Role(sp.Organization)
	return View{Object: "openapi-spec", ID: sp.ID, CreatedAt: sp.CreatedAt, UpdatedAt: sp.UpdatedAt, Slug: sp.Slug,
		SourceURL: sp.SourceURL, ProcessingState: sp.State, Visibility: sp.Visibility, LastVersion: sp.LastVersion,
		LastProcessedAt: sp.LastProcessedAt, LastProcessErrorCode: sp.LastErrorCode, LastProcessedErrors: sp.LastErrors,
		LastProcessedErrorCount: len(sp.LastErrors),
		Permissions:             Permissions{View: access.Allows(r, access.View), Edit: access.Allows(r, access.Edit)},
		URLs: URLs{Location: s.location(sp),
			App: s.app + "/o/" + sp.Organization + "/openapi/" + sp.Slug}}
}

func (s *Service) versionView(sp Spec, v Version) VersionView {
	out := VersionView{Object: "openapi-spec-version", ID: v.ID, CreatedAt: v.CreatedAt}
	out.URLs.Location = s.location(sp) + "/versions/" + v.ID
	out.URL = out.URLs.Location + "/content"
	return out
}

func (s *Service) contentView(sp Spec, v Version, doc json.RawMessage) ContentView {
	src := v.SourceURL
	if src == "" {
		src = s.location(sp) + "/versions/" + v.ID + "/content/raw"
	}
	var public *string
	if sp.Visibility == VisibilityPublic {
		public = &src
	}
	return ContentView{Filesystem: doc, URLs: ContentURLs{Source: src, Public: public}}
}

// renderJSON renders a document as JSON: JSON as it is, YAML from its
// decoded nodes (doc), keys in their order, numbers and booleans as YAML
// 1.2 reads them, other scalars as strings. Aliases are expanded; the
// output is bounded by limits.SpecNodes nodes.
func renderJSON(raw []byte, doc *yaml.Node) ([]byte, error) {
	if doc == nil {
		return raw, nil
	}
	r := renderer{budget: 2 * limits.SpecNodes}
	r.buf.Grow(len(raw) + len(raw)/4)
	if err := r.node(doc); err != nil {
		return nil, err
	}
	return r.buf.Bytes(), nil
}

type renderer struct {
	buf    bytes.Buffer
	budget int
	depth  int
}

var errRenderTooLarge = fmt.Errorf("the document expands to more than %d nodes", 2*limits.SpecNodes)

func (r *renderer) node(n *yaml.Node) error {
	if r.budget--; r.budget < 0 {
		return errRenderTooLarge
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			r.buf.WriteString("null")
			return nil
		}
		return r.node(n.Content[0])
	case yaml.AliasNode:
		if r.depth++; r.depth > limits.SpecDepth {
			return fmt.Errorf("aliases nest deeper than %d levels", limits.SpecDepth)
		}
		defer func() { r.depth-- }()
		return r.node(n.Alias)
	case yaml.MappingNode:
		r.buf.WriteByte('{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				r.buf.WriteByte(',')
			}
			k := n.Content[i]
			for k.Kind == yaml.AliasNode && k.Alias != nil {
				k = k.Alias
			}
			r.str(k.Value)
			r.buf.WriteByte(':')
			if err := r.node(n.Content[i+1]); err != nil {
				return err
			}
		}
		r.buf.WriteByte('}')
	case yaml.SequenceNode:
		r.buf.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				r.buf.WriteByte(',')
			}
			if err := r.node(c); err != nil {
				return err
			}
		}
		r.buf.WriteByte(']')
	default:
		r.scalar(n)
	}
	return nil
}

func (r *renderer) scalar(n *yaml.Node) {
	switch n.ShortTag() {
	case "!!null":
		r.buf.WriteString("null")
		return
	case "!!bool":
		var v bool
		if n.Decode(&v) == nil {
			r.buf.WriteString(strconv.FormatBool(v))
			return
		}
	case "!!int":
		var v int64
		if n.Decode(&v) == nil {
			r.buf.WriteString(strconv.FormatInt(v, 10))
			return
		}
	case "!!float":
		var v float64
		if n.Decode(&v) == nil && !math.IsInf(v, 0) && !math.IsNaN(v) {
			r.buf.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
			return
		}
	}
	r.str(n.Value)
}

func (r *renderer) str(s string) {
	b, _ := json.Marshal(s)
	r.buf.Write(b)
}
