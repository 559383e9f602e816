// Package siteview is insights' projection of the sites service's sites,
// kept from sites.events: site.created, site.updated, site.published and
// site.unpublished record the site in its organization, site.deleted
// removes it. Events carry their time; an older event never overwrites a
// newer record, so redelivery and replays are harmless. Ingest asks it
// whether a site exists in an organization.
package siteview

import (
	"context"
	"errors"
	"time"

	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongox"
	"github.com/hashicorp/golang-lru/v2/expirable"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Collection holds the projection.
const Collection = "site_views"

// Topic feeds the projection.
const Topic = "sites.events"

// Site is a projected site.
type Site struct {
	ID           string    `bson:"_id"`
	Organization string    `bson:"organization"`
	Deleted      bool      `bson:"deleted"`
	At           time.Time `bson:"at"` // occurredAt of the event that wrote it
}

// Remembering live sites: ingest asks for every batch, and a live site
// stays live for a while; a deletion drops the answer at once in the
// process that applies it, and after cacheTTL in others.
const (
	cacheSize = 10000
	cacheTTL  = 10 * time.Second
)

// Store is the projection.
type Store struct {
	db    *mongo.Database
	locks *mongox.DocLocks
	live  *expirable.LRU[string, string] // site → organization, for live sites
}

// NewStore returns the projection on db.
func NewStore(db *mongo.Database, locks *mongox.DocLocks) *Store {
	return &Store{db: db, locks: locks, live: expirable.NewLRU[string, string](cacheSize, nil, cacheTTL)}
}

// Exists reports whether site is a live site of org.
func (s *Store) Exists(ctx context.Context, org, site string) (bool, error) {
	if o, ok := s.live.Get(site); ok {
		return o == org, nil
	}
	var st Site
	err := s.db.Collection(Collection).FindOne(ctx, bson.M{"_id": site}).Decode(&st)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return false, nil
	}
	if err != nil {
		return false, mongox.Err(err, "site")
	}
	if !st.Deleted {
		s.live.Add(site, st.Organization)
	}
	return st.Organization == org && !st.Deleted, nil
}

// Put records a site as of at unless a newer record is stored.
func (s *Store) Put(ctx context.Context, st Site) error {
	unlock := s.locks.Lock(Collection, st.ID)
	defer unlock()
	s.live.Remove(st.ID)
	var cur Site
	err := s.db.Collection(Collection).FindOne(ctx, bson.M{"_id": st.ID}).Decode(&cur)
	if err == nil && cur.At.After(st.At) {
		return nil
	}
	if err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
		return mongox.Err(err, "site")
	}
	_, err = s.db.Collection(Collection).ReplaceOne(ctx, bson.M{"_id": st.ID}, st, options.Replace().SetUpsert(true))
	return mongox.Err(err, "site")
}

// Handle applies one sites event; other events are ignored.
func (s *Store) Handle(ctx context.Context, ev kafkax.Event) error {
	switch ev.Type {
	case "site.created", "site.updated", "site.published", "site.unpublished":
		return s.Put(ctx, Site{ID: ev.Subject, Organization: ev.Organization, At: ev.OccurredAt})
	case "site.deleted":
		// Kept as deleted (not removed), so that a late site.updated cannot bring it back.
		return s.Put(ctx, Site{ID: ev.Subject, Organization: ev.Organization, Deleted: true, At: ev.OccurredAt})
	}
	return nil
}
