package space

import (
	"context"
	"errors"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/content/internal/access"
)

// ErrSpaceMovedOn is returned when a space's revision changed under a write
// that expected it not to.
var ErrSpaceMovedOn = apierr.Conflict("the space's content changed meanwhile; update and try again")

// Advance points a live space at a new revision, provided it still points at
// from (compare-and-set, so two merges never overwrite each other), and
// publishes space.updated. The grant must allow the action the caller did
// (merge, for example); it was checked when the grant was made.
func (s *Service) Advance(ctx context.Context, g access.Grant, from, to string) error {
	sp, err := s.store.Space(ctx, g.Space)
	if errors.Is(err, apierr.ErrNotFound) {
		return ErrSpaceNotFound
	}
	if err != nil {
		return err
	}
	if sp.DeletedAt != nil {
		return ErrSpaceDeleted
	}
	if sp.Revision != from {
		return ErrSpaceMovedOn
	}
	sp.Revision, sp.UpdatedAt = to, s.clock()
	v, err := s.eventView(ctx, sp)
	if err != nil {
		return err
	}
	ev := event("space.updated", sp.Organization, sp.ID, v)
	err = s.store.SetSpaceIf(ctx, sp.ID, Fields{"revision": from}, Fields{"revision": to, "updatedAt": sp.UpdatedAt}, &ev)
	if errors.Is(err, apierr.ErrNotFound) {
		return ErrSpaceMovedOn
	}
	return err
}

// Readable lists the ids of the live spaces of org the caller can view (for
// search), up to limit.
func (s *Service) Readable(ctx context.Context, c access.Caller, org string, limit int) ([]string, error) {
	role, err := member(c, org)
	if err != nil {
		return nil, err
	}
	t, err := s.tree(ctx, org)
	if err != nil {
		return nil, err
	}
	q := SpaceQuery{Organization: org, Sort: ByID, Limit: limit}
	if role != roles.Admin {
		q.HideNoAccess, q.HiddenCollections = true, t.hidden(role)
	}
	if !roles.Valid(role) {
		return []string{}, nil
	}
	sps, _, err := s.store.Spaces(ctx, q)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(sps))
	for _, sp := range sps {
		if access.Allows(t.spaceLevel(role, sp), access.View) {
			out = append(out, sp.ID)
		}
	}
	return out, nil
}

// Titles returns the titles of the spaces with the ids (for search results);
// unknown ids are left out.
func (s *Service) Titles(ctx context.Context, ids []string) map[string]string {
	out := map[string]string{}
	for _, id := range ids {
		if sp, err := s.store.Space(ctx, id); err == nil {
			out[id] = sp.Title
		}
	}
	return out
}
