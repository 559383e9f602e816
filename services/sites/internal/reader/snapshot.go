package reader

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/generations"
	"github.com/docspub/platform/libs/sizedcache"
	"github.com/docspub/platform/services/sites/internal/section"
	"github.com/docspub/platform/services/sites/internal/site"
	"github.com/docspub/platform/services/sites/internal/spaceview"
	"github.com/docspub/platform/services/sites/internal/visibility"
	"golang.org/x/sync/singleflight"
)

// snapshot is a site's structure as its readers need it, read from the
// stores at once: the site, its sections and groups, its site spaces, the
// projected spaces they embed (live and in the site's organization only),
// its claim schema and publishing auth. A snapshot whose site is nil
// records that no site answers the name.
type snapshot struct {
	site     *site.Site
	sections []section.Section
	groups   []section.Group
	// siteSpaces are the site spaces by section ("" the site level), each
	// in order.
	siteSpaces map[string][]site.SiteSpace
	spaces     map[string]spaceview.Space
	claims     claimSchema
	schema     string // the adaptive schema claims come from
	auth       *site.PublishingAuth
	// vis is what the visibility rule reads of the site.
	vis visibility.Site
	// anonymous is the structure a visitor without claims sees.
	anonymous *structure

	// version is a digest of everything above: what decides who reads
	// the site and what its pages show. Whole pages are cached under it, so
	// a snapshot reloaded unchanged finds them, and any change (the site's
	// visibility, a section, a site space, a projected space's revision)
	// names new entries: no page cached for another state is ever served.
	version string
	// id tells snapshots apart.
	id uint64
	// stamp is the generations of what the snapshot was read from (keys),
	// expires the end of its TTL.
	stamp   generations.Stamp
	expires time.Time
}

// snapshotIDs numbers snapshots.
var snapshotIDs atomic.Uint64

// snapshots caches snapshots by the name a URL gives the site. A host that
// names no site is remembered apart (misses): hosts are the reader's to
// choose, and however many it sends, they never push a site out.
//
// A change drops the snapshots it may have changed alone, in O(1) (gens):
// a sites change those of its organization, a change of a space those
// of the sites showing it, any sites change the misses (it may have
// verified the hostname one names). Another organization's snapshots
// stay.
type snapshots struct {
	r      *Reader
	ttl    time.Duration
	cache  *sizedcache.Cache[string, *snapshot]
	misses *sizedcache.Cache[string, *snapshot]
	gens   *generations.Counters // of orgKey, spaceKey and hostsKey (Changes')
	group  singleflight.Group
}

func newSnapshots(r *Reader, changes *Changes, size int, ttl time.Duration) *snapshots {
	return &snapshots{r: r, ttl: ttl, cache: sizedcache.New[string, *snapshot](size, 0).Observe("sites.snapshots"),
		misses: sizedcache.New[string, *snapshot](size, 0), gens: &changes.gens}
}

// The keys of the generations a snapshot is read from: its organization,
// each space it shows, and for a host that names no site, every hostname.
func orgKey(org string) string       { return "o\x00" + org }
func spaceKey(spaceID string) string { return "s\x00" + spaceID }

const hostsKey = "h"

// Changes are the generations of what the reader's cached site
// structures (snapshots) are read from: it is built before the stores,
// whose writes call its Invalidate, and given to the reader (Deps.Changes).
type Changes struct {
	gens generations.Counters // of orgKey, spaceKey and hostsKey
}

// NewChanges returns the generations of a new reader.
func NewChanges() *Changes { return &Changes{} }

// Invalidate drops the cached site structures of the organization of each
// event (every one for an event that names none; another organization's
// stay), and the hosts that named no site: call it with the events of
// every change of sites, sections, site spaces, share links or keys made
// through this instance, and of another instance's when they reach this
// one (limits.ReaderSiteTTL the backstop).
func (c *Changes) Invalidate(events ...envelope.Event) {
	for _, ev := range events {
		if ev.Organization == "" {
			c.gens.BumpAll()
			continue
		}
		c.gens.Bump(orgKey(ev.Organization))
		c.gens.Bump(hostsKey)
	}
}

// SpaceChanged drops the cached structures of the sites showing a space
// (the projection of content's spaces changed), no other.
func (c *Changes) SpaceChanged(spaceID string) { c.gens.Bump(spaceKey(spaceID)) }

// keys are the keys of the generations snap, found under k, was read from.
func (snap *snapshot) keys(k siteKey) []string {
	switch {
	case snap.site != nil:
		keys := []string{orgKey(snap.site.Organization)}
		for _, sss := range snap.siteSpaces {
			for _, ss := range sss {
				keys = append(keys, spaceKey(ss.Space))
			}
		}
		return keys
	case k.host != "":
		return []string{hostsKey}
	}
	return []string{orgKey(k.org)}
}

// fresh tells whether a cached snapshot may be served.
func (s *snapshots) fresh(snap *snapshot) bool {
	return s.gens.Current(snap.stamp) && s.r.now().Before(snap.expires)
}

// siteKey names a site as a URL does: by organization and basename (or
// id), or by custom hostname.
type siteKey struct {
	org, name, host string
}

func (k siteKey) String() string {
	if k.host != "" {
		return "h\x00" + k.host
	}
	return "n\x00" + k.org + "\x00" + k.name
}

// get returns the site's snapshot, from the cache while it is fresh.
func (s *snapshots) get(ctx context.Context, k siteKey) (*snapshot, error) {
	key := k.String()
	if snap, ok := s.cache.Get(key); ok && s.fresh(snap) {
		return snap, nil
	}
	if k.host != "" {
		if snap, ok := s.misses.Get(key); ok && s.fresh(snap) {
			return snap, nil
		}
	}
	// What the load reads is known once it is done (the organization of
	// a site found by its hostname, its spaces): the mark before it tells
	// whether a change of one of them came meanwhile.
	mark := s.gens.Now()
	v, err, _ := s.group.Do(key, func() (any, error) {
		snap, err := s.r.load(context.WithoutCancel(ctx), k)
		if err != nil {
			return nil, err
		}
		snap.id, snap.expires = snapshotIDs.Add(1), s.r.now().Add(s.ttl)
		var current bool
		if snap.stamp, current = s.gens.Stamp(mark, snap.keys(k)...); !current {
			return snap, nil // it may predate the change: served, not kept
		}
		if k.host != "" && snap.site == nil {
			s.misses.Set(key, snap, 0)
		} else {
			s.cache.Set(key, snap, 0)
		}
		return snap, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*snapshot), nil
}

// load reads a site's snapshot from the stores.
func (r *Reader) load(ctx context.Context, k siteKey) (*snapshot, error) {
	var st site.Site
	var err error
	if k.host != "" {
		st, err = r.deps.Sites.SiteByHostname(ctx, k.host)
	} else {
		st, err = r.deps.Sites.SiteByName(ctx, k.org, k.name)
	}
	if errors.Is(err, apierr.ErrNotFound) {
		return &snapshot{}, nil
	}
	if err != nil {
		return nil, err
	}
	snap := &snapshot{site: &st, siteSpaces: map[string][]site.SiteSpace{}}
	if !st.Published {
		return snap, nil // nothing else of it is shown
	}
	if snap.sections, err = r.deps.Sections.SiteSections(ctx, st.ID); err != nil {
		return nil, err
	}
	if snap.groups, err = r.deps.Sections.SiteGroups(ctx, st.ID); err != nil {
		return nil, err
	}
	ids := []string{""}
	for _, sec := range snap.sections {
		ids = append(ids, sec.ID)
	}
	sss, err := r.deps.Sites.SiteSpacesIn(ctx, st.ID, ids)
	if err != nil {
		return nil, err
	}
	var spaceIDs []string
	for _, ss := range sss {
		snap.siteSpaces[ss.Section] = append(snap.siteSpaces[ss.Section], ss)
		spaceIDs = append(spaceIDs, ss.Space)
	}
	proj, err := r.deps.Spaces.Get(ctx, spaceIDs)
	if err != nil {
		return nil, err
	}
	snap.spaces = make(map[string]spaceview.Space, len(proj))
	for id, sp := range proj {
		// A projection never shows more than content would: a deleted
		// space, or one now in another organization, is no page of this site.
		if !sp.Deleted && sp.Organization == st.Organization {
			snap.spaces[id] = sp
		}
	}
	snap.vis = visibilitySite(snap)
	if st.AdaptiveContent {
		schema := site.DefaultAdaptiveSchema
		sc, err := r.deps.Sites.AdaptiveSchema(ctx, st.ID)
		switch {
		case err == nil:
			schema = sc.JSON
		case !errors.Is(err, apierr.ErrNotFound):
			return nil, err
		case st.AdaptiveSchema != "":
			schema = st.AdaptiveSchema
		}
		snap.claims, snap.schema = parseClaimSchema(schema), schema
	}
	pa, err := r.deps.Sites.PublishingAuth(ctx, st.ID)
	switch {
	case err == nil:
		snap.auth = &pa
	case !errors.Is(err, apierr.ErrNotFound):
		return nil, err
	}
	snap.anonymous = r.structure(snap, nil)
	snap.version = snapshotVersion(snap)
	return snap, nil
}

// visibilitySite is what the visibility rule reads of a snapshot's site.
func visibilitySite(snap *snapshot) visibility.Site {
	out := visibility.Site{Published: make(map[string]bool, len(snap.spaces))}
	for _, sec := range snap.sections {
		out.Sections = append(out.Sections, visibility.Section{ID: sec.ID, Condition: sec.Condition})
	}
	for id := range snap.spaces {
		out.Published[id] = true
	}
	for _, id := range append([]string{""}, sectionIDs(snap.sections)...) {
		for _, ss := range snap.siteSpaces[id] {
			out.SiteSpaces = append(out.SiteSpaces, visibility.SiteSpace{ID: ss.ID, Section: ss.Section,
				Space: ss.Space, Condition: ss.Condition, Hidden: ss.Hidden})
		}
	}
	return out
}

func sectionIDs(secs []section.Section) []string {
	out := make([]string, len(secs))
	for i, sec := range secs {
		out[i] = sec.ID
	}
	return out
}

// snapshotVersion digests what a snapshot read from the stores.
func snapshotVersion(snap *snapshot) string {
	h := sha256.New()
	var auth site.PublishingAuth
	if snap.auth != nil {
		auth = *snap.auth
	}
	// JSON follows pointers and writes maps in key order: equal snapshots
	// encode alike.
	enc := json.NewEncoder(h)
	for _, v := range []any{snap.site, snap.sections, snap.groups, snap.siteSpaces, snap.spaces, snap.schema, auth} {
		if err := enc.Encode(v); err != nil {
			// Never the case for these types; a snapshot of its own
			// then shares no page with another.
			fmt.Fprintf(h, "%d", snapshotIDs.Add(1))
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}
