package directory

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/services/identity/internal/access"
	"github.com/docspub/platform/services/identity/internal/token"
)

// Errors the domain returns besides field problems.
var (
	ErrOrganizationNotFound = apierr.NotFound("organization not found")
	ErrMemberNotFound       = apierr.NotFound("member not found")
	ErrTeamNotFound         = apierr.NotFound("team not found")
	ErrUserNotFound         = apierr.NotFound("user not found")
	ErrLastAdmin            = apierr.Conflict("the organization's last admin cannot be removed or demoted; make another member admin first")
)

func forbidden(what string) error {
	return apierr.Forbidden("your role in this organization does not allow you to %s", what)
}

// Service carries out identity's operations for a calling user.
type Service struct {
	store     Store
	tokens    Tokens
	urls      URLs
	claimsKey []byte
	now       func() time.Time
	admins    orgLocks // serialises the last-admin check with the change it guards
	callers   *callers // what enter read, briefly
}

// orgLocks are mutexes by organization id.
type orgLocks struct{ m sync.Map }

// lock locks org's mutex and returns its unlock.
func (l *orgLocks) lock(org string) func() {
	mu, _ := l.m.LoadOrStore(org, &sync.Mutex{})
	mu.(*sync.Mutex).Lock()
	return mu.(*sync.Mutex).Unlock
}

// Tokens makes API tokens (package token), for Bootstrap.
type Tokens interface {
	Create(ctx context.Context, userID string) (token.Token, string, error)
}

// New returns a service over store; Bootstrap makes its tokens with tokens.
// claimsSecret signs the visitor claims returned by ping (see ClaimsKey).
func New(store Store, tokens Tokens, urls URLs, claimsSecret string) *Service {
	return &Service{store: store, tokens: tokens, urls: urls, claimsKey: ClaimsKey(claimsSecret), now: now, callers: newCallers(time.Now)}
}

// Roles reads users' roles from a directory store: package token's Roles,
// for the resolution of a token.
type Roles struct{ Store Store }

// Roles returns a user's role in each organization they are a member of
// ("" for guests).
func (r Roles) Roles(ctx context.Context, userID string) (map[string]string, error) {
	ms, err := r.Store.Memberships(ctx, userID)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(ms))
	for _, m := range ms {
		out[m.Organization] = string(m.Role)
	}
	return out, nil
}

// URLs returns the URL bases the service renders with.
func (s *Service) URLs() URLs { return s.urls }

func now() time.Time { return time.Now().UTC().Truncate(time.Millisecond) }

// caller is the calling user within one organization.
type caller struct {
	user string
	org  Organization
	me   Member
	access.Membership
}

// enter loads the organization and the caller's membership of it. A caller
// who is not a member learns nothing: the organization is not found.
func (s *Service) enter(ctx context.Context, userID, orgID string) (caller, error) {
	if e, ok := s.callers.get(orgID, userID); ok {
		return caller{user: userID, org: e.org, me: e.me, Membership: access.Membership{Member: true, Role: e.me.Role}}, nil
	}
	gen := s.callers.gen.Load()
	org, err := s.store.Organization(ctx, orgID)
	if errors.Is(err, apierr.ErrNotFound) {
		return caller{}, ErrOrganizationNotFound
	}
	if err != nil {
		return caller{}, err
	}
	me, err := s.store.Member(ctx, orgID, userID)
	if errors.Is(err, apierr.ErrNotFound) {
		return caller{}, ErrOrganizationNotFound
	}
	if err != nil {
		return caller{}, err
	}
	s.callers.add(orgID, userID, gen, org, me)
	return caller{user: userID, org: org, me: me, Membership: access.Membership{Member: true, Role: me.Role}}, nil
}

// enterFor is enter followed by a permission check.
func (s *Service) enterFor(ctx context.Context, userID, orgID string, a access.Action, what string) (caller, error) {
	c, err := s.enter(ctx, userID, orgID)
	if err != nil {
		return c, err
	}
	if !c.Can(a) {
		return c, forbidden(what)
	}
	return c, nil
}

func (s *Service) event(typ, org, subject string, data any) envelope.Event {
	return envelope.New(typ, org, subject, data)
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
	return s.urls.UserView(u), nil
}
