package site

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/sites/internal/access"
	"github.com/docspub/platform/services/sites/internal/spaceview"
)

// SiteView is a site as the API returns it (the Site schema). Permissions
// are the caller's; events carry the view without them.
type SiteView struct {
	Object      string `json:"object"`
	ID          string `json:"id"`
	Type        string `json:"type"`
	AppliedType string `json:"appliedType"`
	Title       string `json:"title"`
	Basename    string `json:"basename,omitempty"`
	Hostname    string `json:"hostname,omitempty"`
	// CustomHostname is our extension of the Site schema (the public spec
	// shows only hostname): the verification of the hostname.
	CustomHostname  *HostnameView    `json:"customHostname,omitempty"`
	Proxy           *ProxyView       `json:"proxy,omitempty"`
	Visibility      string           `json:"visibility"`
	DefaultLevel    string           `json:"defaultLevel"`
	Published       bool             `json:"published"`
	SiteSpaces      int              `json:"siteSpaces"`
	CreatedAt       time.Time        `json:"createdAt"`
	AdaptiveContent AdaptiveContent  `json:"adaptiveContent"`
	AgentsContext   string           `json:"agentsContext"`
	Features        []any            `json:"features"`
	URLs            SiteURLs         `json:"urls"`
	Permissions     *SitePermissions `json:"permissions,omitempty"`
}

// ProxyView is a site's proxy: the origin it is served on and the target
// the proxy forwards to (the site's published URL).
type ProxyView struct {
	Origin string `json:"origin"`
	Target string `json:"target"`
}

// HostnameView is the state of a site's custom hostname: our extension,
// shaped after the public spec's CustomHostname (object, hostname, target,
// isActive) with the verification its owner must publish. State is
// pending, verified or failed (not the spec's CustomHostnameStatus, which
// speaks of CNAME records and certificates).
type HostnameView struct {
	Object       string               `json:"object"` // custom-hostname
	Hostname     string               `json:"hostname"`
	Target       HostnameTarget       `json:"target"`
	IsActive     bool                 `json:"isActive"` // verified: readers are served there
	State        string               `json:"state"`
	Problem      string               `json:"problem,omitempty"`
	Verification HostnameVerification `json:"verification"`
	ClaimedAt    *time.Time           `json:"claimedAt,omitempty"`
	ExpiresAt    *time.Time           `json:"expiresAt,omitempty"` // while pending
	CheckedAt    *time.Time           `json:"checkedAt,omitempty"`
	VerifiedAt   *time.Time           `json:"verifiedAt,omitempty"`
}

// HostnameTarget is what a custom hostname opens (the spec's SitePointer).
type HostnameTarget struct {
	Type string `json:"type"` // site
	Site string `json:"site"`
}

// HostnameVerification is the DNS record that verifies a hostname.
type HostnameVerification struct {
	Type  string `json:"type"` // TXT
	Name  string `json:"name"`
	Value string `json:"value,omitempty"` // "" until the claim starts
}

func hostnameView(st Site) *HostnameView {
	v := &HostnameView{Object: "custom-hostname", Hostname: st.Hostname, Target: HostnameTarget{Type: "site", Site: st.ID},
		State: HostnamePending, Verification: HostnameVerification{Type: "TXT", Name: ChallengeName(st.Hostname)},
		Problem: "verification starts at the next check"}
	c := st.HostnameClaim
	if c == nil {
		return v
	}
	v.State, v.Problem, v.IsActive = c.State, c.Problem, c.State == HostnameVerified
	v.Verification.Value = c.Token
	v.ClaimedAt, v.VerifiedAt = &c.ClaimedAt, c.VerifiedAt
	if c.State == HostnamePending {
		v.ExpiresAt = &c.ExpiresAt
	}
	if !c.CheckedAt.IsZero() {
		v.CheckedAt = &c.CheckedAt
	}
	return v
}

// AdaptiveContent is a site's adaptive content setting.
type AdaptiveContent struct {
	Enabled bool `json:"enabled"`
}

// SiteURLs are a site's URLs.
type SiteURLs struct {
	Location  string `json:"location"`
	App       string `json:"app"`
	Published string `json:"published"`
	Preview   string `json:"preview"`
}

// SitePermissions is a site's permissions object for one caller.
type SitePermissions struct {
	View               bool `json:"view"`
	Access             bool `json:"access"`
	Edit               bool `json:"edit"`
	Create             bool `json:"create"`
	Admin              bool `json:"admin"`
	InstallIntegration bool `json:"installIntegration"`
	ViewAdaptiveSchema bool `json:"viewAdaptiveSchema"`
	EditAdaptiveSchema bool `json:"editAdaptiveSchema"`
}

func sitePermissions(g Grant) *SitePermissions {
	return &SitePermissions{
		View: g.Can(access.View), Access: g.Can(access.View),
		Edit: g.Can(access.Edit), Create: g.Can(access.Edit),
		Admin: g.Can(access.Manage), InstallIntegration: g.Can(access.Manage),
		ViewAdaptiveSchema: g.Can(access.View), EditAdaptiveSchema: g.Can(access.Manage),
	}
}

// siteDefaultLevel is the defaultLevel every site reports: members keep the
// level their organization role gives them.
const siteDefaultLevel = "inherit"

func (s *Service) siteView(st Site, siteSpaces int, g *Grant) SiteView {
	app := s.urls.app(st.Organization, st.ID)
	v := SiteView{
		Object: "site", ID: st.ID, Type: st.Type, AppliedType: st.Type, Title: st.Title,
		Basename: st.Basename, Hostname: st.Hostname, Visibility: st.Visibility, DefaultLevel: siteDefaultLevel,
		Published: st.Published, SiteSpaces: siteSpaces, CreatedAt: st.CreatedAt,
		AdaptiveContent: AdaptiveContent{Enabled: st.AdaptiveContent}, AgentsContext: st.AgentsContext,
		Features: []any{},
		URLs: SiteURLs{Location: s.urls.location(st.Organization, st.ID), App: app,
			Published: s.urls.published(st), Preview: app + "/preview"},
	}
	if st.Proxy != "" {
		v.Proxy = &ProxyView{Origin: st.Proxy, Target: s.urls.published(st)}
	}
	if st.Hostname != "" && (g == nil || !g.Visitor) {
		v.CustomHostname = hostnameView(st) // members' (and events'): visitors of the published view are not told
	}
	if g != nil {
		v.Permissions = sitePermissions(*g)
	}
	return v
}

// renderSites renders sites with their site space counts (one query for all).
func (s *Service) renderSites(ctx context.Context, sts []Site, g func(Site) *Grant) ([]SiteView, error) {
	ids := make([]string, len(sts))
	for i, st := range sts {
		ids[i] = st.ID
	}
	counts, err := s.store.CountSiteSpaces(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]SiteView, len(sts))
	for i, st := range sts {
		var gr *Grant
		if g != nil {
			gr = g(st)
		}
		out[i] = s.siteView(st, counts[st.ID], gr)
	}
	return out, nil
}

func (s *Service) renderSite(ctx context.Context, st Site, g *Grant) (SiteView, error) {
	vs, err := s.renderSites(ctx, []Site{st}, func(Site) *Grant { return g })
	if err != nil {
		return SiteView{}, err
	}
	return vs[0], nil
}

// SiteSpaceView is a site space as the API returns it (the SiteSpace
// schema). Space is the projected Space with the caller's permissions.
type SiteSpaceView struct {
	Object    string          `json:"object"`
	ID        string          `json:"id"`
	Path      string          `json:"path"`
	Section   string          `json:"section,omitempty"`
	Space     json.RawMessage `json:"space"`
	Title     string          `json:"title"`
	Default   bool            `json:"default"`
	Hidden    bool            `json:"hidden"`
	Condition string          `json:"condition,omitempty"`
	Draft     bool            `json:"draft"`
	URLs      SiteSpaceURLs   `json:"urls"`
}

// SiteSpaceURLs are a site space's URLs.
type SiteSpaceURLs struct {
	Published string `json:"published"`
}

// spacePermissions is the permissions object of an embedded space for its
// viewer: content's level for the member (content's permission table
// decides it: see showable), read-only for a visitor of a published site;
// a locked space allows no edits.
type spacePermissions = contentapi.SpacePermissions

func permissionsFor(level roles.Role, locked bool) spacePermissions {
	edit := level.AtLeast(roles.Edit) && !locked
	return spacePermissions{
		View: level.AtLeast(roles.Read), Access: level.AtLeast(roles.Read),
		Admin: level.AtLeast(roles.Admin), ViewInviteLinks: level.AtLeast(roles.Admin),
		Edit: edit, TriggerGitSync: edit, Comment: level.AtLeast(roles.Comment),
		Merge: level.AtLeast(roles.Review) && !locked, Review: level.AtLeast(roles.Review),
		InstallIntegration: level.AtLeast(roles.Admin),
	}
}

// locked reports whether a projected space view is in editMode locked.
func locked(view string) bool {
	var v struct {
		EditMode string `json:"editMode"`
	}
	_ = json.Unmarshal([]byte(view), &v)
	return v.EditMode == "locked"
}

// spaceJSON is a projected space view with perms as its permissions (nil:
// without permissions, as events carry it).
func spaceJSON(view string, perms *spacePermissions) (json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(view), &m); err != nil {
		return nil, fmt.Errorf("decode space view: %w", err)
	}
	delete(m, "permissions")
	if perms != nil {
		p, err := json.Marshal(perms)
		if err != nil {
			return nil, fmt.Errorf("encode space permissions: %w", err)
		}
		m["permissions"] = p
	}
	return json.Marshal(m)
}

// siteSpaceView renders a site space of st with the viewer's permissions
// on its space; perms nil renders it for events. prefixes are the section
// prefixes of the site (see prefixes).
func (s *Service) siteSpaceView(st Site, prefixes map[string]string, ss SiteSpace, sp spaceview.Space, perms *spacePermissions) (SiteSpaceView, error) {
	raw, err := spaceJSON(sp.View, perms)
	if err != nil {
		return SiteSpaceView{}, err
	}
	url := s.urls.published(st) + SpacePath(prefixes[ss.Section], ss)
	return SiteSpaceView{
		Object: "site-space", ID: ss.ID, Path: ss.Path, Section: ss.Section, Space: raw,
		Title: sp.Title, Default: ss.Default, Hidden: ss.Hidden, Condition: ss.Condition,
		URLs: SiteSpaceURLs{Published: url},
	}, nil
}

// prefixes returns the section prefixes (SectionPrefix) of st's sections,
// asked only when one of sss is in a section.
func (s *Service) prefixes(ctx context.Context, st Site, sss ...SiteSpace) (map[string]string, error) {
	for _, ss := range sss {
		if ss.Section != "" && s.sections != nil {
			return s.sections.Prefixes(ctx, st.ID)
		}
	}
	return map[string]string{}, nil
}
