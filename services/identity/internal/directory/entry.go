package directory

import (
	"context"
	"errors"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/roles"
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

// Organization returns a live organization (an apierr not-found error when
// there is none).
func (s *Service) Organization(ctx context.Context, id string) (Organization, error) {
	return s.store.Organization(ctx, id)
}

// Join makes userID a member of org with role r and publishes
// member.created; a member already keeps their membership unchanged.
func (s *Service) Join(ctx context.Context, org, userID string, r roles.Role) error {
	if _, err := s.store.Member(ctx, org, userID); err == nil {
		return nil
	} else if !errors.Is(err, apierr.ErrNotFound) {
		return err
	}
	u, err := s.store.User(ctx, userID)
	if err != nil {
		return err
	}
	_, err = s.addMember(ctx, org, u, r, false)
	return err
}
