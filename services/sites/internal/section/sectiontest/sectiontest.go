// Package sectiontest gives tests of sections a stand-in for the site
// context (section.SiteAccess): sites of organizations, spaces that may be
// added, and the site spaces of sections, kept in memory. It decides access
// as the site context does: a site of another organization or a caller who
// is not a member of its organization is not found, a role that does not
// allow the action is forbidden.
package sectiontest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/ids"
	"github.com/docspub/platform/services/sites/internal/access"
	"github.com/docspub/platform/services/sites/internal/section"
	"github.com/docspub/platform/services/sites/internal/site"
)

// PublishedBase is the base of the published URLs of site spaces.
const PublishedBase = "https://docs.test"

// Sites implements section.SiteAccess.
type Sites struct {
	mu         sync.Mutex
	sites      map[string]string // site id → organization
	spaces     map[string]string // space id → title
	siteSpaces map[string][]site.SiteSpaceView
	hidden     map[string]bool // spaces callers may not be shown
	// Removed lists the sections whose site spaces were removed, in order.
	Removed []string
}

var _ section.SiteAccess = (*Sites)(nil)

// New returns a stand-in without sites or spaces.
func New() *Sites {
	return &Sites{sites: map[string]string{}, spaces: map[string]string{}, siteSpaces: map[string][]site.SiteSpaceView{},
		hidden: map[string]bool{}}
}

// AddSite records a site of org.
func (s *Sites) AddSite(org, siteID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sites[siteID] = org
}

// AddSpace records a space that sections may show.
func (s *Sites) AddSpace(spaceID, title string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.spaces[spaceID] = title
}

// Enter grants the caller's role on a site of org.
func (s *Sites) Enter(_ context.Context, c access.Caller, org, siteID string, a access.Action) (site.Grant, error) {
	s.mu.Lock()
	owner, ok := s.sites[siteID]
	s.mu.Unlock()
	role, member := c.Role(org)
	if !ok || owner != org || !member || !access.Allows(role, access.View) {
		return site.Grant{}, apierr.NotFound("site not found")
	}
	if !access.Allows(role, a) {
		return site.Grant{}, apierr.Forbidden("your permission does not allow you to %s this site", a)
	}
	return site.Grant{Organization: org, Site: siteID, User: c.UserID, Level: role}, nil
}

// AddSiteSpace adds a known space to a section as a site space.
func (s *Sites) AddSiteSpace(_ context.Context, _ access.Caller, g site.Grant, sectionID, spaceID string) (site.SiteSpaceView, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	title, ok := s.spaces[spaceID]
	if !ok {
		return site.SiteSpaceView{}, apierr.Invalid("spaceId", "space %s not found", spaceID)
	}
	v, err := siteSpace(g, ids.New(), sectionID, spaceID, title, len(s.siteSpaces[sectionID]) == 0)
	if err != nil {
		return site.SiteSpaceView{}, err
	}
	s.siteSpaces[sectionID] = append(s.siteSpaces[sectionID], v)
	return v, nil
}

// Hide makes a space one that callers may not be shown (as content refusing
// it does): its site spaces are counted as hidden.
func (s *Sites) Hide(spaceID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hidden[spaceID] = true
}

// SiteSpaces returns the site spaces of the sections, those of hidden
// spaces counted apart.
func (s *Sites) SiteSpaces(_ context.Context, _ site.Grant, sectionIDs []string) (map[string]site.Variants, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]site.Variants{}
	for _, id := range sectionIDs {
		v := site.Variants{Shown: []site.SiteSpaceView{}}
		for _, ss := range s.siteSpaces[id] {
			var wire struct {
				Space struct {
					ID string `json:"id"`
				} `json:"space"`
			}
			raw, _ := json.Marshal(ss)
			_ = json.Unmarshal(raw, &wire)
			if s.hidden[wire.Space.ID] {
				v.Hidden++
				continue
			}
			v.Shown = append(v.Shown, ss)
		}
		out[id] = v
	}
	return out, nil
}

// MakeDefault makes a site space the default of its section.
func (s *Sites) MakeDefault(_ context.Context, _ site.Grant, siteSpaceID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for sec, sss := range s.siteSpaces {
		if !slices.ContainsFunc(sss, func(v site.SiteSpaceView) bool { return v.ID == siteSpaceID }) {
			continue
		}
		for i := range sss {
			s.siteSpaces[sec][i].Default = sss[i].ID == siteSpaceID
		}
		return nil
	}
	return site.ErrSiteSpaceNotFound
}

// RemoveSiteSpaces drops the site spaces of a section.
func (s *Sites) RemoveSiteSpaces(_ context.Context, _ site.Grant, sectionID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.siteSpaces, sectionID)
	s.Removed = append(s.Removed, sectionID)
	return nil
}

// SiteSpaceCount is how many site spaces a section has.
func (s *Sites) SiteSpaceCount(sectionID string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.siteSpaces[sectionID])
}

// siteSpace builds a site space from its wire shape (SiteSpace, with a
// Space valid against the contract), so that tests need no field of the
// site context's Go type.
func siteSpace(g site.Grant, id, sectionID, spaceID, title string, def bool) (site.SiteSpaceView, error) {
	space := map[string]any{
		"object": "space", "id": spaceID, "title": title, "emoji": "", "organization": g.Organization,
		"visibility": "public", "revision": "rev-" + spaceID, "createdAt": "2025-01-02T03:04:05Z",
		"updatedAt": "2025-01-02T03:04:05Z", "comments": 0, "changeRequests": 0, "changeRequestsOpen": 0,
		"changeRequestsDraft": 0, "mergeRules": map[string]any{"type": "inherit"}, "defaultLevel": "inherit",
		"urls": map[string]any{"location": "https://api.test/v1/spaces/" + spaceID, "app": "https://app.test/s/" + spaceID},
		"permissions": map[string]any{"view": true, "access": true, "admin": false, "viewInviteLinks": false,
			"edit": false, "triggerGitSync": false, "comment": true, "merge": false, "review": false, "installIntegration": false},
	}
	wire := map[string]any{
		"object": "site-space", "id": id, "path": spaceID, "section": sectionID, "space": space, "title": title,
		"default": def, "draft": false,
		"urls": map[string]any{"published": fmt.Sprintf("%s/%s/%s/%s/%s", PublishedBase, g.Organization, g.Site, sectionID, spaceID)},
	}
	raw, err := json.Marshal(wire)
	if err != nil {
		return site.SiteSpaceView{}, err
	}
	var v site.SiteSpaceView
	if err := json.Unmarshal(raw, &v); err != nil {
		return site.SiteSpaceView{}, fmt.Errorf("site space from its wire shape: %w", err)
	}
	return v, nil
}
