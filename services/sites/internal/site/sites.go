package site

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/docspub/platform/libs/internalapi/sitesapi"
	"github.com/docspub/platform/libs/paging"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/ids"
	"github.com/docspub/platform/libs/nullable"
	"github.com/docspub/platform/services/sites/internal/access"
	"github.com/docspub/platform/services/sites/internal/limits"
)

// proxyPattern is the SiteProxyOrigin pattern: a host and at least one path
// segment ("docs.acme.com/help").
var proxyPattern = regexp.MustCompile(`^([\w-]+\.)*[\w-]+\.[a-zA-Z]{2,}(\/[\w-]+)+$`)

// hostnamePattern is the SiteHostname pattern: lower-case labels, at least three.
var hostnamePattern = regexp.MustCompile(`^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?[.]){2,}[a-z0-9][a-z0-9-]{0,61}[a-z0-9]$`)

// ListInput filters a list of sites.
type ListInput struct {
	Space     string // only sites with a site space of this space
	Title     string // case-insensitive substring of the title
	Published *bool
	Page      Page
}

// ListSites returns a page of org's sites by id; any member who may view
// sites sees them all.
func (s *Service) ListSites(ctx context.Context, c access.Caller, org string, in ListInput) (List[SiteView], error) {
	role, err := member(c, org)
	if err != nil {
		return List[SiteView]{}, err
	}
	q := SiteQuery{Organization: org, Title: in.Title, Published: in.Published, AfterID: in.Page.AfterID}
	if in.Space != "" {
		q.IDs, err = s.store.SitesWithSpace(ctx, org, in.Space)
		if err != nil {
			return List[SiteView]{}, err
		}
	}
	page, err := paging.Fetch(in.Page, func(limit int) ([]Site, int, error) {
		q.Limit = limit
		return s.store.Sites(ctx, q)
	}, siteKey)
	if err != nil {
		return List[SiteView]{}, err
	}
	views, err := s.renderSites(ctx, page.Items, func(st Site) *Grant {
		return &Grant{Organization: org, Site: st.ID, User: c.UserID, Level: role, Caller: c}
	})
	if err != nil {
		return List[SiteView]{}, err
	}
	return paging.With(page, views), nil
}

// CreateInput is the body of a site creation.
type CreateInput struct {
	Type       string
	Title      *string
	Visibility string
	Spaces     []string // spaces added as site-level site spaces, in order
}

// CreateSite creates a site in org (the edit permission is needed). The
// spaces are all checked with content first: one that does not exist, that
// the caller cannot see or that belongs to another organization is a 400
// naming spaces[i], and nothing is created.
func (s *Service) CreateSite(ctx context.Context, c access.Caller, org string, in CreateInput) (SiteView, error) {
	role, err := member(c, org)
	if err != nil {
		return SiteView{}, err
	}
	if !access.Allows(role, access.Edit) {
		return SiteView{}, forbidden("create sites")
	}
	var p apierr.Problems
	typ := DefaultType
	if in.Type != "" {
		p.OneOf("type", in.Type, Types...)
		typ = in.Type
	}
	title := DefaultTitle
	if in.Title != nil {
		title = strings.TrimSpace(*in.Title)
		p.Text("title", title, limits.SiteTitleMin, limits.SiteTitleMax)
	}
	vis := DefaultVisibility
	if in.Visibility != "" {
		p.OneOf("visibility", in.Visibility, Visibilities...)
		vis = in.Visibility
	}
	if len(in.Spaces) > limits.SpacesPerCreate {
		p.Add("spaces", "must have at most %d items", limits.SpacesPerCreate)
	}
	for i, id := range in.Spaces {
		if strings.TrimSpace(id) == "" {
			p.Add(fmt.Sprintf("spaces[%d]", i), "must not be empty")
		} else if j := slices.Index(in.Spaces, id); j < i {
			p.Add(fmt.Sprintf("spaces[%d]", i), "space %s is already listed at spaces[%d]", id, j)
		}
	}
	if err := p.Err(); err != nil {
		return SiteView{}, err
	}
	spaces := make([]checkedSpace, len(in.Spaces))
	for i, id := range in.Spaces {
		if spaces[i], err = s.checkSpace(ctx, c, org, id, fmt.Sprintf("spaces[%d]", i)); err != nil {
			return SiteView{}, err
		}
	}
	now := s.clock()
	st := Site{ID: ids.New(), Organization: org, Type: typ, Title: title, Visibility: vis,
		AgentsContext: DefaultAgentsContext, CreatedAt: now, UpdatedAt: now}
	st.BasenameKey = st.ID
	g := Grant{Organization: org, Site: st.ID, User: c.UserID, Level: role, Caller: c}
	if err := s.store.InsertSite(ctx, st, sitesapi.NewSiteCreated(org, st.ID, s.siteView(st, 0, nil))); err != nil {
		return SiteView{}, err
	}
	for _, sp := range spaces {
		if _, err := s.addSiteSpace(ctx, st, g, "", sp); err != nil {
			return SiteView{}, err
		}
	}
	return s.renderSite(ctx, st, &g)
}

// GetSite returns a site.
func (s *Service) GetSite(ctx context.Context, c access.Caller, org, siteID string) (SiteView, error) {
	st, g, err := s.enter(ctx, c, org, siteID, access.View)
	if err != nil {
		return SiteView{}, err
	}
	return s.renderSite(ctx, st, &g)
}

// Owner returns the live site siteID whoever owns it, for a platform
// service (the caller is checked at the route: sitesapi's internal API);
// ErrSiteNotFound when there is none.
func (s *Service) Owner(ctx context.Context, siteID string) (Site, error) {
	st, err := s.store.Site(ctx, siteID)
	if errors.Is(err, apierr.ErrNotFound) {
		return Site{}, ErrSiteNotFound
	}
	return st, err
}

// UpdateInput is the body of a site change; nil fields stay as they are.
type UpdateInput struct {
	Title              *string
	Visibility         *string
	Basename           *string
	AdaptiveContent    *bool // adaptiveContent.enabled
	AgentsContext      *string
	DefaultSiteSpace   *string
	DefaultSiteSection *string
	Proxy              nullable.Field[string] // null removes the proxy
	Hostname           nullable.Field[string] // null removes the custom hostname
}

// UpdateSite changes a site (the edit permission is needed). A basename is
// one path segment, unique among the organization's sites (a taken one is a
// conflict); defaultSiteSpace must be a site space of the site and becomes
// the default of its section (or of the site level); defaultSiteSection
// must be a section of the site and becomes the site's default section.
// Everything is checked before anything is written. A change of the
// hostname is a compare-and-set on the hostname and claim it was read with.
func (s *Service) UpdateSite(ctx context.Context, c access.Caller, org, siteID string, in UpdateInput) (SiteView, error) {
	read, g, err := s.enter(ctx, c, org, siteID, access.Edit)
	if err != nil {
		return SiteView{}, err
	}
	newDefault, err := s.checkUpdate(ctx, read, g, in)
	if err != nil {
		return SiteView{}, err
	}
	if newDefault.ID != "" {
		if err := s.makeDefault(ctx, read, newDefault); err != nil {
			return SiteView{}, err
		}
	}
	next := read
	in.apply(&next)
	recheck := false
	if in.Hostname.Set {
		if next.HostnameClaim, recheck, err = s.claimFor(ctx, read, next.Hostname); err != nil {
			return SiteView{}, err
		}
	}
	st := read
	if in.changesSite() {
		moved := false
		st, err = s.store.UpdateSite(ctx, read.ID, func(cur *Site) (envelope.Event, error) {
			if in.Hostname.Set && !sameHostname(*cur, read) {
				moved = true
				return envelope.Event{}, apierr.Conflict("the site's hostname changed meanwhile; read the site again")
			}
			in.apply(cur)
			if in.Hostname.Set {
				cur.HostnameClaim = next.HostnameClaim
			}
			cur.UpdatedAt = s.clock()
			return s.siteEvent(ctx, sitesapi.NewSiteUpdated, *cur)
		})
		if errors.Is(err, apierr.ErrConflict) && !moved && in.Basename != nil {
			return SiteView{}, apierr.Conflict("basename %q is already used by another site of the organization", next.Basename)
		}
		if err != nil {
			return SiteView{}, err
		}
	}
	if read.Hostname != "" && read.Hostname != st.Hostname {
		if err := s.store.ReleaseHostname(ctx, read.Hostname, st.ID); err != nil {
			return SiteView{}, err
		}
	}
	if recheck {
		// The owner may have published the record already: look now.
		switch checked, err := s.checkClaim(ctx, st); {
		case err == nil:
			st = checked
		case !errors.Is(err, apierr.ErrConflict):
			return SiteView{}, err
		}
	}
	if in.DefaultSiteSection != nil {
		if err := s.sections.SetDefault(ctx, g, s, *in.DefaultSiteSection); err != nil {
			return SiteView{}, err
		}
	}
	return s.renderSite(ctx, st, &g)
}

// changesSite reports whether the change writes the site itself.
func (in UpdateInput) changesSite() bool {
	return in.Title != nil || in.Visibility != nil || in.Basename != nil || in.AdaptiveContent != nil ||
		in.AgentsContext != nil || in.Proxy.Set || in.Hostname.Set
}

// apply makes the change's own fields of st (a new hostname without its
// claim yet).
func (in UpdateInput) apply(st *Site) {
	if in.Title != nil {
		st.Title = strings.TrimSpace(*in.Title)
	}
	if in.Visibility != nil {
		st.Visibility = *in.Visibility
	}
	if in.Basename != nil {
		st.Basename = strings.TrimSpace(*in.Basename)
		st.BasenameKey = st.Basename
	}
	if in.AdaptiveContent != nil {
		st.AdaptiveContent = *in.AdaptiveContent
	}
	if in.AgentsContext != nil {
		st.AgentsContext = *in.AgentsContext
	}
	if in.Proxy.Set {
		st.Proxy = ""
		if !in.Proxy.Null {
			st.Proxy = in.Proxy.Value
		}
	}
	if in.Hostname.Set {
		st.Hostname, st.HostnameClaim = "", nil
		if !in.Hostname.Null {
			st.Hostname = in.Hostname.Value
		}
	}
}

// checkUpdate checks every field of a change of st and returns the site
// space that becomes the default (none when the change names none).
func (s *Service) checkUpdate(ctx context.Context, st Site, g Grant, in UpdateInput) (SiteSpace, error) {
	var p apierr.Problems
	next := st
	in.apply(&next)
	if in.Title != nil {
		p.Text("title", next.Title, limits.SiteTitleMin, limits.SiteTitleMax)
	}
	if in.Visibility != nil {
		p.OneOf("visibility", next.Visibility, Visibilities...)
	}
	if in.Basename != nil {
		CheckSegment(&p, "basename", next.Basename, limits.Basename)
	}
	if in.AgentsContext != nil {
		p.OneOf("agentsContext", next.AgentsContext, AgentsExcluded, AgentsIncluded)
	}
	if in.DefaultSiteSection != nil {
		why, err := s.sectionProblem(ctx, g, *in.DefaultSiteSection)
		if err != nil {
			return SiteSpace{}, err
		}
		if why != "" {
			p.Add("defaultSiteSection", "%s", why)
		}
	}
	switch {
	case !in.Proxy.Set || next.Proxy == "":
	case len(next.Proxy) > limits.Proxy:
		p.Add("proxy", "must be at most %d characters", limits.Proxy)
	case !proxyPattern.MatchString(next.Proxy):
		p.Add("proxy", "must be a host followed by a path, like docs.example.com/help")
	}
	if in.Hostname.Set && !in.Hostname.Null {
		if why := s.hostnameProblem(next.Hostname); why != "" {
			p.Add("hostname", "%s", why)
		}
	}
	var newDefault SiteSpace
	if in.DefaultSiteSpace != nil {
		var err error
		newDefault, err = s.siteSpaceOf(ctx, st, *in.DefaultSiteSpace)
		if err == nil {
			_, err = s.showOne(ctx, g, newDefault)
		}
		if errors.Is(err, apierr.ErrNotFound) {
			p.Add("defaultSiteSpace", "site space %s is not a site space of this site", *in.DefaultSiteSpace)
			newDefault = SiteSpace{}
		} else if err != nil {
			return SiteSpace{}, err
		}
	}
	return newDefault, p.Err()
}

// siteEvent is the event typ of a change that made st.
func (s *Service) siteEvent(ctx context.Context, newEvent func(org, subject string, data any) envelope.Event, st Site) (envelope.Event, error) {
	view, err := s.renderSite(ctx, st, nil)
	if err != nil {
		return envelope.Event{}, err
	}
	return newEvent(st.Organization, st.ID, view), nil
}

// sectionProblem says why id is not a section of the granted site, "" when
// it is one.
func (s *Service) sectionProblem(ctx context.Context, g Grant, id string) (string, error) {
	if strings.TrimSpace(id) == "" {
		return "must not be empty", nil
	}
	if s.sections != nil {
		ok, err := s.sections.Has(ctx, g, id)
		if ok || err != nil {
			return "", err
		}
	}
	return fmt.Sprintf("%q is not a section of this site", id), nil
}

// DeleteSite deletes a site and its site spaces (the manage permission is
// needed).
func (s *Service) DeleteSite(ctx context.Context, c access.Caller, org, siteID string) error {
	st, _, err := s.enter(ctx, c, org, siteID, access.Manage)
	if err != nil {
		return err
	}
	view, err := s.renderSite(ctx, st, nil)
	if err != nil {
		return err
	}
	if err := s.store.RemoveSite(ctx, st.ID, sitesapi.NewSiteDeleted(org, st.ID, view)); err != nil {
		return err
	}
	for _, f := range s.deleted {
		if err := f(ctx, st.ID); err != nil {
			return fmt.Errorf("remove the rest of site %s: %w", st.ID, err)
		}
	}
	return nil
}

// Publish makes a site reachable by its audience (the edit permission is needed).
func (s *Service) Publish(ctx context.Context, c access.Caller, org, siteID string) (SiteView, error) {
	return s.setPublished(ctx, c, org, siteID, true)
}

// Unpublish takes a site offline (the edit permission is needed).
func (s *Service) Unpublish(ctx context.Context, c access.Caller, org, siteID string) (SiteView, error) {
	return s.setPublished(ctx, c, org, siteID, false)
}

func (s *Service) setPublished(ctx context.Context, c access.Caller, org, siteID string, published bool) (SiteView, error) {
	st, g, err := s.enter(ctx, c, org, siteID, access.Edit)
	if err != nil {
		return SiteView{}, err
	}
	if st.Published != published {
		newEvent := sitesapi.NewSiteUnpublished
		if published {
			newEvent = sitesapi.NewSitePublished
		}
		st, err = s.store.UpdateSite(ctx, st.ID, func(cur *Site) (envelope.Event, error) {
			if cur.Published == published {
				return envelope.Event{}, nil // published meanwhile: nothing changes
			}
			cur.Published, cur.UpdatedAt = published, s.clock()
			return s.siteEvent(ctx, newEvent, *cur)
		})
		if err != nil {
			return SiteView{}, err
		}
	}
	return s.renderSite(ctx, st, &g)
}
