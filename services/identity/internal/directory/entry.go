package directory

import (
	"context"
	"errors"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/services/identity/internal/access"
)

// Entry is a user admitted to an organization: what the contexts built on
// the directory (saml) start an operation from.
type Entry struct{ c caller }

// Organization is the id of the organization entered.
func (e Entry) Organization() string { return e.c.org.ID }

// EnterFor admits userID to orgID when their role there allows a: a
// non-member learns nothing (ErrOrganizationNotFound), a member whose role
// does not allow it is refused naming what.
func (s *Service) EnterFor(ctx context.Context, userID, orgID string, a access.Action, what string) (Entry, error) {
	c, err := s.enterFor(ctx, userID, orgID, a, what)
	return Entry{c: c}, err
}

// HasTeam reports whether org has the team id.
func (s *Service) HasTeam(ctx context.Context, org, id string) (bool, error) {
	_, err := s.store.Team(ctx, org, id)
	if errors.Is(err, apierr.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// TeamOf renders org's team id as e sees it, or, when e is nil, as events
// carry it; nil when there is no such team.
func (s *Service) TeamOf(ctx context.Context, e *Entry, org, id string) (*TeamView, error) {
	t, err := s.store.Team(ctx, org, id)
	if errors.Is(err, apierr.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var v TeamView
	if e != nil {
		v, err = s.teamView(ctx, e.c, t)
	} else {
		v, err = s.teamEventData(ctx, t)
	}
	if err != nil {
		return nil, err
	}
	return &v, nil
}
