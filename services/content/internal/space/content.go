package space

import (
	"context"
	"errors"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/content/internal/access"
)

// ErrSpaceMovedOn is returned when a space's revision changed under a write
// that expected it not to.
var ErrSpaceMovedOn = apierr.Conflict("the space's content changed meanwhile; update and try again")

// ErrMergePending is returned by Advance while another merge into the space
// is unfinished (its change request not yet marked merged).
var ErrMergePending = apierr.Conflict("another merge into this space is being finished; try again")

// Advance points a live space at a new revision for the merge of a change
// request, provided it still points at from and no other merge is
// unfinished on it (compare-and-set on both), and publishes space.updated.
// The space keeps the change request's id as its unfinished merge until
// Settled: so no later merge moves it on before that change request is
// marked merged, and a merge interrupted between the two writes is finished
// by whoever finds the mark. The grant must allow the action the caller did
// (merge); it was checked when the grant was made.
func (s *Service) Advance(ctx context.Context, g access.Grant, from, to, changeRequest string) error {
	return s.moveHead(ctx, g.Space, from, to, changeRequest)
}

// moveHead points a live space at the revision to, provided it still
// points at from and no merge is unfinished on it (compare-and-set on
// both), marked with the unfinished merge of changeRequest ("" none), and
// publishes space.updated.
func (s *Service) moveHead(ctx context.Context, spaceID, from, to, changeRequest string) error {
	sp, err := s.store.Space(ctx, spaceID)
	if errors.Is(err, apierr.ErrNotFound) {
		return ErrSpaceNotFound
	}
	if err != nil {
		return err
	}
	if sp.DeletedAt != nil {
		return ErrSpaceDeleted
	}
	if sp.Merging != "" {
		return ErrMergePending
	}
	if sp.Revision != from {
		return ErrSpaceMovedOn
	}
	head := Head{Revision: to, Merging: changeRequest, UpdatedAt: s.clock()}
	sp.Revision, sp.Merging, sp.UpdatedAt = head.Revision, head.Merging, head.UpdatedAt
	v, err := s.eventView(ctx, sp)
	if err != nil {
		return err
	}
	err = s.store.MoveHead(ctx, sp.ID, from, head, contentapi.NewSpaceUpdated(v.Space))
	if errors.Is(err, apierr.ErrNotFound) {
		return ErrSpaceMovedOn
	}
	return err
}

// Head returns a space's revision and the change request whose merge into
// it is unfinished ("" when none).
func (s *Service) Head(ctx context.Context, spaceID string) (revision, merging string, err error) {
	sp, err := s.store.Space(ctx, spaceID)
	if errors.Is(err, apierr.ErrNotFound) {
		return "", "", ErrSpaceNotFound
	}
	return sp.Revision, sp.Merging, err
}

// Settled clears the unfinished-merge mark of changeRequest on a space of
// org.
func (s *Service) Settled(ctx context.Context, org, spaceID, changeRequest string) error {
	err := s.store.ClearMerging(ctx, org, spaceID, changeRequest)
	if errors.Is(err, apierr.ErrNotFound) {
		return nil // settled already
	}
	return err
}

// Titles returns the titles of the spaces with the ids, by id, in one
// read (for search results); unknown ids are left out.
func (s *Service) Titles(ctx context.Context, ids []string) (map[string]string, error) {
	sps, err := s.store.SpacesByID(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(sps))
	for _, sp := range sps {
		out[sp.ID] = sp.Title
	}
	return out, nil
}

// Readable returns the titles, by id, of the live spaces of org the caller
// can view (for search), up to limit of them: one read of its spaces'
// names, after one of its collections unless the caller is an admin (who
// reads every space, whatever the default levels).
func (s *Service) Readable(ctx context.Context, c access.Caller, org string, limit int) (map[string]string, error) {
	role, err := member(c, org)
	if err != nil {
		return nil, err
	}
	if !roles.Valid(role) {
		return map[string]string{}, nil
	}
	q := SpaceQuery{Organization: org, Limit: limit}
	var t tree
	if role != roles.Admin {
		if t, err = s.listedTree(ctx, org); err != nil {
			return nil, err
		}
		q.HideNoAccess, q.HiddenCollections = true, t.hidden(role)
	}
	sps, err := s.store.SpaceNames(ctx, q)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(sps))
	for _, sp := range sps {
		if access.Allows(t.spaceLevel(role, sp), access.View) {
			out[sp.ID] = sp.Title
		}
	}
	return out, nil
}
