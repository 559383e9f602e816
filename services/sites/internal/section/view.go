package section

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/docspub/platform/services/sites/internal/site"
)

// SectionView is a section as the API returns it (SiteSection).
type SectionView struct {
	Object       string            `json:"object"`
	ID           string            `json:"id"`
	Title        string            `json:"title"`
	Description  string            `json:"description,omitempty"`
	Default      bool              `json:"default"`
	Draft        bool              `json:"draft"`
	Path         string            `json:"path"`
	Condition    string            `json:"condition,omitempty"`
	SectionGroup string            `json:"sectionGroup,omitempty"`
	Icon         string            `json:"icon,omitempty"`
	SiteSpaces   []json.RawMessage `json:"siteSpaces"`
	URLs         SectionURLs       `json:"urls"`

	// concealed: the section has site spaces, none of which its viewer may
	// be shown; it is left out of what they see.
	concealed bool
}

// SectionURLs are a section's URLs: published is where its default site
// space is published.
type SectionURLs struct {
	Published string `json:"published,omitempty"`
}

// GroupView is a section group as the API returns it (SiteSectionGroup):
// its sections in order; children holds them too (the public spec's name).
type GroupView struct {
	Object   string        `json:"object"`
	ID       string        `json:"id"`
	Title    string        `json:"title"`
	Icon     string        `json:"icon,omitempty"`
	Draft    bool          `json:"draft"`
	Sections []SectionView `json:"sections"`
	Children []SectionView `json:"children"`
}

// siteSpace is what sections read of a site space: the fields of its wire
// shape (SiteSpace), so that the site context's Go type stays its own.
type siteSpace struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	Default bool   `json:"default"`
	URLs    struct {
		Published string `json:"published"`
	} `json:"urls"`
}

func readSiteSpace(v site.SiteSpaceView) (siteSpace, json.RawMessage, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return siteSpace{}, nil, fmt.Errorf("encode site space: %w", err)
	}
	var ss siteSpace
	if err := json.Unmarshal(raw, &ss); err != nil {
		return siteSpace{}, nil, fmt.Errorf("read site space: %w", err)
	}
	return ss, raw, nil
}

// siteSpaceIDs are the ids of views.
func siteSpaceIDs(views []site.SiteSpaceView) ([]string, error) {
	out := make([]string, 0, len(views))
	for _, v := range views {
		ss, _, err := readSiteSpace(v)
		if err != nil {
			return nil, err
		}
		out = append(out, ss.ID)
	}
	return out, nil
}

// render is a section with the site spaces its viewer may be shown. The
// default one is the section's DefaultSiteSpace (set by a PATCH) when it
// still is one of them, else the one the site context marks default, else
// the first; it alone is marked default, and its URL is the section's
// published URL.
func render(sec Section, variants site.Variants) (SectionView, error) {
	views := variants.Shown
	v := SectionView{Object: KindSection, ID: sec.ID, Title: sec.Title, Description: sec.Description,
		Default: sec.Default, Path: sec.Path, Condition: sec.Condition, SectionGroup: sec.Group, Icon: sec.Icon,
		SiteSpaces: make([]json.RawMessage, 0, len(views)), concealed: variants.Concealed()}
	read := make([]siteSpace, len(views))
	raws := make([]json.RawMessage, len(views))
	def, marked := -1, -1
	for i, view := range views {
		ss, raw, err := readSiteSpace(view)
		if err != nil {
			return SectionView{}, err
		}
		read[i], raws[i] = ss, raw
		if ss.ID == sec.DefaultSiteSpace && sec.DefaultSiteSpace != "" {
			def = i
		}
		if ss.Default && marked < 0 {
			marked = i
		}
	}
	switch {
	case def >= 0:
	case marked >= 0:
		def = marked
	case len(views) > 0:
		def = 0
	}
	for i, raw := range raws {
		marked, err := markDefault(raw, i == def)
		if err != nil {
			return SectionView{}, err
		}
		v.SiteSpaces = append(v.SiteSpaces, marked)
	}
	if def >= 0 {
		v.URLs.Published = read[def].URLs.Published
	}
	return v, nil
}

// markDefault sets the default flag of a site space's wire shape.
func markDefault(raw json.RawMessage, def bool) (json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("read site space: %w", err)
	}
	m["default"] = json.RawMessage(fmt.Sprint(def))
	return json.Marshal(m)
}

func renderGroup(g Group, sections []SectionView) GroupView {
	if sections == nil {
		sections = []SectionView{}
	}
	return GroupView{Object: KindGroup, ID: g.ID, Title: g.Title, Icon: g.Icon, Sections: sections, Children: sections}
}

// views renders sections with their site spaces, asked for in one call
// (concealed ones included: callers leave them out of what they show).
func (s *Service) views(ctx context.Context, g site.Grant, secs []Section) ([]SectionView, error) {
	out := make([]SectionView, 0, len(secs))
	if len(secs) == 0 {
		return out, nil
	}
	ids := make([]string, len(secs))
	for i, sec := range secs {
		ids[i] = sec.ID
	}
	spaces, err := s.spaces.SiteSpaces(ctx, g, ids)
	if err != nil {
		return nil, err
	}
	for _, sec := range secs {
		v, err := render(sec, spaces[sec.ID])
		if err != nil {
			return nil, err
		}
		if g.Visitor {
			// A visitor is shown what the visibility rule lists to them
			// (their site spaces are already), never a condition.
			v.Condition = ""
			v.concealed = v.concealed || g.Visible == nil || !g.Visible.Listed(sec.ID) || len(v.SiteSpaces) == 0
		}
		out = append(out, v)
	}
	return out, nil
}

func (s *Service) view(ctx context.Context, g site.Grant, sec Section) (SectionView, error) {
	vs, err := s.views(ctx, g, []Section{sec})
	if err != nil {
		return SectionView{}, err
	}
	return vs[0], nil
}

// visible is the view of a section its viewer may see: a concealed one is
// not found.
func (s *Service) visible(ctx context.Context, g site.Grant, sec Section) (SectionView, error) {
	v, err := s.view(ctx, g, sec)
	if err == nil && v.concealed {
		return SectionView{}, ErrSectionNotFound
	}
	return v, err
}

// shownOnly leaves the concealed sections out.
func shownOnly(vs []SectionView) []SectionView {
	out := vs[:0:0]
	for _, v := range vs {
		if !v.concealed {
			out = append(out, v)
		}
	}
	return out
}

// groupViews renders groups with their sections in order (l has every
// section of the site).
func (s *Service) groupViews(ctx context.Context, g site.Grant, l layout, grps []Group) ([]GroupView, error) {
	var inGroups []Section
	for _, sec := range l.sections {
		for _, grp := range grps {
			if sec.Group == grp.ID {
				inGroups = append(inGroups, sec)
			}
		}
	}
	vs, err := s.views(ctx, g, inGroups) // l.sections is in order, so each group's are too
	if err != nil {
		return nil, err
	}
	vs = shownOnly(vs)
	out := make([]GroupView, 0, len(grps))
	for _, grp := range grps {
		var mine []SectionView
		for _, v := range vs {
			if v.SectionGroup == grp.ID {
				mine = append(mine, v)
			}
		}
		out = append(out, renderGroup(grp, mine))
	}
	return out, nil
}

func (s *Service) groupView(ctx context.Context, g site.Grant, grp Group) (GroupView, error) {
	l, err := s.layout(ctx, g)
	if err != nil {
		return GroupView{}, err
	}
	vs, err := s.groupViews(ctx, g, l, []Group{grp})
	if err != nil {
		return GroupView{}, err
	}
	return vs[0], nil
}

// Prefixes returns the path under the site's published URL of each section
// of the site (site.SectionPrefix): "" for the default section.
func (s *Service) Prefixes(ctx context.Context, siteID string) (map[string]string, error) {
	secs, err := s.store.SiteSections(ctx, siteID)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(secs))
	for _, sec := range secs {
		out[sec.ID] = site.SectionPrefix(sec.Path, sec.Default)
	}
	return out, nil
}

// DefaultSection returns the site's default section ("" when it has none).
func (s *Service) DefaultSection(ctx context.Context, siteID string) (string, error) {
	secs, err := s.store.SiteSections(ctx, siteID)
	if err != nil || len(secs) == 0 {
		return "", err
	}
	for _, sec := range secs {
		if sec.Default {
			return sec.ID, nil
		}
	}
	return secs[0].ID, nil
}

// Structure is the site's structure for the published view: the top-level
// items in order, ungrouped sections (SectionView) and groups (GroupView,
// with their sections); hasSections is false when the site has no section.
// A section none of whose site spaces the reader may be shown is left out:
// its title (often its space's) would be all they see of it. A visitor
// (g.Visitor) is shown only the sections g.Visible lists, without their
// conditions, and no group left empty.
func (s *Service) Structure(ctx context.Context, g site.Grant) ([]any, bool, error) {
	l, err := s.layout(ctx, g)
	if err != nil {
		return nil, false, err
	}
	all, err := s.views(ctx, g, l.sections)
	if err != nil {
		return nil, false, err
	}
	byID := map[string]SectionView{}
	for _, v := range all {
		byID[v.ID] = v
	}
	groups := map[string]Group{}
	for _, grp := range l.groups {
		groups[grp.ID] = grp
	}
	items := []any{}
	for _, n := range l.children("") {
		if n.Kind == KindSection {
			if v := byID[n.ID]; len(v.SiteSpaces) > 0 && !v.concealed {
				items = append(items, v)
			}
			continue
		}
		var mine []SectionView
		for _, c := range l.children(n.ID) {
			if v := byID[c.ID]; len(v.SiteSpaces) > 0 && !v.concealed {
				mine = append(mine, v)
			}
		}
		if len(mine) == 0 && g.Visitor {
			continue // as the reader, which shows no empty group
		}
		items = append(items, renderGroup(groups[n.ID], mine))
	}
	return items, len(l.sections) > 0, nil
}
