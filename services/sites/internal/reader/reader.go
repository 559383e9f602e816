// Package reader serves published sites to their readers, who hold no
// token: it finds the site a URL names (<published>/<org>/<basename or id>,
// or a custom hostname), decides whether the reader may read it (published,
// visibility, share key, visitor JWT), which sections and site spaces they
// see (adaptive content: conditions evaluated on the visitor's claims),
// resolves the page and renders it: HTML with the site's navigation,
// markdown (<page>.md), llms.txt, llms-full.txt, robots.txt, sitemap.xml,
// files and search results.
//
// What a visitor sees comes from one rule, visibility.Of, evaluated on
// their claims: navigation, pages, <page>.md, files, sitemap.xml,
// llms.txt, llms-full.txt and search all read its answer (structure), and
// so does the API's published view of a non-member (Visible).
//
// Content comes from the content service. Which revision of a space is
// current comes from the site's snapshot: the projection of content's
// spaces (spaceview), kept current by content's events, so a page view
// makes no call to content; a projected space without a revision is asked
// about (currents: a check that started after the request arrived, shared
// by the requests waiting for it). Revisions, being immutable, are cached
// with their navigation and files, keyed by organization, space and
// revision (cacheKey); whole pages are cached under the snapshot's version
// too, for every visitor segment (pageHTML). Absolute URLs take their origin from
// PublishedURL or the site's stored hostname, never from the request's
// Host. The site's own structure (site,
// sections, site spaces, projected spaces, keys) is cached for
// limits.ReaderSiteTTL and dropped at once when this instance changes it
// or another's change reaches it as an event (Invalidate, SpaceChanged):
// a change drops the structures of its organization or space alone.
// Share keys are checked on every request.
//
// The package knows neither gin nor the MongoDB driver: readerhttp serves
// it, the stores and the content client are its dependencies.
package reader

import (
	"cmp"
	"context"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/docspub/platform/libs/generations"
	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/quota"
	"github.com/docspub/platform/libs/sizedcache"
	"github.com/docspub/platform/services/sites/internal/condition"
	"github.com/docspub/platform/services/sites/internal/limits"
	"github.com/docspub/platform/services/sites/internal/section"
	"github.com/docspub/platform/services/sites/internal/site"
	"github.com/docspub/platform/services/sites/internal/spaceview"
	"github.com/docspub/platform/services/sites/internal/visibility"
	"golang.org/x/sync/singleflight"
)

// SiteStore is what the reader reads of sites (site.Store).
type SiteStore interface {
	SiteByName(ctx context.Context, org, name string) (site.Site, error)
	SiteByHostname(ctx context.Context, host string) (site.Site, error)
	SiteSpacesIn(ctx context.Context, site string, sections []string) ([]site.SiteSpace, error)
	AdaptiveSchema(ctx context.Context, siteID string) (site.AdaptiveSchema, error)
	PublishingAuth(ctx context.Context, siteID string) (site.PublishingAuth, error)
}

// SectionStore is what the reader reads of sections (section.Store).
type SectionStore interface {
	SiteSections(ctx context.Context, site string) ([]section.Section, error)
	SiteGroups(ctx context.Context, site string) ([]section.Group, error)
}

// Content is what the reader asks the content service
// (sites' contentclient.Client).
type Content interface {
	Current(ctx context.Context, spaceID string) (contentapi.Current, error)
	Content(ctx context.Context, spaceID string) (contentapi.Content, error)
	File(ctx context.Context, spaceID, revisionID, fileID string, ask contentapi.FileAsk) (contentapi.FileAnswer, error)
	Search(ctx context.Context, org string, spaceIDs []string, query string, limit int) ([]contentapi.SearchResult, error)
}

// Deps are the reader's dependencies.
type Deps struct {
	Sites     SiteStore
	Sections  SectionStore
	Spaces    spaceview.Reader // the projection of content's spaces
	ShareKeys site.ShareKeys
	Content   Content
	// Changes are the generations of what the cached site structures are
	// read from, which the stores' writes and the events of other
	// instances bump (nil: the reader's own, for data that never changes).
	Changes *Changes
	// Specs gives the organization's stored OpenAPI specs that API
	// reference blocks name (nil: those blocks are cards).
	Specs Specs
	// PublishedURL is the base of published sites' URLs (PUBLISHED_URL):
	// its path prefixes every site's path, its scheme is the readers'.
	PublishedURL string
	// Now is the clock (nil: the real one).
	Now func() time.Time
	// Log receives what readers cannot be told, like a stored condition
	// the checker refuses (nil: discarded).
	Log *slog.Logger
	// CacheEntries and CacheBytes bound the cache of revisions, pages and
	// files (0: limits.ReaderCacheEntries, limits.ReaderCacheBytes).
	CacheEntries int
	CacheBytes   int64
}

// Reader serves published sites.
type Reader struct {
	deps     Deps
	scheme   string // of published URLs
	host     string // of published URLs
	prefix   string // path of published URLs ("/sites"), without a trailing slash
	now      func() time.Time
	sites    *snapshots
	currents *currents
	cache    *sizedcache.Cache[string, any]
	loads    *quota.Limiter
	searches *quota.Limiter
	conds    *condition.Cache
	markdown *markdown
	// specGens are the generations of organizations' stored OpenAPI
	// specs (SpecsChanged).
	specGens generations.Counters
	// loading reads each revision once however many readers wait for it.
	loading singleflight.Group
}

// New returns a reader.
func New(d Deps) (*Reader, error) {
	u, err := url.Parse(strings.TrimRight(d.PublishedURL, "/"))
	if err != nil {
		return nil, err
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	r := &Reader{deps: d, scheme: u.Scheme, host: u.Host, prefix: strings.TrimRight(u.EscapedPath(), "/"), now: d.Now,
		cache: sizedcache.New[string, any](cmp.Or(d.CacheEntries, limits.ReaderCacheEntries), cmp.Or(d.CacheBytes, limits.ReaderCacheBytes)).Observe("sites.reader"),
		loads: quota.New("revision loads", quota.Limits{PerKey: limits.ReaderRevisionLoadsPerOrg,
			Queue: limits.ReaderRevisionLoadQueue, Total: limits.ReaderRevisionLoads, MaxWait: limits.ReaderRevisionLoadWait}),
		searches: quota.New("searches", quota.Limits{PerKey: limits.ReaderSearchesPerOrg,
			Queue: limits.ReaderSearchQueue, Total: limits.ReaderSearches, MaxWait: limits.ReaderSearchWait}),
		conds:    condition.NewCache(limits.ReaderConditions, d.Log),
		markdown: newMarkdown(),
	}
	if d.Changes == nil {
		d.Changes = NewChanges()
	}
	r.sites = newSnapshots(r, d.Changes, limits.ReaderSites, limits.ReaderSiteTTL)
	r.currents = newCurrents(d.Content.Current, limits.ContentTimeout)
	return r, nil
}

// Visible is what the site's visibility rule shows a visitor without
// claims (the published view's non-member, who has none): the very
// structure the reader serves such a visitor. A site that is unknown, not
// of org, or not published shows nothing.
func (r *Reader) Visible(ctx context.Context, org, siteID string) (visibility.Set, error) {
	snap, err := r.sites.get(ctx, siteKey{org: org, name: siteID})
	if err != nil {
		return visibility.Set{}, err
	}
	if snap.site == nil || snap.site.ID != siteID || snap.site.Organization != org || !snap.site.Published {
		// (A name that is another site's basename finds that site: nothing.)
		return visibility.Of(visibility.Site{}, nil), nil
	}
	return snap.anonymous.set, nil
}

// Cached is how many entries the reader's cache of revisions, pages and
// files holds, and how many sites' structures it keeps (hosts that name no
// site apart): for metrics and tests.
func (r *Reader) Cached() (entries, sites, misses int) {
	return r.cache.Len(), r.sites.cache.Len(), r.sites.misses.Len()
}
