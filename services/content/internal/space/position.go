package space

import (
	"context"
	"slices"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/order"
)

// Kinds of tree nodes, as position pointers name them.
const (
	KindSpace      = "space"
	KindCollection = "collection"
)

// Ref points at a sibling: {type: "space", space: id} or {type: "collection", collection: id}.
type Ref struct {
	Kind string
	ID   string
}

// Position asks for a place among the siblings under the new parent: right
// before one, right after one, or between two adjacent ones.
type Position struct {
	Before, After *Ref
}

// place returns the position of self among the siblings under parent in org
// as pos asks. Every sibling of the parent is loaded (a parent holds few),
// and when two neighbours leave no room between them the parent's siblings
// are renumbered first.
func (s *Service) place(ctx context.Context, org, parent string, self Node, pos Position) (int64, error) {
	sibs, err := s.store.Siblings(ctx, org, parent)
	if err != nil {
		return 0, err
	}
	sibs = slices.DeleteFunc(sibs, func(n Node) bool { return n.Kind == self.Kind && n.ID == self.ID })
	find := func(field string, r *Ref) (int, error) {
		if r.Kind == self.Kind && r.ID == self.ID {
			return 0, apierr.Invalid(field, "cannot point at the item being moved")
		}
		for i, n := range sibs {
			if n.Kind == r.Kind && n.ID == r.ID {
				return i, nil
			}
		}
		return 0, apierr.Invalid(field, "%s %s is not in the destination", r.Kind, r.ID)
	}
	at := len(sibs) // index self takes in sibs
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
			return 0, apierr.Invalid("position", "before and after must be adjacent siblings")
		}
		at = i + 1
	}
	positions := make([]int64, len(sibs))
	for i, n := range sibs {
		positions[i] = n.Position
	}
	return order.Place(positions, at, func(i int, p int64) error { return s.store.SetPosition(ctx, org, sibs[i], p) })
}
