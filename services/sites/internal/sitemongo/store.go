// Package sitemongo stores sites and site spaces in MongoDB through
// libs/docstore: every write carries its event (outbox), removals tombstone
// the document for the relay.
package sitemongo

import (
	"context"
	"errors"
	"regexp"
	"strings"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/docstore"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/sites/internal/site"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Collections of sites.
const (
	Sites      = "sites"
	SiteSpaces = "site_spaces"
	// Schemas holds each site's adaptive schema, apart from the site so that
	// reading a site never loads a schema or the events of its changes.
	Schemas = "site_adaptive_schemas"
	// PublishingAuths holds each site's publishing auth (its visitor key).
	PublishingAuths = "site_publishing_auth"
	// Hostnames holds each verified custom hostname once (its _id): the
	// site it opens (pending claims live on their sites: hostnameClaim).
	Hostnames = "site_hostnames"
)

// Store implements site.Store.
type Store struct {
	d *docstore.Store
}

var _ site.Store = (*Store)(nil)

// NewStore returns a store on db (its document locks are shared with the
// outbox relay).
// written (nil: none) is called after each write with events, with them:
// the relay's Notify, so that they leave at once, and the reader's drop of
// what it keeps of their organization.
func NewStore(db mongox.DB, written func(events []kafkax.Event)) *Store {
	return &Store{d: docstore.New(db, map[string]string{Sites: "site", SiteSpaces: "site space",
		Schemas: "adaptive schema", PublishingAuths: "publishing auth", Hostnames: "hostname"}, written)}
}

// Collections are the collections whose documents carry events (for the relay).
func Collections() []string { return []string{Sites, SiteSpaces, Schemas, PublishingAuths} }

// Indexes are the indexes of sites and site spaces. Basenames are unique per
// organization (basenameKey is the id while a site has no basename) and
// paths per site and section; removal frees both.
func Indexes() []mongox.Index {
	return []mongox.Index{
		mongox.Unique(Sites, "organization", "basenameKey"),
		mongox.Keys(Sites, "organization", "_id"),
		mongox.Unique(SiteSpaces, "site", "section", "path"),
		mongox.Keys(SiteSpaces, "site", "position", "_id"),
		mongox.Keys(SiteSpaces, "organization", "space"),
		mongox.Keys(Hostnames, "site"),
		mongox.Keys(Sites, "hostnameClaim.state", "hostnameClaim.checkedAt"),
		mongox.Keys(Sites, "hostname"),
	}
}

// InsertSite stores a new site.
func (s *Store) InsertSite(ctx context.Context, st site.Site, ev kafkax.Event) error {
	return s.d.Insert(ctx, Sites, st, ev)
}

// UpdateSite applies change to a live site and stores what it changed with
// its event (docstore.Modify). A basename another live site of the
// organization uses is a conflict.
func (s *Store) UpdateSite(ctx context.Context, id string, change func(*site.Site) (kafkax.Event, error)) (site.Site, error) {
	st, err := docstore.Modify(ctx, s.d, Sites, id, func(st *site.Site) ([]kafkax.Event, error) {
		old := st.BasenameKey
		ev, err := change(st)
		if err != nil {
			return nil, err
		}
		if st.BasenameKey != old {
			if err := s.basenameFree(ctx, st); err != nil {
				return nil, err
			}
		}
		return docstore.One(ev), nil
	})
	return st, uniqueErr(err, "site")
}

// basenameFree is a conflict when another live site of its organization
// uses the site's basename.
func (s *Store) basenameFree(ctx context.Context, st *site.Site) error {
	n, err := s.d.Count(ctx, Sites, bson.M{"organization": st.Organization, "basenameKey": st.BasenameKey, "_id": bson.M{"$ne": st.ID}})
	if err != nil {
		return err
	}
	if n > 0 {
		return apierr.Conflict("basename already used by another site")
	}
	return nil
}

// uniqueErr makes a unique index violation on update a conflict: the
// embedded FerretDB reports it as an internal error rather than a
// duplicate key (inserts are reported right).
func uniqueErr(err error, what string) error {
	if err != nil && strings.Contains(err.Error(), "UNIQUE constraint failed") {
		return apierr.Conflict("%s already exists", what)
	}
	return err
}

// RemoveSite tombstones a site (freeing its basename) and deletes its site
// spaces, its adaptive schema, its publishing auth and its hostname.
func (s *Store) RemoveSite(ctx context.Context, id string, ev kafkax.Event) error {
	if err := s.d.Remove(ctx, Sites, id, bson.M{"basenameKey": "removed/" + id}, ev); err != nil {
		return err
	}
	if err := s.d.Delete(ctx, SiteSpaces, bson.M{"site": id}); err != nil {
		return err
	}
	for _, coll := range []string{Schemas, PublishingAuths} {
		if err := s.d.Delete(ctx, coll, bson.M{"_id": id}); err != nil {
			return err
		}
	}
	return s.d.Delete(ctx, Hostnames, bson.M{"site": id})
}

// AdaptiveSchema returns a site's adaptive schema.
func (s *Store) AdaptiveSchema(ctx context.Context, siteID string) (site.AdaptiveSchema, error) {
	return docstore.FindOne[site.AdaptiveSchema](ctx, s.d, Schemas, bson.M{"_id": siteID})
}

// SetAdaptiveSchema replaces a site's adaptive schema (creating its
// document on the first one) and records the event.
func (s *Store) SetAdaptiveSchema(ctx context.Context, sc site.AdaptiveSchema, ev kafkax.Event) error {
	set := bson.M{"jsonSchema": sc.JSON, "updatedAt": sc.UpdatedAt}
	err := s.d.Set(ctx, Schemas, sc.Site, set, ev)
	if !errors.Is(err, apierr.ErrNotFound) {
		return err
	}
	if err = s.d.Insert(ctx, Schemas, sc, ev); errors.Is(err, apierr.ErrConflict) {
		return s.d.Set(ctx, Schemas, sc.Site, set, ev) // another first schema came in between
	}
	return err
}

// Site returns a live site.
func (s *Store) Site(ctx context.Context, id string) (site.Site, error) {
	return docstore.FindOne[site.Site](ctx, s.d, Sites, bson.M{"_id": id})
}

// Sites returns a page of sites by id and the count of all matching.
func (s *Store) Sites(ctx context.Context, q site.SiteQuery) ([]site.Site, int, error) {
	f := bson.M{"organization": q.Organization}
	if q.IDs != nil {
		f["_id"] = bson.M{"$in": q.IDs}
	}
	if q.Title != "" {
		f["title"] = bson.M{"$regex": regexp.QuoteMeta(q.Title), "$options": "i"}
	}
	if q.Published != nil {
		f["published"] = *q.Published
	}
	return docstore.Page[site.Site](ctx, s.d, Sites, f, docstore.Keyset{Field: "_id", AfterID: q.AfterID, Limit: q.Limit})
}

// InsertSiteSpace stores a new site space.
func (s *Store) InsertSiteSpace(ctx context.Context, ss site.SiteSpace, ev kafkax.Event) error {
	return s.d.Insert(ctx, SiteSpaces, ss, ev)
}

// UpdateSiteSpace applies change to a live site space and stores what it
// changed with its event (docstore.Modify). A path a sibling uses is a
// conflict.
func (s *Store) UpdateSiteSpace(ctx context.Context, id string, change func(*site.SiteSpace) (kafkax.Event, error)) (site.SiteSpace, error) {
	ss, err := docstore.Modify(ctx, s.d, SiteSpaces, id, one(change))
	return ss, uniqueErr(err, "site space path")
}

// one adapts a change that records at most one event to docstore.Modify.
func one[T any](change func(*T) (kafkax.Event, error)) docstore.Change[T] {
	return func(doc *T) ([]kafkax.Event, error) {
		ev, err := change(doc)
		return docstore.One(ev), err
	}
}

// RemoveSiteSpace tombstones a site space and frees its path (live paths
// never contain "/").
func (s *Store) RemoveSiteSpace(ctx context.Context, id string, ev kafkax.Event) error {
	return s.d.Remove(ctx, SiteSpaces, id, bson.M{"path": "removed/" + id}, ev)
}

// SiteSpace returns a live site space.
func (s *Store) SiteSpace(ctx context.Context, id string) (site.SiteSpace, error) {
	return docstore.FindOne[site.SiteSpace](ctx, s.d, SiteSpaces, bson.M{"_id": id})
}

var byPosition = bson.D{{Key: "position", Value: 1}, {Key: "_id", Value: 1}}

// SiteSpacesIn returns a site's site spaces in the sections, by position.
func (s *Store) SiteSpacesIn(ctx context.Context, siteID string, sections []string) ([]site.SiteSpace, error) {
	return docstore.Find[site.SiteSpace](ctx, s.d, SiteSpaces,
		bson.M{"site": siteID, "section": bson.M{"$in": sections}}, options.Find().SetSort(byPosition))
}

// SiteSpaces returns a page of a site's site spaces by position and the count of all matching.
func (s *Store) SiteSpaces(ctx context.Context, q site.SiteSpaceQuery) ([]site.SiteSpace, int, error) {
	f := bson.M{"site": q.Site}
	if q.Default != nil {
		f["default"] = *q.Default
	}
	if len(q.ExcludeSpaces) > 0 {
		f["space"] = bson.M{"$nin": q.ExcludeSpaces}
	}
	return docstore.Page[site.SiteSpace](ctx, s.d, SiteSpaces, f, docstore.Keyset{
		Field: "position", AfterValue: q.AfterPosition, AfterID: q.AfterID, Limit: q.Limit})
}

type spaceRef struct {
	Site  string `bson:"site"`
	Space string `bson:"space"`
}

// SpacesOf returns the distinct spaces a site's site spaces embed.
func (s *Store) SpacesOf(ctx context.Context, siteID string) ([]string, error) {
	refs, err := docstore.Find[spaceRef](ctx, s.d, SiteSpaces, bson.M{"site": siteID},
		options.Find().SetProjection(bson.M{"space": 1}))
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	out := []string{}
	for _, r := range refs {
		if !seen[r.Space] {
			seen[r.Space] = true
			out = append(out, r.Space)
		}
	}
	return out, nil
}

// CountSiteSpaces counts the live site spaces of each site.
func (s *Store) CountSiteSpaces(ctx context.Context, sites []string) (map[string]int, error) {
	out := map[string]int{}
	if len(sites) == 0 {
		return out, nil
	}
	cur, err := s.d.C(SiteSpaces).Aggregate(ctx, mongo.Pipeline{
		{{Key: "$match", Value: docstore.Live(bson.M{"site": bson.M{"$in": sites}})}},
		{{Key: "$group", Value: bson.M{"_id": "$site", "n": bson.M{"$sum": 1}}}},
	})
	if err != nil {
		return nil, mongox.Err(err, "site space")
	}
	var rows []struct {
		Site string `bson:"_id"`
		N    int    `bson:"n"`
	}
	if err := cur.All(ctx, &rows); err != nil {
		return nil, mongox.Err(err, "site space")
	}
	for _, r := range rows {
		out[r.Site] = r.N
	}
	return out, nil
}

// SitesWithSpace returns the ids of org's sites with a site space of space.
func (s *Store) SitesWithSpace(ctx context.Context, org, space string) ([]string, error) {
	refs, err := docstore.Find[spaceRef](ctx, s.d, SiteSpaces, bson.M{"organization": org, "space": space},
		options.Find().SetProjection(bson.M{"site": 1}))
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	out := []string{}
	for _, r := range refs {
		if !seen[r.Site] {
			seen[r.Site] = true
			out = append(out, r.Site)
		}
	}
	return out, nil
}
