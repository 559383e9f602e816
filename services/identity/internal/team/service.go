package team

import (
	"context"
	"errors"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/services/identity/internal/member"
	"github.com/docspub/platform/services/identity/internal/organization"
)

// ErrTeamNotFound is the answer about a team the organization does not have.
var ErrTeamNotFound = apierr.NotFound("team not found")

// Service carries out the operations on teams.
type Service struct {
	store   Store
	members Members
	orgs    *organization.Service
	urls    organization.URLs
	now     func() time.Time
}

// New returns a service over store that reads members through members and
// enters organizations through orgs.
func New(store Store, members Members, orgs *organization.Service) *Service {
	return &Service{store: store, members: members, orgs: orgs, urls: orgs.URLs(), now: organization.Now}
}

// member loads a member of org.
func (s *Service) member(ctx context.Context, org, user string) (member.Member, error) {
	m, err := s.members.Member(ctx, org, user)
	if errors.Is(err, apierr.ErrNotFound) {
		return member.Member{}, member.ErrMemberNotFound
	}
	return m, err
}

// memberViews renders members of org with their users and team counts.
func (s *Service) memberViews(ctx context.Context, org string, ms []member.Member) ([]member.View, error) {
	return member.Views(ctx, s.urls, s.members, s.store, org, ms)
}

// Counts counts the teams of org each of users is in (member.Teams).
func (s *Service) Counts(ctx context.Context, org string, users []string) (map[string]int, error) {
	return s.store.Counts(ctx, org, users)
}

// Leave takes user out of every team of org, publishing
// team_member.deleted for each (member.Teams, when a member is removed).
func (s *Service) Leave(ctx context.Context, org, user string) error {
	tms, _, err := s.store.Memberships(ctx, MembershipQuery{Organization: org, User: user})
	if err != nil {
		return err
	}
	for _, tm := range tms {
		if err := s.removeMembership(ctx, tm); err != nil {
			return err
		}
	}
	return nil
}
