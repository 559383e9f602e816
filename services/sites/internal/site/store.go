package site

import (
	"context"

	"github.com/docspub/platform/libs/kafkax"
)

// Store is what sites need from storage. Every write records its events with
// the change (the outbox); reads of one missing item return an apierr
// not-found error, a taken unique key (basename, site space path) a conflict.
type Store interface {
	InsertSite(ctx context.Context, s Site, ev kafkax.Event) error
	SetSite(ctx context.Context, id string, set Fields, ev kafkax.Event) error
	// RemoveSite tombstones a site with its deletion event and deletes its
	// site spaces (the site's event says they are gone).
	RemoveSite(ctx context.Context, id string, ev kafkax.Event) error
	Site(ctx context.Context, id string) (Site, error)
	Sites(ctx context.Context, q SiteQuery) ([]Site, int, error)

	// AdaptiveSchema returns a site's adaptive schema; not found when the
	// site never set one.
	AdaptiveSchema(ctx context.Context, siteID string) (AdaptiveSchema, error)
	// SetAdaptiveSchema stores a site's adaptive schema with its event.
	SetAdaptiveSchema(ctx context.Context, sc AdaptiveSchema, ev kafkax.Event) error

	// PublishingAuth returns a site's publishing auth; not found when it has none yet.
	PublishingAuth(ctx context.Context, siteID string) (PublishingAuth, error)
	// InsertPublishingAuth stores a site's first publishing auth; a
	// conflict when it has one.
	InsertPublishingAuth(ctx context.Context, pa PublishingAuth, ev kafkax.Event) error
	// SetPublishingAuth changes fields of a site's publishing auth, only
	// while its private key is key ("" for any): else not found.
	SetPublishingAuth(ctx context.Context, siteID, key string, set Fields, ev kafkax.Event) error

	// SiteByName returns org's live site whose basename is name, else the
	// one whose id is name.
	SiteByName(ctx context.Context, org, name string) (Site, error)
	// SiteByHostname returns the live site whose custom hostname is host.
	SiteByHostname(ctx context.Context, host string) (Site, error)
	// ClaimHostname reserves a custom hostname for a site: a conflict when
	// another live site has it.
	ClaimHostname(ctx context.Context, host, org, siteID string) error
	// ReleaseHostname frees a hostname the site claimed (nothing when it
	// did not).
	ReleaseHostname(ctx context.Context, host, siteID string) error

	InsertSiteSpace(ctx context.Context, ss SiteSpace, ev kafkax.Event) error
	SetSiteSpace(ctx context.Context, id string, set Fields, ev kafkax.Event) error
	RemoveSiteSpace(ctx context.Context, id string, ev kafkax.Event) error
	SiteSpace(ctx context.Context, id string) (SiteSpace, error)
	// SiteSpacesIn returns the site spaces of a site in the given sections
	// ("" for site-level ones), by position then id.
	SiteSpacesIn(ctx context.Context, site string, sections []string) ([]SiteSpace, error)
	// SiteSpaces returns a page of a site's site spaces by position then id
	// and the count of all matching.
	SiteSpaces(ctx context.Context, q SiteSpaceQuery) ([]SiteSpace, int, error)
	// SpacesOf returns the distinct space ids a site's site spaces embed.
	SpacesOf(ctx context.Context, site string) ([]string, error)
	// CountSiteSpaces counts the site spaces of each site.
	CountSiteSpaces(ctx context.Context, sites []string) (map[string]int, error)
	// SitesWithSpace returns the ids of org's sites that embed space.
	SitesWithSpace(ctx context.Context, org, space string) ([]string, error)
}

// SiteQuery selects a page of an organization's sites by id.
type SiteQuery struct {
	Organization string
	IDs          []string // nil: any; else only these
	Title        string   // case-insensitive substring; "" any
	Published    *bool
	AfterID      string
	Limit        int
}

// SiteSpaceQuery selects a page of a site's site spaces by position.
type SiteSpaceQuery struct {
	Site          string
	Default       *bool
	ExcludeSpaces []string // site spaces of these spaces are left out
	AfterPosition int64
	AfterID       string
	Limit         int
}
