package openapi

import (
	"encoding/json"
	"time"

	"github.com/docspub/platform/services/integrations/internal/access"
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

// toJSON renders a JSON or YAML document as JSON.
func toJSON(raw []byte) (json.RawMessage, error) {
	if json.Valid(raw) {
		return raw, nil
	}
	var v any
	if err := yaml.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}
