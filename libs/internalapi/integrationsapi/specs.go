package integrationsapi

import (
	"encoding/json"
	"errors"
	"net/url"
)

// Service is integrations' name in discovery and the audience of its
// tokens; Sites is the name of the service that reads published specs.
const (
	Service = "integrations"
	Sites   = "sites"
)

// PublishedSpecPath is where the sites service reads the last version of
// an organization's stored OpenAPI spec, by slug, for the API reference
// blocks of published pages (GET, a token of the sites service alone):
// a PublishedSpec; 404 when the organization has no such spec, or it has
// no version yet.
func PublishedSpecPath(org, slug string) string {
	return "/internal/v1/orgs/" + url.PathEscape(org) + "/openapi/" + url.PathEscape(slug) + "/published"
}

// PublishedSpecByURLPath is PublishedSpecPath for the organization's first
// spec (by id) whose source is the URL u: an {% openapi src="<URL>" %}
// block shows it, and nothing is fetched for it while a reader waits.
func PublishedSpecByURLPath(org, u string) string {
	return "/internal/v1/orgs/" + url.PathEscape(org) + "/openapi-published?url=" + url.QueryEscape(u)
}

// PublishedSpec is a stored spec's last version: its id, the SHA-256 of its
// content, and the document as JSON (a YAML source's JSON rendering).
type PublishedSpec struct {
	Slug     string          `json:"slug"`
	Version  string          `json:"version"`
	Digest   string          `json:"digest"`
	Document json.RawMessage `json:"document"`
}

// ErrNoSpec is the sites service's error for a spec integrations answered
// 404 about: the organization has no such spec, or it has no version yet.
var ErrNoSpec = errors.New("integrations has no such OpenAPI spec")
