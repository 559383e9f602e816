package section

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/docspub/platform/libs/paging"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/ids"
	"github.com/docspub/platform/libs/internalapi/sitesapi"
	"github.com/docspub/platform/libs/nullable"
	"github.com/docspub/platform/services/sites/internal/access"
	"github.com/docspub/platform/services/sites/internal/limits"
	"github.com/docspub/platform/services/sites/internal/site"
)

// ListSections returns a page of a site's sections by position: those the
// caller may see (not concealed), counted alike. A site has at most
// limits.SectionsPerSite sections, so they are all rendered with one
// question to content and paged here.
func (s *Service) ListSections(ctx context.Context, c access.Caller, org, siteID string, p Page) (List[SectionView], error) {
	g, err := s.enter(ctx, c, org, siteID, access.View)
	if err != nil {
		return List[SectionView]{}, err
	}
	if p.Limit <= 0 {
		p.Limit = DefaultLimit
	}
	all, err := s.store.SiteSections(ctx, g.Site)
	if err != nil {
		return List[SectionView]{}, err
	}
	views, err := s.views(ctx, g, all)
	if err != nil {
		return List[SectionView]{}, err
	}
	var secs []Section
	var shown []SectionView
	for i, v := range views {
		if v.concealed {
			continue
		}
		secs, shown = append(secs, all[i]), append(shown, v)
	}
	count, from := len(secs), 0
	if p.AfterID != "" {
		from = len(secs)
		for i, sec := range secs {
			if sec.Position > p.AfterPosition || (sec.Position == p.AfterPosition && sec.ID > p.AfterID) {
				from = i
				break
			}
		}
	}
	page, _ := paging.Fetch(p, func(limit int) ([]Section, int, error) {
		return secs[from:min(from+limit, len(secs))], count, nil
	}, sectionKey)
	return paging.With(page, shown[from:from+len(page.Items)]), nil
}

// CreateSectionInput is the body of a section creation.
type CreateSectionInput struct {
	SpaceID string
	Title   nullable.Field[string]
	Icon    nullable.Field[string]
	GroupID string // siteSectionGroupId: put the section in this group
}

// CreateSection creates a section whose first site space shows the space
// SpaceID. Without a title it takes the space's; its path is a slug of the
// title, made unique in the site. The site's first section is its default.
func (s *Service) CreateSection(ctx context.Context, c access.Caller, org, siteID string, in CreateSectionInput) (SectionView, error) {
	var p apierr.Problems
	if strings.TrimSpace(in.SpaceID) == "" {
		p.Add("spaceId", "is required")
	}
	title := ""
	if in.Title.Set && !in.Title.Null {
		title = strings.TrimSpace(in.Title.Value)
		p.Text("title", title, limits.SectionTitleMin, limits.SectionCreateTitleMax)
	}
	icon := ""
	if in.Icon.Set && !in.Icon.Null {
		icon = in.Icon.Value
		p.Text("icon", icon, 0, limits.Icon)
	}
	if err := p.Err(); err != nil {
		return SectionView{}, err
	}
	g, err := s.enter(ctx, c, org, siteID, access.Edit)
	if err != nil {
		return SectionView{}, err
	}
	l, err := s.layout(ctx, g)
	if err != nil {
		return SectionView{}, err
	}
	if len(l.sections) >= limits.SectionsPerSite {
		return SectionView{}, apierr.Invalid("spaceId", "cannot add a section: a site has at most %d sections", limits.SectionsPerSite)
	}
	if in.GroupID != "" {
		if _, ok := l.parentOf(Ref{Kind: KindGroup, ID: in.GroupID}); !ok {
			return SectionView{}, apierr.Invalid("siteSectionGroupId", "is not a section group of this site")
		}
	}
	now := s.clock()
	sec := Section{ID: ids.New(), Organization: g.Organization, Site: g.Site, Icon: icon, Group: in.GroupID,
		Default: len(l.sections) == 0, CreatedAt: now, UpdatedAt: now}
	if sec.Position, err = s.place(ctx, g, l, sec.Group, Node{Kind: KindSection, ID: sec.ID}, Position{}); err != nil {
		return SectionView{}, err
	}
	ssv, err := s.sites.AddSiteSpace(ctx, c, g, sec.ID, strings.TrimSpace(in.SpaceID))
	if err != nil {
		return SectionView{}, err
	}
	ss, _, err := readSiteSpace(ssv)
	if err != nil {
		return SectionView{}, err
	}
	sec.Title = title
	if sec.Title == "" {
		sec.Title = titleFrom(ss.Title)
	}
	v, err := render(sec, site.Variants{Shown: []site.SiteSpaceView{ssv}})
	if err != nil {
		return SectionView{}, err
	}
	if err := s.insert(ctx, g, l, &sec, &v); err != nil {
		if rerr := s.sites.RemoveSiteSpaces(ctx, g, sec.ID); rerr != nil {
			err = errors.Join(err, rerr)
		}
		return SectionView{}, err
	}
	if err := s.keepWithinBound(ctx, g, sec, v); err != nil {
		return SectionView{}, err
	}
	if sec.Default {
		if v.Default, err = s.settleDefault(ctx, g, sec); err != nil {
			return SectionView{}, err
		}
	}
	return v, nil
}

// settleDefault leaves one default when sec, made the default because the
// site had no section, raced other first sections: each saw an empty site,
// so each marked itself. Each racer, once stored, reads the defaults and
// keeps the earliest created (then the smallest id), taking the flag off the
// others: the last one stored sees all of them, and every racer picks the
// same one, so any interleaving ends with exactly one. It tells whether sec
// is the default as it read.
func (s *Service) settleDefault(ctx context.Context, g site.Grant, sec Section) (bool, error) {
	secs, err := s.store.SiteSections(ctx, g.Site)
	if err != nil {
		return false, err
	}
	var first *Section
	for i, o := range secs {
		if o.Default && (first == nil || before(o, *first)) {
			first = &secs[i]
		}
	}
	for _, o := range secs {
		if !o.Default || o.ID == first.ID {
			continue
		}
		if err := s.setDefault(ctx, g, o, false); err != nil && !errors.Is(err, apierr.ErrNotFound) {
			return false, err
		}
	}
	return first != nil && first.ID == sec.ID, nil
}

// before tells whether a was created before b (ids break ties).
func before(a, b Section) bool {
	if !a.CreatedAt.Equal(b.CreatedAt) {
		return a.CreatedAt.Before(b.CreatedAt)
	}
	return a.ID < b.ID
}

// keepWithinBound counts a site's sections again once sec is stored: the
// layout CreateSection checked was read before the insert, and concurrent
// creations may all have passed it. A site over its bound takes sec back
// (its site space, then itself with its deletion event), so the bound holds
// whatever the interleaving: the last of two racing inserts counts both.
func (s *Service) keepWithinBound(ctx context.Context, g site.Grant, sec Section, v SectionView) error {
	secs, err := s.store.SiteSections(ctx, g.Site)
	if err == nil && len(secs) <= limits.SectionsPerSite {
		return nil
	}
	if rerr := errors.Join(s.sites.RemoveSiteSpaces(ctx, g, sec.ID),
		s.store.RemoveSection(ctx, g.Site, sec.ID, event(sitesapi.NewSiteSectionDeleted, g, sec.ID, v))); rerr != nil {
		return fmt.Errorf("take back section %s of site %s: %w", sec.ID, g.Site, rerr)
	}
	if err != nil {
		return err
	}
	return apierr.Invalid("spaceId", "cannot add a section: a site has at most %d sections", limits.SectionsPerSite)
}

// titleFrom is a section title taken from a space's title.
func titleFrom(space string) string {
	t := []rune(strings.TrimSpace(space))
	if len(t) > limits.SectionCreateTitleMax {
		t = []rune(strings.TrimSpace(string(t[:limits.SectionCreateTitleMax])))
	}
	if len(t) < limits.SectionTitleMin {
		return DefaultTitle
	}
	return string(t)
}

// insert stores a new section under a free path: the slug of its title, or
// the slug with a number when another section has it (also when one took it
// meanwhile).
func (s *Service) insert(ctx context.Context, g site.Grant, l layout, sec *Section, v *SectionView) error {
	used := map[string]bool{}
	for _, o := range l.sections {
		used[o.Path] = true
	}
	base := Slug(sec.Title)
	for tries := 0; ; tries++ {
		sec.Path = freePath(base, used)
		v.Path = sec.Path
		err := s.store.InsertSection(ctx, *sec, event(sitesapi.NewSiteSectionCreated, g, sec.ID, v))
		if !errors.Is(err, apierr.ErrConflict) || tries == 5 {
			return err
		}
		used[sec.Path] = true
	}
}

// UpdateSectionInput is a section PATCH: absent fields stay, null removes.
type UpdateSectionInput struct {
	Title            *string
	Path             *string
	DefaultSiteSpace *string
	Condition        nullable.Field[string]
	Icon             nullable.Field[string]
	Description      nullable.Field[string]
	GroupID          nullable.Field[string] // siteSectionGroupId: null takes it out of its group
}

// UpdateSection changes a section. A path another section of the site has
// is a conflict; defaultSiteSpace must be one of the section's site spaces.
func (s *Service) UpdateSection(ctx context.Context, c access.Caller, org, siteID, id string, in UpdateSectionInput) (SectionView, error) {
	if err := in.check(); err != nil {
		return SectionView{}, err
	}
	g, err := s.enter(ctx, c, org, siteID, access.Edit)
	if err != nil {
		return SectionView{}, err
	}
	sec, err := s.section(ctx, g, id)
	if err != nil {
		return SectionView{}, err
	}
	views, err := s.sites.SiteSpaces(ctx, g, []string{sec.ID})
	if err != nil {
		return SectionView{}, err
	}
	if views[sec.ID].Concealed() {
		return SectionView{}, ErrSectionNotFound
	}
	if in.DefaultSiteSpace != nil {
		if views, err = s.setDefaultSiteSpace(ctx, g, sec, views, *in.DefaultSiteSpace); err != nil {
			return SectionView{}, err
		}
	}
	group, position, moved, err := s.regroup(ctx, g, sec, in.GroupID)
	if err != nil {
		return SectionView{}, err
	}
	if !in.changes() && !moved {
		return render(sec, views[sec.ID])
	}
	var v SectionView
	_, err = s.store.UpdateSection(ctx, g.Site, sec.ID, func(cur *Section) (envelope.Event, error) {
		in.apply(cur)
		if moved {
			cur.Group, cur.Position = group, position
		}
		cur.UpdatedAt = s.clock()
		var err error
		if v, err = render(*cur, views[sec.ID]); err != nil {
			return envelope.Event{}, err
		}
		return event(sitesapi.NewSiteSectionUpdated, g, cur.ID, v), nil
	})
	if errors.Is(err, apierr.ErrConflict) && in.Path != nil {
		return SectionView{}, apierr.Conflict("path: %q is the path of another section of this site", *in.Path)
	}
	if err != nil {
		return SectionView{}, err
	}
	return v, nil
}

// check checks the fields of a section PATCH.
func (in UpdateSectionInput) check() error {
	var p apierr.Problems
	if in.Title != nil {
		p.Text("title", strings.TrimSpace(*in.Title), limits.SectionTitleMin, limits.SectionTitleMax)
	}
	if in.Path != nil {
		site.CheckSegment(&p, "path", *in.Path, limits.SectionPath)
	}
	if in.Condition.Set && !in.Condition.Null {
		if err := CheckCondition("condition", in.Condition.Value); err != nil {
			return err
		}
	}
	if in.Icon.Set && !in.Icon.Null {
		p.Text("icon", in.Icon.Value, 0, limits.Icon)
	}
	if in.Description.Set && !in.Description.Null {
		p.Length("description", in.Description.Value, 0, limits.SectionDescription)
	}
	return p.Err()
}

// changes reports whether the PATCH changes the section's own fields
// (its group aside).
func (in UpdateSectionInput) changes() bool {
	return in.Title != nil || in.Path != nil || in.DefaultSiteSpace != nil || in.Condition.Set || in.Icon.Set ||
		in.Description.Set
}

// apply makes the PATCH's own fields of sec (its group aside); null
// removes a field.
func (in UpdateSectionInput) apply(sec *Section) {
	if in.Title != nil {
		sec.Title = strings.TrimSpace(*in.Title)
	}
	if in.Path != nil {
		sec.Path = *in.Path
	}
	if in.DefaultSiteSpace != nil {
		sec.DefaultSiteSpace = *in.DefaultSiteSpace
	}
	for _, f := range []struct {
		in  nullable.Field[string]
		out *string
	}{{in.Condition, &sec.Condition}, {in.Icon, &sec.Icon}, {in.Description, &sec.Description}} {
		if f.in.Set {
			*f.out = ""
			if !f.in.Null {
				*f.out = f.in.Value
			}
		}
	}
}

// setDefaultSiteSpace makes one of the section's site spaces (in views)
// its default and returns the section's site spaces as they now are.
func (s *Service) setDefaultSiteSpace(ctx context.Context, g site.Grant, sec Section, views map[string]site.Variants, id string) (map[string]site.Variants, error) {
	ids, err := siteSpaceIDs(views[sec.ID].Shown)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(ids, id) {
		return nil, apierr.Invalid("defaultSiteSpace", "is not a site space of this section")
	}
	// The site space's own default flag decides where it is published.
	if err := s.sites.MakeDefault(ctx, g, id); err != nil {
		return nil, err
	}
	return s.sites.SiteSpaces(ctx, g, []string{sec.ID})
}

// regroup places the section at the end of the group named by groupID
// (its siteSectionGroupId; null for the top level) and returns its group
// and position, and whether it moves at all.
func (s *Service) regroup(ctx context.Context, g site.Grant, sec Section, groupID nullable.Field[string]) (string, int64, bool, error) {
	to := ""
	if !groupID.Null {
		to = groupID.Value
	}
	if !groupID.Set || to == sec.Group {
		return "", 0, false, nil
	}
	l, err := s.layout(ctx, g)
	if err != nil {
		return "", 0, false, err
	}
	if _, ok := l.parentOf(Ref{Kind: KindGroup, ID: to}); to != "" && !ok {
		return "", 0, false, apierr.Invalid("siteSectionGroupId", "is not a section group of this site")
	}
	pos, err := s.place(ctx, g, l, to, Node{Kind: KindSection, ID: sec.ID, Parent: sec.Group}, Position{})
	return to, pos, err == nil, err
}

// MoveSection places a section before or after another section; it joins
// that section's group, or the top level. Pointing nowhere, it goes to the
// end of where it is.
func (s *Service) MoveSection(ctx context.Context, c access.Caller, org, siteID, id string, pos Position) (SectionView, error) {
	for _, r := range []*Ref{pos.Before, pos.After} {
		if r != nil && r.Kind != KindSection {
			return SectionView{}, apierr.Invalid("position", "must point at a %s", KindSection)
		}
	}
	g, err := s.enter(ctx, c, org, siteID, access.Edit)
	if err != nil {
		return SectionView{}, err
	}
	sec, err := s.section(ctx, g, id)
	if err != nil {
		return SectionView{}, err
	}
	if _, err := s.visible(ctx, g, sec); err != nil {
		return SectionView{}, err
	}
	l, err := s.layout(ctx, g)
	if err != nil {
		return SectionView{}, err
	}
	if p, ok := l.parentOf(Ref{Kind: KindSection, ID: sec.ID}); ok {
		sec.Group = p // a section of a group being deleted is at the top level
	}
	to, err := l.destination(pos, sec.Group)
	if err != nil {
		return SectionView{}, err
	}
	p, err := s.place(ctx, g, l, to, Node{Kind: KindSection, ID: sec.ID, Parent: sec.Group, Position: sec.Position}, pos)
	if err != nil {
		return SectionView{}, err
	}
	return s.moveSection(ctx, g, sec, to, p)
}

// moveSection stores a section's new place with its moved event.
func (s *Service) moveSection(ctx context.Context, g site.Grant, sec Section, group string, position int64) (SectionView, error) {
	var v SectionView
	_, err := s.store.UpdateSection(ctx, g.Site, sec.ID, func(cur *Section) (envelope.Event, error) {
		cur.Group, cur.Position, cur.UpdatedAt = group, position, s.clock()
		var err error
		if v, err = s.view(ctx, g, *cur); err != nil {
			return envelope.Event{}, err
		}
		return event(sitesapi.NewSiteSectionMoved, g, cur.ID, v), nil
	})
	return v, err
}

// DeleteSection removes a section and its site spaces. When it was the
// site's default, the section after it in the site's order (or, when it was
// the last, the one before it) becomes the default.
func (s *Service) DeleteSection(ctx context.Context, c access.Caller, org, siteID, id string) error {
	g, err := s.enter(ctx, c, org, siteID, access.Edit)
	if err != nil {
		return err
	}
	sec, err := s.section(ctx, g, id)
	if err != nil {
		return err
	}
	v, err := s.visible(ctx, g, sec)
	if err != nil {
		return err
	}
	var next *Section
	if sec.Default {
		l, err := s.layout(ctx, g)
		if err != nil {
			return err
		}
		next = l.successor(sec.ID)
	}
	if err := s.sites.RemoveSiteSpaces(ctx, g, sec.ID); err != nil {
		return err
	}
	if err := s.store.RemoveSection(ctx, g.Site, sec.ID, event(sitesapi.NewSiteSectionDeleted, g, sec.ID, v)); err != nil {
		return err
	}
	if next == nil {
		return nil
	}
	return s.setDefault(ctx, g, *next, true)
}

// successor is the section after id in the site's order, else the one
// before it; nil when id is the only one.
func (l layout) successor(id string) *Section {
	order := l.order()
	i := slices.IndexFunc(order, func(sec Section) bool { return sec.ID == id })
	switch {
	case i < 0:
		return nil
	case i+1 < len(order):
		return &order[i+1]
	case i > 0:
		return &order[i-1]
	}
	return nil
}

// order is the site's sections in structure order: the top level's items in
// order, a group's sections in place of the group.
func (l layout) order() []Section {
	byID := map[string]Section{}
	for _, sec := range l.sections {
		byID[sec.ID] = sec
	}
	var out []Section
	for _, n := range l.children("") {
		if n.Kind == KindSection {
			out = append(out, byID[n.ID])
			continue
		}
		for _, c := range l.children(n.ID) {
			out = append(out, byID[c.ID])
		}
	}
	return out
}

// setDefault marks a section as the site's default (or not) with an updated
// event; a section that already is (or is not) is left as it is, so that
// racers settling the default do not conflict over one they agree on.
func (s *Service) setDefault(ctx context.Context, g site.Grant, sec Section, def bool) error {
	_, err := s.store.UpdateSection(ctx, g.Site, sec.ID, func(cur *Section) (envelope.Event, error) {
		if cur.Default == def {
			return envelope.Event{}, nil
		}
		cur.Default, cur.UpdatedAt = def, s.clock()
		v, err := s.view(ctx, g, *cur)
		return event(sitesapi.NewSiteSectionUpdated, g, cur.ID, v), err
	})
	return err
}

// Has reports whether the granted site has the section.
func (s *Service) Has(ctx context.Context, g site.Grant, sectionID string) (bool, error) {
	_, err := s.section(ctx, g, sectionID)
	if errors.Is(err, apierr.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// SetDefault makes a section the site's default section (for the site's
// defaultSiteSection); the previous default stops being it. An unknown
// section is a 400 naming defaultSiteSection.
func (s *Service) SetDefault(ctx context.Context, g site.Grant, sectionID string) error {
	sec, err := s.section(ctx, g, sectionID)
	if errors.Is(err, apierr.ErrNotFound) {
		return apierr.Invalid("defaultSiteSection", "is not a section of this site")
	}
	if err != nil {
		return err
	}
	l, err := s.layout(ctx, g)
	if err != nil {
		return err
	}
	for _, o := range l.sections {
		if o.Default && o.ID != sec.ID {
			if err := s.setDefault(ctx, g, o, false); err != nil {
				return err
			}
		}
	}
	if sec.Default {
		return nil
	}
	return s.setDefault(ctx, g, sec, true)
}
