package organization

import (
	"context"
	"errors"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/ids"
	"github.com/docspub/platform/libs/internalapi/identityapi"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/identity/internal/access"
)

// ErrOrganizationNotFound is the answer about an organization that does
// not exist or that the caller is not a member of.
var ErrOrganizationNotFound = apierr.NotFound("organization not found")

// Forbidden is the error of a caller whose role does not allow what.
func Forbidden(what string) error {
	return apierr.Forbidden("your role in this organization does not allow you to %s", what)
}

// Service carries out the operations on organizations and admits callers
// to them.
type Service struct {
	store   Store
	members Members
	urls    URLs
	now     func() time.Time
	callers *Callers // what Enter read, briefly
}

// New returns a service over store that reads memberships through members,
// renders with urls and keeps what Enter reads in callers (see Callers).
func New(store Store, members Members, urls URLs, callers *Callers) *Service {
	return &Service{store: store, members: members, urls: urls, now: Now, callers: callers}
}

// Now is the time identity stores: UTC, in milliseconds.
func Now() time.Time { return time.Now().UTC().Truncate(time.Millisecond) }

// URLs returns the URL bases the service renders with.
func (s *Service) URLs() URLs { return s.urls }

// Caller is the calling user within one organization.
type Caller struct {
	User string
	Org  Organization
	access.Membership
}

// Enter loads the organization and the caller's role in it. A caller who
// is not a member learns nothing: the organization is not found.
func (s *Service) Enter(ctx context.Context, userID, orgID string) (Caller, error) {
	if e, ok := s.callers.get(orgID, userID); ok {
		return caller(userID, e.org, e.role), nil
	}
	gen := s.callers.gen(orgID)
	org, err := s.store.Organization(ctx, orgID)
	if errors.Is(err, apierr.ErrNotFound) {
		return Caller{}, ErrOrganizationNotFound
	}
	if err != nil {
		return Caller{}, err
	}
	role, err := s.members.Role(ctx, orgID, userID)
	if errors.Is(err, apierr.ErrNotFound) {
		return Caller{}, ErrOrganizationNotFound
	}
	if err != nil {
		return Caller{}, err
	}
	s.callers.add(orgID, userID, gen, org, role)
	return caller(userID, org, role), nil
}

func caller(user string, org Organization, role roles.Role) Caller {
	return Caller{User: user, Org: org, Membership: access.Membership{Member: true, Role: role}}
}

// EnterFor is Enter followed by a permission check: a member whose role
// does not allow a is refused naming what.
func (s *Service) EnterFor(ctx context.Context, userID, orgID string, a access.Action, what string) (Caller, error) {
	c, err := s.Enter(ctx, userID, orgID)
	if err != nil {
		return c, err
	}
	if !c.Can(a) {
		return c, Forbidden(what)
	}
	return c, nil
}

// Organization returns a live organization (an apierr not-found error when
// there is none).
func (s *Service) Organization(ctx context.Context, id string) (Organization, error) {
	return s.store.Organization(ctx, id)
}

// Create creates an organization titled title with the defaults and
// publishes organization.created; the title is checked by the caller
// (CheckTitle).
func (s *Service) Create(ctx context.Context, title string) (Organization, error) {
	o := Organization{ID: ids.New(), Title: title, CreatedAt: s.now(), EmailDomains: []string{},
		Type: DefaultOrganizationType, Plan: DefaultPlan, DefaultRole: roles.Read, InviteLinks: true}
	ev := identityapi.NewOrganizationCreated(o.ID, s.urls.OrganizationView(o, nil))
	if err := s.store.Insert(ctx, o, ev); err != nil {
		return Organization{}, err
	}
	return o, nil
}
