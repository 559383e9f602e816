package section

import (
	"context"
	"fmt"
	"strings"

	"github.com/docspub/platform/libs/paging"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/ids"
	"github.com/docspub/platform/libs/internalapi/sitesapi"
	"github.com/docspub/platform/libs/nullable"
	"github.com/docspub/platform/libs/order"
	"github.com/docspub/platform/services/sites/internal/access"
	"github.com/docspub/platform/services/sites/internal/limits"
	"github.com/docspub/platform/services/sites/internal/site"
)

// ListGroups returns a page of a site's section groups by position, each
// with its sections.
func (s *Service) ListGroups(ctx context.Context, c access.Caller, org, siteID string, p Page) (List[GroupView], error) {
	g, err := s.enter(ctx, c, org, siteID, access.View)
	if err != nil {
		return List[GroupView]{}, err
	}
	if p.Limit <= 0 {
		p.Limit = DefaultLimit
	}
	page, err := paging.Fetch(p, func(limit int) ([]Group, int, error) {
		return s.store.Groups(ctx, Query{Site: g.Site, AfterPosition: p.AfterPosition, AfterID: p.AfterID, Limit: limit})
	}, groupKey)
	if err != nil {
		return List[GroupView]{}, err
	}
	l, err := s.layout(ctx, g)
	if err != nil {
		return List[GroupView]{}, err
	}
	views, err := s.groupViews(ctx, g, l, page.Items)
	if err != nil {
		return List[GroupView]{}, err
	}
	return paging.With(page, views), nil
}

// CreateGroupInput is the body of a section group creation.
type CreateGroupInput struct {
	Title    *string
	Icon     nullable.Field[string]
	Sections []string // sections to move into the group, in this order
}

// CreateGroup creates a section group at the end of the site's top level and
// moves the given sections into it.
func (s *Service) CreateGroup(ctx context.Context, c access.Caller, org, siteID string, in CreateGroupInput) (GroupView, error) {
	var p apierr.Problems
	title := ""
	if in.Title == nil {
		p.Add("title", "is required")
	} else {
		title = strings.TrimSpace(*in.Title)
		p.Text("title", title, 1, limits.GroupTitleMax)
	}
	icon := ""
	if in.Icon.Set && !in.Icon.Null {
		icon = in.Icon.Value
		p.Text("icon", icon, 0, limits.Icon)
	}
	if err := p.Err(); err != nil {
		return GroupView{}, err
	}
	g, err := s.enter(ctx, c, org, siteID, access.Edit)
	if err != nil {
		return GroupView{}, err
	}
	l, err := s.layout(ctx, g)
	if err != nil {
		return GroupView{}, err
	}
	if len(l.groups) >= limits.GroupsPerSite {
		return GroupView{}, apierr.Invalid("title", "cannot add a section group: a site has at most %d section groups", limits.GroupsPerSite)
	}
	if len(in.Sections) > limits.SectionsPerSite {
		return GroupView{}, apierr.Invalid("sections", "must have at most %d items", limits.SectionsPerSite)
	}
	var members []Section
	seen := map[string]bool{}
	for _, id := range in.Sections {
		if seen[id] {
			continue
		}
		seen[id] = true
		sec, ok := l.find(id)
		if !ok {
			return GroupView{}, apierr.Invalid("sections", "%s is not a section of this site", id)
		}
		members = append(members, sec)
	}
	now := s.clock()
	grp := Group{ID: ids.New(), Organization: g.Organization, Site: g.Site, Title: title, Icon: icon, CreatedAt: now, UpdatedAt: now}
	if grp.Position, err = s.place(ctx, g, l, "", Node{Kind: KindGroup, ID: grp.ID}, Position{}); err != nil {
		return GroupView{}, err
	}
	if err := s.store.InsertGroup(ctx, grp, event(sitesapi.NewSiteSectionGroupCreated, g, grp.ID, renderGroup(grp, nil))); err != nil {
		return GroupView{}, err
	}
	// Counted again once stored (see keepWithinBound): a site over its
	// bound takes the group back before any section moves into it.
	if grps, err := s.store.SiteGroups(ctx, g.Site); err != nil || len(grps) > limits.GroupsPerSite {
		if rerr := s.store.RemoveGroup(ctx, g.Site, grp.ID, event(sitesapi.NewSiteSectionGroupDeleted, g, grp.ID, renderGroup(grp, nil))); rerr != nil {
			return GroupView{}, fmt.Errorf("take back section group %s of site %s: %w", grp.ID, g.Site, rerr)
		}
		if err != nil {
			return GroupView{}, err
		}
		return GroupView{}, apierr.Invalid("title", "cannot add a section group: a site has at most %d section groups", limits.GroupsPerSite)
	}
	for i, sec := range members {
		// Appended in the given order: positions step from the start.
		if _, err := s.moveSection(ctx, g, sec, grp.ID, int64(i+1)*order.Step); err != nil {
			return GroupView{}, err
		}
	}
	return s.groupView(ctx, g, grp)
}

// find returns a section of the site.
func (l layout) find(id string) (Section, bool) {
	for _, sec := range l.sections {
		if sec.ID == id {
			return sec, true
		}
	}
	return Section{}, false
}

// UpdateGroupInput is a section group PATCH.
type UpdateGroupInput struct {
	Title *string
	Icon  nullable.Field[string]
}

// UpdateGroup changes a section group's title and icon.
func (s *Service) UpdateGroup(ctx context.Context, c access.Caller, org, siteID, id string, in UpdateGroupInput) (GroupView, error) {
	var p apierr.Problems
	if in.Title != nil {
		p.Text("title", strings.TrimSpace(*in.Title), 1, limits.GroupTitleMax)
	}
	if in.Icon.Set && !in.Icon.Null {
		p.Text("icon", in.Icon.Value, 0, limits.Icon)
	}
	if err := p.Err(); err != nil {
		return GroupView{}, err
	}
	g, err := s.enter(ctx, c, org, siteID, access.Edit)
	if err != nil {
		return GroupView{}, err
	}
	grp, err := s.group(ctx, g, id)
	if err != nil {
		return GroupView{}, err
	}
	if in.Title == nil && !in.Icon.Set {
		return s.groupView(ctx, g, grp)
	}
	return s.writeGroup(ctx, g, grp.ID, sitesapi.NewSiteSectionGroupUpdated, func(grp *Group) {
		if in.Title != nil {
			grp.Title = strings.TrimSpace(*in.Title)
		}
		if in.Icon.Set {
			grp.Icon = ""
			if !in.Icon.Null {
				grp.Icon = in.Icon.Value
			}
		}
	})
}

// writeGroup stores a change of a group (and its updatedAt) with an event
// newEvent carrying its view.
func (s *Service) writeGroup(ctx context.Context, g site.Grant, id string, newEvent NewEvent, change func(*Group)) (GroupView, error) {
	var v GroupView
	_, err := s.store.UpdateGroup(ctx, g.Site, id, func(grp *Group) (envelope.Event, error) {
		change(grp)
		grp.UpdatedAt = s.clock()
		var err error
		if v, err = s.groupView(ctx, g, *grp); err != nil {
			return envelope.Event{}, err
		}
		return event(newEvent, g, grp.ID, v), nil
	})
	return v, err
}

// MoveGroup places a section group before or after an item of the site's
// top level (an ungrouped section or another group). Pointing nowhere, it
// goes to the end.
func (s *Service) MoveGroup(ctx context.Context, c access.Caller, org, siteID, id string, pos Position) (GroupView, error) {
	g, err := s.enter(ctx, c, org, siteID, access.Edit)
	if err != nil {
		return GroupView{}, err
	}
	grp, err := s.group(ctx, g, id)
	if err != nil {
		return GroupView{}, err
	}
	l, err := s.layout(ctx, g)
	if err != nil {
		return GroupView{}, err
	}
	to, err := l.destination(pos, "")
	if err != nil {
		return GroupView{}, err
	}
	if to != "" {
		return GroupView{}, apierr.Invalid("position", "must point at an item of the site's top level, not at a section of a group")
	}
	p, err := s.place(ctx, g, l, "", Node{Kind: KindGroup, ID: grp.ID, Position: grp.Position}, pos)
	if err != nil {
		return GroupView{}, err
	}
	return s.writeGroup(ctx, g, grp.ID, sitesapi.NewSiteSectionGroupMoved, func(grp *Group) { grp.Position = p })
}

// DeleteGroup removes a section group. Its sections stay, ungrouped, where
// the group was, in their order.
func (s *Service) DeleteGroup(ctx context.Context, c access.Caller, org, siteID, id string) error {
	g, err := s.enter(ctx, c, org, siteID, access.Edit)
	if err != nil {
		return err
	}
	grp, err := s.group(ctx, g, id)
	if err != nil {
		return err
	}
	v, err := s.groupView(ctx, g, grp)
	if err != nil {
		return err
	}
	for _, sv := range v.Sections {
		if err := s.ungroup(ctx, g, grp, sv.ID); err != nil {
			return err
		}
	}
	return s.store.RemoveGroup(ctx, g.Site, grp.ID, event(sitesapi.NewSiteSectionGroupDeleted, g, grp.ID, v))
}

// ungroup takes a section out of grp to the top level, right before the
// group (so that a group's sections, taken out in order, keep it).
func (s *Service) ungroup(ctx context.Context, g site.Grant, grp Group, sectionID string) error {
	l, err := s.layout(ctx, g)
	if err != nil {
		return err
	}
	sec, ok := l.find(sectionID)
	if !ok {
		return ErrSectionNotFound
	}
	p, err := s.place(ctx, g, l, "", Node{Kind: KindSection, ID: sec.ID, Parent: sec.Group}, Position{Before: &Ref{Kind: KindGroup, ID: grp.ID}})
	if err != nil {
		return err
	}
	_, err = s.moveSection(ctx, g, sec, "", p)
	return err
}

// AddToGroup moves a section into a section group, at its end (a section
// already in the group stays where it is).
func (s *Service) AddToGroup(ctx context.Context, c access.Caller, org, siteID, groupID, sectionID string) (GroupView, error) {
	if strings.TrimSpace(sectionID) == "" {
		return GroupView{}, apierr.Invalid("sectionId", "is required")
	}
	g, err := s.enter(ctx, c, org, siteID, access.Edit)
	if err != nil {
		return GroupView{}, err
	}
	grp, err := s.group(ctx, g, groupID)
	if err != nil {
		return GroupView{}, err
	}
	l, err := s.layout(ctx, g)
	if err != nil {
		return GroupView{}, err
	}
	sec, ok := l.find(sectionID)
	if !ok {
		return GroupView{}, apierr.Invalid("sectionId", "%s is not a section of this site", sectionID)
	}
	if sec.Group != grp.ID {
		p, err := s.place(ctx, g, l, grp.ID, Node{Kind: KindSection, ID: sec.ID, Parent: sec.Group}, Position{})
		if err != nil {
			return GroupView{}, err
		}
		if _, err := s.moveSection(ctx, g, sec, grp.ID, p); err != nil {
			return GroupView{}, err
		}
	}
	return s.groupView(ctx, g, grp)
}

// RemoveFromGroup takes a section out of a section group; it stays in the
// site, right before the group. A section not in the group is not found.
func (s *Service) RemoveFromGroup(ctx context.Context, c access.Caller, org, siteID, groupID, sectionID string) error {
	g, err := s.enter(ctx, c, org, siteID, access.Edit)
	if err != nil {
		return err
	}
	grp, err := s.group(ctx, g, groupID)
	if err != nil {
		return err
	}
	sec, err := s.section(ctx, g, sectionID)
	if err != nil {
		return err
	}
	if sec.Group != grp.ID {
		return ErrNotInGroup
	}
	return s.ungroup(ctx, g, grp, sec.ID)
}
