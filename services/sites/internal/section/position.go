package section

import (
	"context"
	"slices"
	"sort"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/order"
	"github.com/docspub/platform/services/sites/internal/site"
)

// layout is a site's order: every section and group (a site holds few).
type layout struct {
	sections []Section
	groups   []Group
}

func (s *Service) layout(ctx context.Context, g site.Grant) (layout, error) {
	secs, err := s.store.SiteSections(ctx, g.Site)
	if err != nil {
		return layout{}, err
	}
	grps, err := s.store.SiteGroups(ctx, g.Site)
	if err != nil {
		return layout{}, err
	}
	return newLayout(secs, grps), nil
}

// newLayout is the layout of a site's sections and groups: a section of a
// group that is not among grps (being deleted) is at the top level already.
func newLayout(secs []Section, grps []Group) layout {
	known := map[string]bool{}
	for _, grp := range grps {
		known[grp.ID] = true
	}
	for i := range secs {
		if !known[secs[i].Group] {
			secs[i].Group = ""
		}
	}
	return layout{sections: secs, groups: grps}
}

// children are the items under parent ("" the top level: ungrouped sections
// and groups; a group id: its sections) by position then id.
func (l layout) children(parent string) []Node {
	var out []Node
	for _, sec := range l.sections {
		if sec.Group == parent {
			out = append(out, Node{Kind: KindSection, ID: sec.ID, Parent: parent, Position: sec.Position})
		}
	}
	if parent == "" {
		for _, g := range l.groups {
			out = append(out, Node{Kind: KindGroup, ID: g.ID, Position: g.Position})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Position != out[j].Position {
			return out[i].Position < out[j].Position
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// parentOf is where the item r sits: "" or its group's id; ok is false when
// the site has no such item.
func (l layout) parentOf(r Ref) (string, bool) {
	switch r.Kind {
	case KindSection:
		for _, sec := range l.sections {
			if sec.ID == r.ID {
				return sec.Group, true
			}
		}
	case KindGroup:
		for _, g := range l.groups {
			if g.ID == r.ID {
				return "", true
			}
		}
	}
	return "", false
}

// place returns a position for self under parent as pos asks. When two
// neighbours leave no room between them, the siblings are renumbered first.
func (s *Service) place(ctx context.Context, g site.Grant, l layout, parent string, self Node, pos Position) (int64, error) {
	sibs := slices.DeleteFunc(l.children(parent), func(n Node) bool { return n.Kind == self.Kind && n.ID == self.ID })
	find := func(field string, r *Ref) (int, error) {
		if r.Kind == self.Kind && r.ID == self.ID {
			return 0, apierr.Invalid(field, "cannot point at the item being moved")
		}
		for i, n := range sibs {
			if n.Kind == r.Kind && n.ID == r.ID {
				return i, nil
			}
		}
		return 0, apierr.Invalid(field, "%s %s is not beside the item's destination", r.Kind, r.ID)
	}
	at := len(sibs)
	if pos.Before != nil {
		i, err := find("position.before", pos.Before)
		if err != nil {
			return 0, err
		}
		at = i
	}
	if pos.After != nil {
		i, err := find("position.after", pos.After)
		if err != nil {
			return 0, err
		}
		if pos.Before != nil && i+1 != at {
			return 0, apierr.Invalid("position", "before and after must be adjacent")
		}
		at = i + 1
	}
	positions := make([]int64, len(sibs))
	for i, n := range sibs {
		positions[i] = n.Position
	}
	return order.Place(positions, at, func(i int, p int64) error { return s.store.SetPosition(ctx, g.Site, sibs[i], p) })
}

// destination is where a move with pos goes: beside the item it points at
// (its parent), or, pointing nowhere, the end of current.
func (l layout) destination(pos Position, current string) (string, error) {
	for _, r := range []struct {
		field string
		ref   *Ref
	}{{"position.before", pos.Before}, {"position.after", pos.After}} {
		if r.ref == nil {
			continue
		}
		parent, ok := l.parentOf(*r.ref)
		if !ok {
			return "", apierr.Invalid(r.field, "%s %s is not in this site", r.ref.Kind, r.ref.ID)
		}
		return parent, nil
	}
	return current, nil
}

// Ordered returns the items of a site's layout under parent ("" the top
// level: ungrouped sections and groups; a group id: its sections) by
// position then id, as the published view orders them. secs and grps are
// all of a site's sections and groups (secs is not changed).
func Ordered(secs []Section, grps []Group, parent string) []Node {
	return newLayout(slices.Clone(secs), grps).children(parent)
}
