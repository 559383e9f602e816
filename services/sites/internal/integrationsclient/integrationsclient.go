// Package integrationsclient asks the integrations service, over its
// internal API and internalclient, for the organization's stored OpenAPI
// specs that published pages' API reference blocks name
// (integrationsapi.PublishedSpecPath), with a token of the sites service
// alone.
package integrationsclient

import (
	"context"
	"net/http"

	"github.com/docspub/platform/libs/discovery"
	"github.com/docspub/platform/libs/internalapi/integrationsapi"
	"github.com/docspub/platform/libs/internalclient"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/services/sites/internal/apiref"
	"github.com/docspub/platform/services/sites/internal/limits"
)

// Service is integrations' name in discovery.
const Service = integrationsapi.Service

// ErrNoSpec is integrations' answer about a spec the organization does not
// have, or that has no version yet.
var ErrNoSpec = integrationsapi.ErrNoSpec

// Client calls integrations.
type Client struct {
	c *internalclient.Client
}

// New returns a client that finds integrations through resolver and signs
// with signer (the sites service's).
func New(resolver discovery.Resolver, signer *internaltoken.Signer) *Client {
	return &Client{c: internalclient.New(Service, resolver, signer, limits.ContentTimeout)}
}

// PublishedSpec reads org's spec slug's last version, at most
// apiref.MaxSpecBytes of document: a 404 is ErrNoSpec, any other failure
// an error.
func (c *Client) PublishedSpec(ctx context.Context, org, slug string) (integrationsapi.PublishedSpec, error) {
	return c.published(ctx, integrationsapi.PublishedSpecPath(org, slug))
}

// PublishedSpecByURL is PublishedSpec of org's spec whose source is the
// URL u (integrations fetched it; nothing is fetched here).
func (c *Client) PublishedSpecByURL(ctx context.Context, org, u string) (integrationsapi.PublishedSpec, error) {
	return c.published(ctx, integrationsapi.PublishedSpecByURLPath(org, u))
}

func (c *Client) published(ctx context.Context, path string) (integrationsapi.PublishedSpec, error) {
	var out integrationsapi.PublishedSpec
	err := c.c.Do(ctx, internalclient.Request{Method: http.MethodGet, Path: path,
		What: "OpenAPI spec"}, &out, apiref.MaxSpecBytes+4096)
	if internalclient.StatusOf(err) == http.StatusNotFound {
		return out, ErrNoSpec
	}
	return out, err
}
