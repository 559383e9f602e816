// Package sitesapi is the contract of the sites service's internal API
// and of its events (events.go), shared by sites (the provider) and its
// callers:
//
//	GET /internal/v1/sites/{siteId}   Site, for the insights service alone
//	                                  (404: no such live site)
//	GET /internal/v1/hostnames/{host} Site, for the gateway alone (404: no
//	                                  live site verified the hostname)
//
// Insights asks the first when its projection of sites.events does not
// know a site yet (a site created a moment ago), so that a client may post
// events for a site at once after creating it. The gateway asks the second
// before it obtains a TLS certificate for a custom hostname: only a
// hostname a site verified (its TXT record) gets one.
package sitesapi

import "net/url"

// Service is sites' name in discovery and the audience of its tokens.
const Service = "sites"

// Insights is the one caller of the site lookup.
const Insights = "insights"

// Gateway is the one caller of the hostname lookup.
const Gateway = "gateway"

// MaxHostname is the longest hostname the lookup answers for; a longer one
// is no site's.
const MaxHostname = 253

// MaxSiteBytes bounds the answer of the site lookup.
const MaxSiteBytes = 1 << 10

// SitePath is the lookup of the site id.
func SitePath(id string) string { return "/internal/v1/sites/" + url.PathEscape(id) }

// HostnamePath is the lookup of the site that verified host.
func HostnamePath(host string) string { return "/internal/v1/hostnames/" + url.PathEscape(host) }

// Site is a live site: its id and its organization.
type Site struct {
	ID           string `json:"id"`
	Organization string `json:"organizationId"`
}
