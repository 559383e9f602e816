package section

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/docspub/platform/libs/paging"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/order"
	"github.com/docspub/platform/services/sites/internal/access"
	"github.com/docspub/platform/services/sites/internal/site"
)

// Errors besides field problems.
var (
	ErrSectionNotFound = apierr.NotFound("site section not found")
	ErrGroupNotFound   = apierr.NotFound("site section group not found")
	ErrNotInGroup      = apierr.NotFound("site section is not in this section group")
)

// SiteAccess is what sections need from the site context: who may do what on
// a site, and the site spaces of sections.
type SiteAccess interface {
	// Enter checks that the caller may do a on the site: an unknown site or a
	// non-member is not found, a lower role forbidden.
	Enter(ctx context.Context, c access.Caller, org, siteID string, a access.Action) (site.Grant, error)
	// AddSiteSpace adds a space to a section as a site space; an unknown space
	// is a 400 naming spaceId.
	AddSiteSpace(ctx context.Context, c access.Caller, g site.Grant, sectionID, spaceID string) (site.SiteSpaceView, error)
	// SiteSpaces returns the site spaces of the sections the grant's holder
	// may be shown, by section id, with how many they may not.
	SiteSpaces(ctx context.Context, g site.Grant, sectionIDs []string) (map[string]site.Variants, error)
	// RemoveSiteSpaces removes every site space of a section.
	RemoveSiteSpaces(ctx context.Context, g site.Grant, sectionID string) error
	// MakeDefault makes a site space the default of its section: the one
	// published at the section's own URL.
	MakeDefault(ctx context.Context, g site.Grant, siteSpaceID string) error
}

// Service carries out the operations on sections and section groups.
type Service struct {
	store Store
	sites SiteAccess
	// spaces lists the site spaces of sections: sites, or what the site
	// context passes an Outline.
	spaces site.SiteSpaceLister
	now    func() time.Time
}

// New returns a service. now is the clock (nil: the real one); it also
// numbers the positions of new items.
func New(store Store, sites SiteAccess, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	s := &Service{store: store, sites: sites, now: now}
	if sites != nil {
		s.spaces = sites
	}
	return s
}

// Outline is sections as the site context reads them (site.Sections),
// built from the store alone, before the site context's service: what it
// renders takes the site spaces from the site service that asks.
type Outline struct {
	svc *Service
}

var _ site.Sections = Outline{}

// NewOutline returns the outline of the sections in store; now is the
// clock (nil: the real one).
func NewOutline(store Store, now func() time.Time) Outline { return Outline{svc: New(store, nil, now)} }

// with is the service rendering with the site spaces of sites.
func (o Outline) with(sites site.SiteSpaceLister) *Service {
	s := *o.svc
	s.spaces = sites
	return &s
}

// Structure is Service.Structure, with the site spaces of sites.
func (o Outline) Structure(ctx context.Context, g site.Grant, sites site.SiteSpaceLister) ([]any, bool, error) {
	return o.with(sites).Structure(ctx, g)
}

// SetDefault is Service.SetDefault, with the site spaces of sites.
func (o Outline) SetDefault(ctx context.Context, g site.Grant, sites site.SiteSpaceLister, sectionID string) error {
	return o.with(sites).SetDefault(ctx, g, sectionID)
}

// Prefixes is Service.Prefixes.
func (o Outline) Prefixes(ctx context.Context, siteID string) (map[string]string, error) {
	return o.svc.Prefixes(ctx, siteID)
}

// DefaultSection is Service.DefaultSection.
func (o Outline) DefaultSection(ctx context.Context, siteID string) (string, error) {
	return o.svc.DefaultSection(ctx, siteID)
}

// Has is Service.Has.
func (o Outline) Has(ctx context.Context, g site.Grant, sectionID string) (bool, error) {
	return o.svc.Has(ctx, g, sectionID)
}

func (s *Service) clock() time.Time { return s.now().UTC().Truncate(time.Millisecond) }

// newPosition is the position of an item appended now: later than every item
// placed before.
func (s *Service) newPosition() int64 { return order.At(s.now()) }

// enter checks that the caller may do a on the site.
func (s *Service) enter(ctx context.Context, c access.Caller, org, siteID string, a access.Action) (site.Grant, error) {
	g, err := s.sites.Enter(ctx, c, org, siteID, a)
	if err != nil {
		return site.Grant{}, err
	}
	if g.Site != siteID || g.Organization != org {
		return site.Grant{}, fmt.Errorf("enter site %s: grant for site %s of %s", siteID, g.Site, g.Organization)
	}
	return g, nil
}

// section loads a section of the granted site.
func (s *Service) section(ctx context.Context, g site.Grant, id string) (Section, error) {
	sec, err := s.store.Section(ctx, g.Site, id)
	if errors.Is(err, apierr.ErrNotFound) || (err == nil && sec.Organization != g.Organization) {
		return Section{}, ErrSectionNotFound
	}
	return sec, err
}

// group loads a group of the granted site.
func (s *Service) group(ctx context.Context, g site.Grant, id string) (Group, error) {
	grp, err := s.store.Group(ctx, g.Site, id)
	if errors.Is(err, apierr.ErrNotFound) || (err == nil && grp.Organization != g.Organization) {
		return Group{}, ErrGroupNotFound
	}
	return grp, err
}

// NewEvent is an event constructor of sitesapi (NewSiteSectionCreated...).
type NewEvent = func(org, subject string, data any) envelope.Event

func event(newEvent NewEvent, g site.Grant, subject string, data any) envelope.Event {
	return newEvent(g.Organization, subject, data)
}

// Page asks for a page of a list (keyset over position and id).
type Page = paging.Request

// DefaultLimit is the page size of a list that names none.
const DefaultLimit = 50

// List is one page of a list.
type List[T any] = paging.List[T]

func sectionKey(x Section) string { return paging.PositionCursor(x.Position, x.ID) }
func groupKey(x Group) string     { return paging.PositionCursor(x.Position, x.ID) }
