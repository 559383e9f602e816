package site

import (
	"context"

	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/sites/internal/access"
	"github.com/docspub/platform/services/sites/internal/visibility"
)

// PublishedView is a site as its visitors get it (PublishedContentSite).
type PublishedView struct {
	Object         string         `json:"object"`
	Site           SiteView       `json:"site"`
	Structure      Structure      `json:"structure"`
	Customizations Customizations `json:"customizations"`
	Scripts        []any          `json:"scripts"`
}

// Structure is a published site's structure: its sections and section
// groups ("sections") or, for a site without sections, its site-level site
// spaces ("siteSpaces").
type Structure struct {
	Type      string `json:"type"`
	Structure []any  `json:"structure"`
}

// Customizations are a published site's customization settings.
type Customizations struct {
	Site       map[string]any            `json:"site"`
	SiteSpaces map[string]map[string]any `json:"siteSpaces"`
}

// Published returns the published view of a site. Who may read it:
//   - members of the organization whose role views sites: always, published
//     or not, whatever the visibility (they see the site through the API);
//   - anyone else: only a published site (an unpublished one is "site not
//     found"); a public or unlisted site is open; a share-link site needs
//     shareKey, an active share link of the site (none: "site not found",
//     a wrong or inactive one: 403 "invalid share key"); a visitor-auth
//     site is refused (403): its visitors authenticate on the site itself.
//
// Such a visitor's grant has the read level. A member is shown the spaces
// content lets them view (today's answer: every section and site space,
// with conditions). A visitor is shown what the reader shows a visitor
// without claims, and no more (visibility.Of, through Visitors): no
// section or site space whose condition does not hold for them, no hidden
// site space, no space that is not published (deleted, in another
// organization); no condition; spaces without member-only fields (see
// visitorSpace).
func (s *Service) Published(ctx context.Context, c access.Caller, org, siteID, shareKey string) (PublishedView, error) {
	st, err := s.load(ctx, org, siteID)
	if err != nil {
		return PublishedView{}, err
	}
	g := Grant{Organization: org, Site: st.ID, User: c.UserID, Level: roles.Read, Visitor: true}
	if role, ok := c.Role(org); ok && access.Allows(role, access.View) {
		g.Level, g.Caller, g.Visitor = role, c, false
	} else if err := s.visitorMayRead(ctx, st, shareKey); err != nil {
		return PublishedView{}, err
	}
	if g.Visitor {
		set := visibility.Set{}
		if s.visitors != nil {
			if set, err = s.visitors.Visible(ctx, org, st.ID); err != nil {
				return PublishedView{}, err
			}
		}
		g.Visible = &set
	}
	view, err := s.renderSite(ctx, st, &g)
	if err != nil {
		return PublishedView{}, err
	}
	if g.Visitor {
		view.SiteSpaces = g.Visible.CountListed()
	}
	out := PublishedView{Object: "published-content-site", Site: view, Scripts: []any{},
		Customizations: Customizations{Site: defaultCustomization(st.Title), SiteSpaces: map[string]map[string]any{}}}
	var items []any
	hasSections := false
	if s.sections != nil {
		if items, hasSections, err = s.sections.Structure(ctx, g, s); err != nil {
			return PublishedView{}, err
		}
	}
	if hasSections {
		if items == nil {
			items = []any{}
		}
		out.Structure = Structure{Type: "sections", Structure: items}
		return out, nil
	}
	sss, err := s.SiteSpaces(ctx, g, []string{""})
	if err != nil {
		return PublishedView{}, err
	}
	out.Structure = Structure{Type: "siteSpaces", Structure: make([]any, 0, len(sss[""].Shown))}
	for _, v := range sss[""].Shown {
		out.Structure.Structure = append(out.Structure.Structure, v)
	}
	return out, nil
}

func (s *Service) visitorMayRead(ctx context.Context, st Site, shareKey string) error {
	if !st.Published {
		return ErrSiteNotFound
	}
	switch st.Visibility {
	case VisibilityShareLink:
		if shareKey == "" {
			return ErrSiteNotFound
		}
		if s.shareKeys == nil {
			return ErrInvalidShareKey
		}
		ok, err := s.shareKeys.Active(ctx, st.ID, shareKey)
		if err != nil {
			return err
		}
		if !ok {
			return ErrInvalidShareKey
		}
	case VisibilityVisitorAuth:
		return forbidden("read this site without visitor authentication")
	}
	return nil
}

// defaultCustomization is the customization of every site: the
// SiteCustomizationSettings defaults, titled after the site.
func defaultCustomization(title string) map[string]any {
	color := func(c string) map[string]any { return map[string]any{"light": c, "dark": c} }
	return map[string]any{
		"title": title,
		"styling": map[string]any{
			"theme":         "clean",
			"primaryColor":  color("#346DDB"),
			"tint":          map[string]any{"color": color("#346DDB")},
			"infoColor":     color("#787878"),
			"successColor":  color("#00C950"),
			"warningColor":  color("#FE9A00"),
			"dangerColor":   color("#FB2C36"),
			"corners":       "rounded",
			"depth":         "subtle",
			"links":         "default",
			"font":          "Inter",
			"monospaceFont": "IBMPlexMono",
			"background":    "plain",
			"icons":         "regular",
			"codeTheme": map[string]any{
				"default": map[string]any{"light": "default-light", "dark": "default-dark"},
				"openapi": map[string]any{"light": "default-light", "dark": "default-dark"},
			},
			"sidebar": map[string]any{"background": "default", "list": "default"},
			"search":  "subtle",
		},
		"internationalization":  map[string]any{"locale": "en"},
		"favicon":               map[string]any{},
		"header":                map[string]any{"preset": "default", "links": []any{}},
		"footer":                map[string]any{"groups": []any{}},
		"themes":                map[string]any{"default": "system", "toggeable": true},
		"feedback":              map[string]any{"enabled": false},
		"ai":                    map[string]any{"mode": "none"},
		"advancedCustomization": map[string]any{"enabled": false},
		"trademark":             map[string]any{"enabled": true},
		"externalLinks":         map[string]any{"target": "self"},
		"pagination":            map[string]any{"enabled": true},
		"pageActions":           map[string]any{"items": []any{}},
		"privacyPolicy":         map[string]any{},
		"socialPreview":         map[string]any{},
		"socialAccounts":        []any{},
		"insights":              map[string]any{"trackingCookie": true},
	}
}
