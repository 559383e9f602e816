package sharelink

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/ids"
	"github.com/docspub/platform/libs/internalapi/sitesapi"
	"github.com/docspub/platform/services/sites/internal/access"
	"github.com/docspub/platform/services/sites/internal/limits"
	"github.com/docspub/platform/services/sites/internal/site"
)

// ErrNotFound is the answer about a share link the site does not have.
var ErrNotFound = apierr.NotFound("share link not found")

// SiteAccess lets a caller into a site of an organization: it answers the
// caller's grant when the site exists in org and the caller may see it
// (404 otherwise) and their level allows a (403 otherwise). The site
// service implements it.
type SiteAccess interface {
	Enter(ctx context.Context, c access.Caller, org, siteID string, a access.Action) (site.Grant, error)
}

// Service carries out the share link operations. It is the site service's
// site.ShareKeys.
type Service struct {
	store Store
	sites SiteAccess
	urls  URLs
	now   func() time.Time
}

var _ site.ShareKeys = (*Service)(nil)

// New returns a service over store, letting callers into sites through
// sites and rendering URLs with urls. now gives the time of changes; nil
// means the clock.
func New(store Store, sites SiteAccess, urls URLs, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: store, sites: sites, urls: urls, now: now}
}

func (s *Service) clock() time.Time { return s.now().UTC().Truncate(time.Millisecond) }

// enter lets the caller into the site as a manager: share links are
// secrets, so only callers who may manage the site see them at all.
func (s *Service) enter(ctx context.Context, c access.Caller, org, siteID string) (site.Grant, error) {
	g, err := s.sites.Enter(ctx, c, org, siteID, access.Manage)
	if err != nil {
		return g, err
	}
	if !g.Can(access.Manage) {
		return g, apierr.Forbidden("your role in this organization does not allow you to manage the share links of this site")
	}
	return g, nil
}

// link loads a link of the site, translating not-found.
func (s *Service) link(ctx context.Context, siteID, id string) (Link, error) {
	l, err := s.store.Link(ctx, siteID, id)
	if errors.Is(err, apierr.ErrNotFound) {
		return l, ErrNotFound
	}
	if err != nil {
		return l, fmt.Errorf("load share link %s: %w", id, err)
	}
	return l, nil
}

// List returns one page of the site's links in creation order and how many
// there are.
func (s *Service) List(ctx context.Context, c access.Caller, org, siteID string, p Page) ([]View, int, error) {
	g, err := s.enter(ctx, c, org, siteID)
	if err != nil {
		return nil, 0, err
	}
	ls, n, err := s.store.Links(ctx, g.Site, p)
	if err != nil {
		return nil, 0, fmt.Errorf("list share links of site %s: %w", g.Site, err)
	}
	out := make([]View, len(ls))
	for i, l := range ls {
		out[i] = Render(s.urls, l)
	}
	return out, n, nil
}

// Create makes an active link with a fresh key.
func (s *Service) Create(ctx context.Context, c access.Caller, org, siteID string, in NewLink) (View, error) {
	g, err := s.enter(ctx, c, org, siteID)
	if err != nil {
		return View{}, err
	}
	if err := in.validate(); err != nil {
		return View{}, err
	}
	if _, n, err := s.store.Links(ctx, g.Site, Page{Limit: 1}); err != nil {
		return View{}, fmt.Errorf("count share links of site %s: %w", g.Site, err)
	} else if n >= limits.ShareLinksPerSite {
		return View{}, apierr.Invalid("name", "cannot add a share link: a site has at most %d share links", limits.ShareLinksPerSite)
	}
	t := s.clock()
	key := NewKey()
	l := Link{
		ID: ids.New(), Organization: g.Organization, Site: g.Site, Name: in.Name.Value, Active: true,
		Key: key, KeyHash: HashKey(key), CreatedAt: t, UpdatedAt: t,
	}
	if err := s.store.Insert(ctx, l, sitesapi.NewShareLinkCreated(l.Organization, l.ID, eventData(l))); err != nil {
		return View{}, fmt.Errorf("create share link of site %s: %w", g.Site, err)
	}
	// The count above was read before the insert: concurrent creations
	// may all have passed it. Counted again with this link in, a site over
	// its bound takes this link back, so the bound holds whatever the
	// interleaving (the last of two racing inserts always sees both).
	if _, n, err := s.store.Links(ctx, g.Site, Page{Limit: 1}); err != nil || n > limits.ShareLinksPerSite {
		if rerr := s.store.Remove(ctx, g.Site, l.ID, sitesapi.NewShareLinkDeleted(l.Organization, l.ID, eventData(l))); rerr != nil {
			return View{}, fmt.Errorf("take back share link %s of site %s: %w", l.ID, g.Site, rerr)
		}
		if err != nil {
			return View{}, fmt.Errorf("count share links of site %s: %w", g.Site, err)
		}
		return View{}, apierr.Invalid("name", "cannot add a share link: a site has at most %d share links", limits.ShareLinksPerSite)
	}
	return Render(s.urls, l), nil
}

// Update renames, deactivates or reactivates a link. Deactivation takes
// effect at once: Active reads the store.
func (s *Service) Update(ctx context.Context, c access.Caller, org, siteID, id string, p Patch) (View, error) {
	g, err := s.enter(ctx, c, org, siteID)
	if err != nil {
		return View{}, err
	}
	l, err := s.link(ctx, g.Site, id)
	if err != nil {
		return View{}, err
	}
	ch, err := p.apply(&l)
	if err != nil || !ch.changed() {
		return Render(s.urls, l), err
	}
	ch.UpdatedAt = s.clock()
	l.UpdatedAt = ch.UpdatedAt
	err = s.store.Update(ctx, g.Site, id, ch, sitesapi.NewShareLinkUpdated(l.Organization, l.ID, eventData(l)))
	if errors.Is(err, apierr.ErrNotFound) {
		return View{}, ErrNotFound
	}
	if err != nil {
		return View{}, fmt.Errorf("update share link %s: %w", id, err)
	}
	return Render(s.urls, l), nil
}

// Delete revokes a link for good: its key opens nothing from now on and
// the link is no longer listed.
func (s *Service) Delete(ctx context.Context, c access.Caller, org, siteID, id string) error {
	g, err := s.enter(ctx, c, org, siteID)
	if err != nil {
		return err
	}
	l, err := s.link(ctx, g.Site, id)
	if err != nil {
		return err
	}
	err = s.store.Remove(ctx, g.Site, id, sitesapi.NewShareLinkDeleted(l.Organization, l.ID, eventData(l)))
	if errors.Is(err, apierr.ErrNotFound) {
		return ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("delete share link %s: %w", id, err)
	}
	return nil
}

// Keys checks share keys against the stored links (site.ShareKeys): built
// from the store alone, for the site context and the reader, which the
// share links' service comes after.
type Keys struct {
	store Store
}

var _ site.ShareKeys = Keys{}

// NewKeys returns the share keys of the links in store.
func NewKeys(store Store) Keys { return Keys{store: store} }

// Active is Keys.Active.
func (s *Service) Active(ctx context.Context, siteID, key string) (bool, error) {
	return NewKeys(s.store).Active(ctx, siteID, key)
}

// Active reports whether key opens site: a live link of that site has that
// key and is active. It reads the store on every call, so deactivation and
// deletion take effect at once. An unknown key is false, not an error.
func (s Keys) Active(ctx context.Context, siteID, key string) (bool, error) {
	if key == "" || siteID == "" {
		return false, nil
	}
	l, err := s.store.ByKeyHash(ctx, HashKey(key))
	if errors.Is(err, apierr.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("look up share key of site %s: %w", siteID, err)
	}
	same := subtle.ConstantTimeCompare([]byte(l.Key), []byte(key)) == 1
	return same && l.Site == siteID && l.Active, nil
}
