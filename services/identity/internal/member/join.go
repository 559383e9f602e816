package member

import (
	"context"
	"errors"
	"strings"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/roles"
)

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

// Lookup answers what other contexts ask of users and memberships: a
// user's roles (package token's Roles, organization's Members) and e-mail.
type Lookup struct{ Store Store }

// Roles returns a user's role in each organization they are a member of
// ("" for guests).
func (l Lookup) Roles(ctx context.Context, userID string) (map[string]string, error) {
	ms, err := l.Store.Memberships(ctx, userID)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(ms))
	for _, m := range ms {
		out[m.Organization] = string(m.Role)
	}
	return out, nil
}

// Role returns a user's role in org; an apierr not-found error when they
// are not a member.
func (l Lookup) Role(ctx context.Context, org, userID string) (roles.Role, error) {
	m, err := l.Store.Member(ctx, org, userID)
	return m.Role, err
}

// Email returns a user's e-mail, lower-cased.
func (l Lookup) Email(ctx context.Context, userID string) (string, error) {
	u, err := l.Store.User(ctx, userID)
	return strings.ToLower(u.Email), err
}
