package site

import (
	"context"
	"time"

	"github.com/docspub/platform/libs/envelope"
)

// Store is what sites need from storage. Every write records its events with
// the change (the outbox); reads of one missing item return an apierr
// not-found error, a taken unique key (basename, site space path) a conflict.
type Store interface {
	InsertSite(ctx context.Context, s Site, ev envelope.Event) error
	// UpdateSite applies change to the live site id and stores what it
	// changed with the event change returns (none when its type is empty),
	// as a compare-and-set: a change that lost a race with another runs
	// again on the site as it now is, and after a few lost races the update
	// is a conflict; one that changes nothing writes nothing. A basename
	// another site of the organization uses is a conflict. It returns the
	// site as stored.
	UpdateSite(ctx context.Context, id string, change func(*Site) (envelope.Event, error)) (Site, error)
	// RemoveSite tombstones a site with its deletion event and deletes its
	// site spaces (the site's event says they are gone).
	RemoveSite(ctx context.Context, id string, ev envelope.Event) error
	Site(ctx context.Context, id string) (Site, error)
	Sites(ctx context.Context, q SiteQuery) ([]Site, int, error)

	// AdaptiveSchema returns a site's adaptive schema; not found when the
	// site never set one.
	AdaptiveSchema(ctx context.Context, siteID string) (AdaptiveSchema, error)
	// SetAdaptiveSchema stores a site's adaptive schema with its event.
	SetAdaptiveSchema(ctx context.Context, sc AdaptiveSchema, ev envelope.Event) error

	// PublishingAuth returns a site's publishing auth; not found when it has none yet.
	PublishingAuth(ctx context.Context, siteID string) (PublishingAuth, error)
	// InsertPublishingAuth stores a site's first publishing auth; a
	// conflict when it has one.
	InsertPublishingAuth(ctx context.Context, pa PublishingAuth, ev envelope.Event) error
	// UpdatePublishingAuth changes a site's publishing auth as UpdateSite
	// changes a site.
	UpdatePublishingAuth(ctx context.Context, siteID string, change func(*PublishingAuth) (envelope.Event, error)) (PublishingAuth, error)

	// SiteByName returns org's live site whose basename is name, else the
	// one whose id is name.
	SiteByName(ctx context.Context, org, name string) (Site, error)
	// SiteByHostname returns the live site that verified host and still
	// holds it (HostnameVerified).
	SiteByHostname(ctx context.Context, host string) (Site, error)
	// HostnameHolder is SiteByHostname: the site a claim of host loses to.
	HostnameHolder(ctx context.Context, host string) (Site, error)
	// VerifyHostname records that a site verified host: a conflict when
	// another live site verified it and still holds it.
	VerifyHostname(ctx context.Context, host, org, siteID string) error
	// ReleaseHostname frees a hostname the site verified (nothing when it
	// did not).
	ReleaseHostname(ctx context.Context, host, siteID string) error
	// HostnameClaims returns up to limit sites whose hostname claim is
	// pending and was last checked before checkedBefore, or that name a
	// hostname without a claim; those checked longest ago first.
	HostnameClaims(ctx context.Context, checkedBefore time.Time, limit int) ([]Site, error)
	// SitesClaiming returns the sites but except whose claim of host is pending.
	SitesClaiming(ctx context.Context, host, except string) ([]Site, error)

	InsertSiteSpace(ctx context.Context, ss SiteSpace, ev envelope.Event) error
	// UpdateSiteSpace changes a site space as UpdateSite changes a site; a
	// path a sibling uses is a conflict.
	UpdateSiteSpace(ctx context.Context, id string, change func(*SiteSpace) (envelope.Event, error)) (SiteSpace, error)
	RemoveSiteSpace(ctx context.Context, id string, ev envelope.Event) error
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
