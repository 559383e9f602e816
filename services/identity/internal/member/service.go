package member

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/services/identity/internal/organization"
	"github.com/docspub/platform/services/identity/internal/token"
)

// Errors the domain returns besides field problems.
var (
	ErrMemberNotFound = apierr.NotFound("member not found")
	ErrUserNotFound   = apierr.NotFound("user not found")
	ErrLastAdmin      = apierr.Conflict("the organization's last admin cannot be removed or demoted; make another member admin first")
)

// Teams is what members need of teams (package team): how many teams of
// org each user is in, and taking a user out of every team of org.
type Teams interface {
	TeamCounts
	Leave(ctx context.Context, org, user string) error
}

// Tokens makes API tokens (package token), for Bootstrap.
type Tokens interface {
	Create(ctx context.Context, userID string) (token.Token, string, error)
}

// Service carries out the operations on users and members.
type Service struct {
	store     Store
	orgs      *organization.Service
	teams     Teams
	tokens    Tokens
	urls      organization.URLs
	claimsKey []byte
	now       func() time.Time
	admins    orgLocks // serialises the last-admin check with the change it guards
}

// New returns a service over store that enters organizations through
// orgs, counts teams through teams and makes Bootstrap's tokens with
// tokens. claimsSecret signs the visitor claims returned by ping (see
// ClaimsKey).
func New(store Store, orgs *organization.Service, teams Teams, tokens Tokens, claimsSecret string) *Service {
	s := &Service{store: store, orgs: orgs, teams: teams, tokens: tokens, claimsKey: ClaimsKey(claimsSecret), now: organization.Now}
	if orgs != nil {
		s.urls = orgs.URLs()
	}
	return s
}

// orgLocks are mutexes by organization id.
type orgLocks struct{ m sync.Map }

// lock locks org's mutex and returns its unlock.
func (l *orgLocks) lock(org string) func() {
	mu, _ := l.m.LoadOrStore(org, &sync.Mutex{})
	mu.(*sync.Mutex).Lock()
	return mu.(*sync.Mutex).Unlock
}

// CurrentUser returns the calling user.
func (s *Service) CurrentUser(ctx context.Context, userID string) (UserView, error) {
	u, err := s.store.User(ctx, userID)
	if errors.Is(err, apierr.ErrNotFound) {
		return UserView{}, ErrUserNotFound
	}
	if err != nil {
		return UserView{}, err
	}
	return NewUserView(s.urls, u), nil
}
