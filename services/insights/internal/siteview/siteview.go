// Package siteview is insights' projection of the sites service's sites,
// kept from sites.events: site.created, site.updated, site.published and
// site.unpublished record the site in its organization, site.deleted marks
// it deleted. Events carry their time; an older event never overwrites a
// newer record (the Store's rule), so redelivery and replays are harmless.
// Ingest asks it whether a site exists in an organization.
package siteview

import (
	"context"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"
)

// Topic feeds the projection.
const Topic = "sites.events"

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

// View answers from the projection and applies sites events to it.
type View struct {
	store Store
	live  *expirable.LRU[string, string] // site → organization, for live sites
}

// New returns the projection kept in store.
func New(store Store) *View {
	return &View{store: store, live: expirable.NewLRU[string, string](cacheSize, nil, cacheTTL)}
}

// Exists reports whether site is a live site of org.
func (v *View) Exists(ctx context.Context, org, site string) (bool, error) {
	if o, ok := v.live.Get(site); ok {
		return o == org, nil
	}
	st, ok, err := v.store.Get(ctx, site)
	if err != nil || !ok {
		return false, err
	}
	if !st.Deleted {
		v.live.Add(site, st.Organization)
	}
	return st.Organization == org && !st.Deleted, nil
}

// Apply applies one sites event, of type typ about site of org at its
// time at; other events are ignored.
func (v *View) Apply(ctx context.Context, typ, org, site string, at time.Time) error {
	st := Site{ID: site, Organization: org, At: at}
	switch typ {
	case "site.created", "site.updated", "site.published", "site.unpublished":
	case "site.deleted":
		// Kept as deleted (not removed), so that a late site.updated cannot bring it back.
		st.Deleted = true
	default:
		return nil
	}
	v.live.Remove(site)
	defer v.live.Remove(site) // an Exists in between may have cached the old record
	return v.store.Put(ctx, st)
}
