package space

import (
	"context"

	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/content/internal/access"
)

// SpaceAccess is what a caller may do on one space: the space's
// organization, the caller's level on it and whether it is deleted.
type SpaceAccess struct {
	Organization string     `json:"organization"`
	Level        roles.Role `json:"level"`
	Deleted      bool       `json:"deleted"`
}

// Access answers, for each of the ids, what the caller may do on the space,
// or nil when they cannot view it: it does not exist, belongs to an
// organization they are not in, or its default levels (and its
// collections') refuse them. These are the rules every content route
// applies to one space (loadSpace), here for many in one read of the
// spaces and one of the collections of each organization involved.
func (s *Service) Access(ctx context.Context, c access.Caller, ids []string) (map[string]*SpaceAccess, error) {
	out := make(map[string]*SpaceAccess, len(ids))
	for _, id := range ids {
		out[id] = nil
	}
	sps, err := s.store.SpacesByID(ctx, ids)
	if err != nil {
		return nil, err
	}
	trees := map[string]tree{}
	for _, sp := range sps {
		role, ok := c.Role(sp.Organization)
		if !ok {
			continue
		}
		t, ok := trees[sp.Organization]
		if !ok {
			if t, err = s.tree(ctx, sp.Organization); err != nil {
				return nil, err
			}
			trees[sp.Organization] = t
		}
		level := t.spaceLevel(role, sp)
		if !access.Allows(level, access.View) {
			continue
		}
		out[sp.ID] = &SpaceAccess{Organization: sp.Organization, Level: level, Deleted: sp.DeletedAt != nil}
	}
	return out, nil
}
