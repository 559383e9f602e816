// Package siteview is insights' projection of the sites service's sites,
// kept from sites.events: site.created, site.updated, site.published and
// site.unpublished record the site in its organization, site.deleted marks
// it deleted. Events carry their time; an older event never overwrites a
// newer record (the Store's rule), so redelivery and replays are harmless.
// Ingest asks it whether a site exists in an organization.
//
// Read-your-writes: a site the projection does not know yet (created a
// moment ago, its site.created not consumed) is asked of its owner, the
// sites service, once per miss and within lookupTimeout; a live site it
// answers is recorded in the projection as the weakest record (any event
// of the site overwrites it), so the next request needs no call, and an
// unknown one is remembered for missTTL, so that a flood of events for
// unknown sites asks sites about each at most once in that time. Sites not
// answering is its error (a 503 with Retry-After): a site we cannot check
// is not said not to exist.
package siteview

import (
	"context"
	"time"

	"github.com/docspub/platform/libs/envelope"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/internalapi/sitesapi"
	"github.com/docspub/platform/libs/sizedcache"
	"golang.org/x/sync/singleflight"
)

// Topic feeds the projection.
const Topic = sitesapi.Topic

// Site is a projected site.
type Site struct {
	ID           string    `bson:"_id"`
	Organization string    `bson:"organization"`
	Deleted      bool      `bson:"deleted"`
	At           time.Time `bson:"at"` // occurredAt of the event that wrote it
}

// Store keeps the projected sites.
type Store interface {
	// Get returns the site id; false when none is recorded.
	Get(ctx context.Context, id string) (Site, bool, error)
	// Put records st unless a record newer than st.At is stored.
	Put(ctx context.Context, st Site) error
}

// Remembering live sites: ingest asks for every batch, and a live site
// stays live for a while; a deletion drops the answer at once in the
// process that applies it, and after cacheTTL in others.
const (
	cacheSize = 10000
	cacheTTL  = 10 * time.Second
)

// Owner answers for a site the projection does not know: the sites
// service, which owns sites.
type Owner interface {
	// Site returns the live site id (ID and Organization); false when
	// there is none.
	Site(ctx context.Context, id string) (Site, bool, error)
}

// Asking the owner about sites the projection misses.
const (
	// MissSize bounds the sites remembered as unknown (least recently
	// used first out), missTTL how long each is.
	MissSize = 10000
	missTTL  = 5 * time.Second
	// lookupTimeout bounds one question to the owner.
	lookupTimeout = 2 * time.Second
	// maxLookups bounds the questions in flight at once (one per site:
	// concurrent misses of a site share one); a miss beyond it is a 503.
	maxLookups = 16
)

// errBusy is a miss while maxLookups questions are in flight.
var errBusy = apierr.Unavailable(time.Second, "insights cannot check the site right now; send the batch again")

// View answers from the projection and applies sites events to it.
type View struct {
	store Store
	live  *sizedcache.Cache[string, string] // site → organization, for live sites

	owner   Owner                               // nil: the projection alone answers
	missing *sizedcache.Cache[string, struct{}] // sites the owner said do not exist
	calls   singleflight.Group                  // one question per site at once
	slots   chan struct{}                       // questions in flight
}

// New returns the projection kept in store; owner, when not nil, answers
// for sites the projection does not know yet.
func New(store Store, owner Owner) *View {
	return &View{store: store, live: sizedcache.New[string, string](cacheSize, 0).Expire(cacheTTL, nil).Observe("insights.sites"),
		owner: owner, missing: sizedcache.New[string, struct{}](MissSize, 0).Expire(missTTL, nil).Observe("insights.sites_missing"),
		slots: make(chan struct{}, maxLookups)}
}

// Exists reports whether site is a live site of org.
func (v *View) Exists(ctx context.Context, org, site string) (bool, error) {
	if o, ok := v.live.Get(site); ok {
		return o == org, nil
	}
	st, ok, err := v.store.Get(ctx, site)
	if err == nil && !ok {
		st, ok, err = v.ask(ctx, site)
	}
	if err != nil || !ok {
		return false, err
	}
	if !st.Deleted {
		v.live.Set(site, st.Organization, 0)
	}
	return st.Organization == org && !st.Deleted, nil
}

// Handle applies one event of sites.events (sitesapi.Events) with Apply.
// An event sites does not declare, or of a newer version than insights
// reads, is an error wrapping envelope.ErrUnknown: the consumer logs,
// counts and skips it. Apply reads no data, only the envelope.
func (v *View) Handle(ctx context.Context, ev envelope.Event) error {
	if err := sitesapi.Events.Check(ev); err != nil {
		return err
	}
	return v.Apply(ctx, ev.Type, ev.Organization, ev.Subject, ev.OccurredAt)
}

// Apply applies one sites event, of type typ about site of org at its
// time at; other events are ignored.
func (v *View) Apply(ctx context.Context, typ, org, site string, at time.Time) error {
	st := Site{ID: site, Organization: org, At: at}
	switch typ {
	case sitesapi.SiteCreated, sitesapi.SiteUpdated, sitesapi.SitePublished, sitesapi.SiteUnpublished:
	case sitesapi.SiteDeleted:
		// Kept as deleted (not removed), so that a late site.updated cannot bring it back.
		st.Deleted = true
	default:
		return nil
	}
	v.live.Remove(site)
	v.missing.Remove(site)
	defer v.live.Remove(site) // an Exists in between may have cached the old record
	return v.store.Put(ctx, st)
}

// ask asks the owner about a site the projection does not know and
// returns the projection's record after the answer; false when the owner
// knows none (remembered for missTTL) or there is no owner. Concurrent
// misses of one site share one question, bounded by lookupTimeout
// whichever caller gives up.
func (v *View) ask(ctx context.Context, site string) (Site, bool, error) {
	if v.owner == nil {
		return Site{}, false, nil
	}
	if _, ok := v.missing.Get(site); ok {
		return Site{}, false, nil
	}
	ch := v.calls.DoChan(site, func() (any, error) {
		select {
		case v.slots <- struct{}{}:
			defer func() { <-v.slots }()
		default:
			return nil, errBusy
		}
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), lookupTimeout)
		defer cancel()
		st, ok, err := v.owner.Site(ctx, site)
		if err != nil {
			return nil, err
		}
		if !ok || st.ID != site {
			v.missing.Set(site, struct{}{}, 0)
			return false, nil
		}
		// The weakest record (the zero time): the site's events, consumed
		// before or after, win over it; a deletion already recorded stays.
		if err := v.store.Put(ctx, Site{ID: site, Organization: st.Organization}); err != nil {
			return nil, err
		}
		return true, nil
	})
	select {
	case <-ctx.Done():
		return Site{}, false, ctx.Err()
	case r := <-ch:
		if r.Err != nil || !r.Val.(bool) {
			return Site{}, false, r.Err
		}
	}
	return v.store.Get(ctx, site)
}
