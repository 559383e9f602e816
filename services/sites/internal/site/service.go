package site

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/quota"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/sites/internal/access"
	"github.com/docspub/platform/services/sites/internal/spaceview"
	"github.com/docspub/platform/services/sites/internal/visibility"
)

// Errors sites return besides field problems.
var (
	ErrOrganizationNotFound = apierr.NotFound("organization not found")
	ErrSiteNotFound         = apierr.NotFound("site not found")
	ErrSiteSpaceNotFound    = apierr.NotFound("site space not found")
	ErrInvalidShareKey      = apierr.Forbidden("invalid share key")
)

func forbidden(what string) error {
	return apierr.Forbidden("your permission does not allow you to %s", what)
}

// Sections renders a site's sections and section groups for its published
// view. It is implemented by the sections part of the service
// (section.Outline). It must not check g's permissions: the published view
// has already decided that the caller may read the site (a share-key
// visitor's grant has the read level). What renders sections takes their
// site spaces from sites, the service that calls.
type Sections interface {
	Structure(ctx context.Context, g Grant, sites SiteSpaceLister) (items []any, hasSections bool, err error)
	// Prefixes returns, for each section of the site, the path its site
	// spaces are published under (SectionPrefix).
	Prefixes(ctx context.Context, siteID string) (map[string]string, error)
	// DefaultSection returns the site's default section, "" when it has none.
	DefaultSection(ctx context.Context, siteID string) (string, error)
	// Has reports whether the granted site has the section.
	Has(ctx context.Context, g Grant, sectionID string) (bool, error)
	// SetDefault makes a section of the granted site its default section
	// (a 400 naming defaultSiteSection when the site has no such section).
	SetDefault(ctx context.Context, g Grant, sites SiteSpaceLister, sectionID string) error
}

// SiteSpaceLister lists the site spaces of sections (Service.SiteSpaces).
type SiteSpaceLister interface {
	SiteSpaces(ctx context.Context, g Grant, sectionIDs []string) (map[string]Variants, error)
}

// Content is what sites ask content (contentclient, through
// sitecontentclient).
type Content interface {
	// Space returns a space as the caller may read it; one that does not
	// exist or that they may not see is a 400 naming field.
	Space(ctx context.Context, caller access.Caller, spaceID, field string) (json.RawMessage, error)
	// Access says what the caller may do on each space (nil for a space
	// they cannot view).
	Access(ctx context.Context, caller access.Caller, spaceIDs []string) (map[string]*SpaceAccess, error)
}

// SpaceAccess is what content says a caller may do on a space: its
// organization, the caller's level there and whether the space is deleted.
type SpaceAccess struct {
	Organization string
	Level        roles.Role
	Deleted      bool
}

// Spaces is the projection of content's spaces that site spaces embed
// (spaceviewmongo.Store): read, and told of a space content answered for
// when a site first embeds it.
type Spaces interface {
	spaceview.Reader
	Put(ctx context.Context, view json.RawMessage, deleted bool, at time.Time) error
}

// Visitors tells what a site shows a visitor without claims: the reader's
// visibility rule (reader.Reader.Visible), from which the published view
// of a non-member derives.
type Visitors interface {
	Visible(ctx context.Context, org, siteID string) (visibility.Set, error)
}

// ShareKeys tells whether a share key of a site is an active share link.
type ShareKeys interface {
	Active(ctx context.Context, siteID, key string) (bool, error)
}

// URLs are the bases of the URLs sites report.
type URLs struct {
	Public    string // the gateway: urls.location = Public + "/v1/orgs/{org}/sites/{id}"
	App       string // the web app: base of urls.app
	Published string // base of published site URLs
}

func (u URLs) location(org, id string) string {
	return u.Public + "/v1/orgs/" + org + "/sites/" + id
}

func (u URLs) app(org, id string) string { return u.App + "/o/" + org + "/sites/" + id }

// published is the URL of a published site: Published/{org}/{basename or
// id}, or, for a site with a verified custom hostname, that host with
// Published's scheme.
func (u URLs) published(s Site) string {
	if s.HostnameVerified(s.Hostname) {
		scheme, _, _ := strings.Cut(u.Published, "://")
		return scheme + "://" + s.Hostname
	}
	name := s.Basename
	if name == "" {
		name = s.ID
	}
	return u.Published + "/" + url.PathEscape(s.Organization) + "/" + url.PathEscape(name)
}

// SectionPrefix is the path under its site's published URL that a
// section's site spaces are published under: "" for the site level
// (section "") and the default section, "/<path>" for the others.
func SectionPrefix(path string, isDefault bool) string {
	if isDefault || path == "" {
		return ""
	}
	return "/" + url.PathEscape(path)
}

// SpacePath is the path of a site space under its site's published URL,
// for a section published under prefix (SectionPrefix): the default site
// space of a section (or of the site level) is at the prefix itself, the
// others one segment below it, their own path.
func SpacePath(prefix string, ss SiteSpace) string {
	if ss.Default {
		return prefix
	}
	return prefix + "/" + url.PathEscape(ss.Path)
}

// Service carries out the operations on sites and site spaces.
type Service struct {
	store     Store
	spaces    Spaces
	content   Content
	urls      URLs
	now       func() time.Time
	sections  Sections
	shareKeys ShareKeys
	hosts     HostnameConfig
	visitors  Visitors
	deleted   []func(ctx context.Context, siteID string) error
	compiles  *quota.Limiter // adaptive schema compilations per organization
	// compileFn compiles an adaptive schema (compileSchema; tests slow it down).
	compileFn func(map[string]any) error

	mu      sync.Mutex
	lastPos int64
}

// Deps are what a Service works with.
type Deps struct {
	Store   Store
	Spaces  Spaces
	Content Content
	URLs    URLs
	// Hostnames is how custom hostnames are verified.
	Hostnames HostnameConfig
	// Sections renders the sections of published views (nil: none).
	Sections Sections
	// ShareKeys checks share keys of share-link sites.
	ShareKeys ShareKeys
	// Visitors decides what a site shows its visitors; without it, a
	// non-member's published view shows no section and no site space.
	Visitors Visitors
	// OnDelete remove the rest of a deleted site (its sections, its share
	// links): run after the site's own removal, without events of their
	// own (site.deleted says it all).
	OnDelete []func(ctx context.Context, siteID string) error
	// Now is the clock (nil: the real one).
	Now func() time.Time
}

// New returns a service.
func New(d Deps) *Service {
	if d.Now == nil {
		d.Now = time.Now
	}
	urls := d.URLs
	urls.Public = strings.TrimRight(urls.Public, "/")
	urls.App = strings.TrimRight(urls.App, "/")
	urls.Published = strings.TrimRight(urls.Published, "/")
	return &Service{store: d.Store, spaces: d.Spaces, content: d.Content, urls: urls, now: d.Now, sections: d.Sections,
		shareKeys: d.ShareKeys, visitors: d.Visitors, deleted: d.OnDelete, hosts: hostnames(d.Hostnames, urls),
		compiles: compileQuota(), compileFn: compileSchema}
}

func (s *Service) clock() time.Time { return s.now().UTC().Truncate(time.Millisecond) }

// position returns a position later than every one handed out before by
// this process: site spaces keep the order in which they were added.
func (s *Service) position() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.now().UnixMicro()
	if p <= s.lastPos {
		p = s.lastPos + 1
	}
	s.lastPos = p
	return p
}

// Grant is the caller's access to one site.
type Grant struct {
	Organization, Site, User string
	Level                    roles.Role
	// Caller is the member the grant is for: content is asked, for them,
	// which spaces they may be shown.
	Caller access.Caller
	// Visitor marks a reader of the published view who is not a member
	// (a public or unlisted site, a share link): the site's publishing
	// rules decide what they see, not content's member permissions.
	Visitor bool
	// Visible, for a visitor, is what the site's visibility rule lists to
	// them: no other section or site space is shown.
	Visible *visibility.Set
}

// Can reports whether the grant allows a.
func (g Grant) Can(a access.Action) bool { return access.Allows(g.Level, a) }

// Enter checks that the caller may do a on a site of org and returns their
// grant. A caller who is not a member of org (or whose role does not even
// let them view sites), an unknown site and a site of another organization
// are all "site not found"; a member whose role does not allow a is
// forbidden.
func (s *Service) Enter(ctx context.Context, c access.Caller, org, siteID string, a access.Action) (Grant, error) {
	_, g, err := s.enter(ctx, c, org, siteID, a)
	return g, err
}

func (s *Service) enter(ctx context.Context, c access.Caller, org, siteID string, a access.Action) (Site, Grant, error) {
	role, ok := c.Role(org)
	if !ok || !access.Allows(role, access.View) {
		return Site{}, Grant{}, ErrSiteNotFound
	}
	st, err := s.load(ctx, org, siteID)
	if err != nil {
		return Site{}, Grant{}, err
	}
	g := Grant{Organization: org, Site: st.ID, User: c.UserID, Level: role, Caller: c}
	if !g.Can(a) {
		return Site{}, Grant{}, forbidden(actionText(a))
	}
	return st, g, nil
}

// load returns the site if it belongs to org.
func (s *Service) load(ctx context.Context, org, siteID string) (Site, error) {
	st, err := s.store.Site(ctx, siteID)
	if errors.Is(err, apierr.ErrNotFound) || (err == nil && st.Organization != org) {
		return Site{}, ErrSiteNotFound
	}
	return st, err
}

func actionText(a access.Action) string {
	switch a {
	case access.Edit:
		return "edit this site"
	case access.Manage:
		return "manage this site"
	}
	return "view this site"
}

// member returns the caller's role in org; a non-member (or a role that
// cannot view sites) learns nothing: the organization is not found.
func member(c access.Caller, org string) (roles.Role, error) {
	r, ok := c.Role(org)
	if !ok || !access.Allows(r, access.View) {
		return roles.Guest, ErrOrganizationNotFound
	}
	return r, nil
}
