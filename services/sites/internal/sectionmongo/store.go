// Package sectionmongo stores the sites service's sections and section
// groups in MongoDB through libs/docstore: every write carries its event
// (outbox).
package sectionmongo

import (
	"context"
	"fmt"
	"strings"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/docstore"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/sites/internal/section"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Collections of sections.
const (
	Sections = "site_sections"
	Groups   = "site_section_groups"
)

// Store implements section.Store.
type Store struct {
	d *docstore.Store
}

var _ section.Store = (*Store)(nil)

// NewStore returns a store on db (its document locks are shared with the
// outbox relay).
// written (nil: none) is called after each write with events, with them:
// the relay's Notify, so that they leave at once, and the reader's drop of
// what it keeps of their organization.
func NewStore(db mongox.DB, written func(events []kafkax.Event)) *Store {
	return &Store{d: docstore.New(db, map[string]string{Sections: "site section", Groups: "site section group"}, written)}
}

// Collections are the collections whose documents carry events.
func Collections() []string { return []string{Sections, Groups} }

// Indexes are the indexes of sections and groups. A path is unique among a
// site's sections (a removed section frees its path).
func Indexes() []mongox.Index {
	return []mongox.Index{
		mongox.Unique(Sections, "site", "path"),
		mongox.Keys(Sections, "site", "position", "_id"),
		mongox.Keys(Groups, "site", "position", "_id"),
	}
}

// InsertSection stores a new section; a path another section of the site has is a conflict.
func (s *Store) InsertSection(ctx context.Context, sec section.Section, ev kafkax.Event) error {
	return s.d.Insert(ctx, Sections, sec, ev)
}

// UpdateSection applies change to a section of site and stores what it
// changed with its event (docstore.Modify). A path another live section of
// the site has is a conflict.
func (s *Store) UpdateSection(ctx context.Context, site, id string, change func(*section.Section) (kafkax.Event, error)) (section.Section, error) {
	sec, err := docstore.Modify(ctx, s.d, Sections, id, func(sec *section.Section) ([]kafkax.Event, error) {
		if sec.Site != site {
			return nil, apierr.NotFound("%s not found", s.d.Name(Sections))
		}
		old := sec.Path
		ev, err := change(sec)
		if err != nil {
			return nil, err
		}
		if sec.Path != old {
			if err := s.pathFree(ctx, sec); err != nil {
				return nil, err
			}
		}
		return docstore.One(ev), nil
	})
	return sec, uniqueErr(err)
}

// pathFree is a conflict when another live section of its site has the
// section's path.
func (s *Store) pathFree(ctx context.Context, sec *section.Section) error {
	n, err := s.d.Count(ctx, Sections, bson.M{"site": sec.Site, "path": sec.Path, "_id": bson.M{"$ne": sec.ID}})
	if err != nil {
		return err
	}
	if n > 0 {
		return apierr.Conflict("site section path already used")
	}
	return nil
}

// uniqueErr makes a unique index violation on update (a path taken between
// the check and the write) a conflict: the embedded FerretDB reports it as
// an internal error rather than a duplicate key, as it does for inserts.
func uniqueErr(err error) error {
	if err != nil && strings.Contains(err.Error(), "UNIQUE constraint failed") {
		return apierr.Conflict("site section path already used")
	}
	return err
}

// freedPath is the path a removed section keeps until the relay deletes it,
// so that a live section may take its old path at once.
func freedPath(id string) string { return ":removed:" + id }

// RemoveSection tombstones a section of site and frees its path.
func (s *Store) RemoveSection(ctx context.Context, site, id string, ev kafkax.Event) error {
	if _, err := s.Section(ctx, site, id); err != nil {
		return err
	}
	return s.d.Remove(ctx, Sections, id, bson.M{"path": freedPath(id)}, ev)
}

// DeleteSite removes a deleted site's sections and groups, without events.
func (s *Store) DeleteSite(ctx context.Context, site string) error {
	if err := s.d.Delete(ctx, Sections, bson.M{"site": site}); err != nil {
		return err
	}
	return s.d.Delete(ctx, Groups, bson.M{"site": site})
}

// Section returns a live section of site.
func (s *Store) Section(ctx context.Context, site, id string) (section.Section, error) {
	return docstore.FindOne[section.Section](ctx, s.d, Sections, bson.M{"_id": id, "site": site})
}

// Sections returns a page of a site's sections by position then id.
func (s *Store) Sections(ctx context.Context, q section.Query) ([]section.Section, int, error) {
	return docstore.Page[section.Section](ctx, s.d, Sections, bson.M{"site": q.Site}, keyset(q))
}

// SiteSections returns every section of a site by position then id.
func (s *Store) SiteSections(ctx context.Context, site string) ([]section.Section, error) {
	return docstore.Find[section.Section](ctx, s.d, Sections, bson.M{"site": site}, byPosition())
}

// InsertGroup stores a new group.
func (s *Store) InsertGroup(ctx context.Context, g section.Group, ev kafkax.Event) error {
	return s.d.Insert(ctx, Groups, g, ev)
}

// UpdateGroup applies change to a group of site and stores what it changed
// with its event (docstore.Modify).
func (s *Store) UpdateGroup(ctx context.Context, site, id string, change func(*section.Group) (kafkax.Event, error)) (section.Group, error) {
	return docstore.Modify(ctx, s.d, Groups, id, func(g *section.Group) ([]kafkax.Event, error) {
		if g.Site != site {
			return nil, apierr.NotFound("%s not found", s.d.Name(Groups))
		}
		ev, err := change(g)
		return docstore.One(ev), err
	})
}

// RemoveGroup tombstones a group of site.
func (s *Store) RemoveGroup(ctx context.Context, site, id string, ev kafkax.Event) error {
	if _, err := s.Group(ctx, site, id); err != nil {
		return err
	}
	return s.d.Remove(ctx, Groups, id, nil, ev)
}

// Group returns a live group of site.
func (s *Store) Group(ctx context.Context, site, id string) (section.Group, error) {
	return docstore.FindOne[section.Group](ctx, s.d, Groups, bson.M{"_id": id, "site": site})
}

// Groups returns a page of a site's groups by position then id.
func (s *Store) Groups(ctx context.Context, q section.Query) ([]section.Group, int, error) {
	return docstore.Page[section.Group](ctx, s.d, Groups, bson.M{"site": q.Site}, keyset(q))
}

// SiteGroups returns every group of a site by position then id.
func (s *Store) SiteGroups(ctx context.Context, site string) ([]section.Group, error) {
	return docstore.Find[section.Group](ctx, s.d, Groups, bson.M{"site": site}, byPosition())
}

// SetPosition stores a section's or group's position, without an event.
func (s *Store) SetPosition(ctx context.Context, site string, n section.Node, position int64) error {
	coll := Sections
	switch n.Kind {
	case section.KindSection:
	case section.KindGroup:
		coll = Groups
	default:
		return fmt.Errorf("set position of a %q", n.Kind)
	}
	return s.d.Update(ctx, coll, n.ID, bson.M{"site": site}, bson.M{"$set": bson.M{"position": position}})
}

func keyset(q section.Query) docstore.Keyset {
	return docstore.Keyset{Field: "position", AfterValue: q.AfterPosition, AfterID: q.AfterID, Limit: q.Limit}
}

func byPosition() *options.FindOptionsBuilder {
	return options.Find().SetSort(mongox.Sort("position", false))
}
