// Package sitesclient asks the sites service, through internalclient,
// about a site insights' projection does not know yet (GET
// /internal/v1/sites/{siteId}, sitesapi): the siteview.Owner of the
// projection.
package sitesclient

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/docspub/platform/libs/discovery"
	"github.com/docspub/platform/libs/internalapi/sitesapi"
	"github.com/docspub/platform/libs/internalclient"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/services/insights/internal/siteview"
)

// Service is sites' name in discovery and the audience of the tokens the
// client mints.
const Service = sitesapi.Service

// timeout bounds a call (siteview bounds its questions tighter).
const timeout = 5 * time.Second

// Client calls sites.
type Client struct {
	sites *internalclient.Client
}

// New returns a client that finds sites through resolver and signs with signer.
func New(resolver discovery.Resolver, signer *internaltoken.Signer) *Client {
	return &Client{sites: internalclient.New(Service, resolver, signer, timeout)}
}

// Site implements siteview.Owner: the live site id, false when sites
// answers 404. Sites not answering is a 503 (internalclient); another
// refusal is an error of ours (500), not an answer about the site.
func (c *Client) Site(ctx context.Context, id string) (siteview.Site, bool, error) {
	var out sitesapi.Site
	err := c.sites.Do(ctx, internalclient.Request{Method: http.MethodGet, Path: sitesapi.SitePath(id), What: "site"}, &out, sitesapi.MaxSiteBytes)
	switch s := internalclient.StatusOf(err); {
	case err == nil:
	case s == http.StatusNotFound:
		return siteview.Site{}, false, nil
	case s >= 400 && s < 500:
		return siteview.Site{}, false, fmt.Errorf("ask sites about site %s: %w", id, err)
	default:
		return siteview.Site{}, false, err
	}
	if out.ID != id || out.Organization == "" {
		return siteview.Site{}, false, fmt.Errorf("ask sites about site %s: answered %+v", id, out)
	}
	return siteview.Site{ID: out.ID, Organization: out.Organization}, true, nil
}
