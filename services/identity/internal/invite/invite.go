// Package invite is identity's invite links: whoever holds a link's id may
// join its organization with its role while the organization allows invite
// links. Admins create, read, change and delete links. It builds on
// organizations (the organization entered) and members (joining) and knows neither
// gin nor the MongoDB driver: it talks to storage through Store.
package invite

import (
	"context"
	"errors"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/ids"
	"github.com/docspub/platform/libs/internalapi/identityapi"
	"github.com/docspub/platform/libs/nullable"
	"github.com/docspub/platform/libs/paging"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/identity/internal/access"
	"github.com/docspub/platform/services/identity/internal/organization"
)

// Errors of invite links.
var (
	ErrNotFound      = apierr.NotFound("invite not found")
	ErrLinksDisabled = apierr.Forbidden("invite links are disabled in this organization")
)

// Invite is an invite link to an organization.
type Invite struct {
	ID           string     `bson:"_id"`
	Organization string     `bson:"organization"`
	Role         roles.Role `bson:"role"` // "" = guest
	CreatedAt    time.Time  `bson:"createdAt"`
	CreatedBy    string     `bson:"createdBy"`
}

// View is InviteLinkToOrganization as the API returns it.
type View = identityapi.Invite

func render(u organization.URLs, i Invite) View {
	return View{Object: "invite", ID: i.ID, Role: organization.RoleJSON(i.Role), CreatedAt: i.CreatedAt,
		URLs: organization.LocationURLs{Location: u.Location("/orgs/" + i.Organization + "/link-invites/" + i.ID)}}
}

// Input is the body of POST ORG/link-invites and PATCH ORG/link-invites/{id}:
// {role} (the organization form) or {level}, both Role or null.
type Input struct {
	Role  nullable.Field[string] `json:"role"`
	Level nullable.Field[string] `json:"level"`
}

func (in Input) role() (roles.Role, error) {
	switch {
	case in.Role.Set:
		return organization.ParseRoleOrGuest("role", in.Role)
	case in.Level.Set:
		return organization.ParseRoleOrGuest("level", in.Level)
	}
	return roles.Guest, apierr.Invalid("role", "is required")
}

// Store keeps invite links. Every write records its event with the change
// (the outbox); Remove tombstones the link; a read of a missing link is an
// apierr not-found error.
type Store interface {
	Insert(ctx context.Context, i Invite, ev envelope.Event) error
	SetRole(ctx context.Context, id string, r roles.Role, ev envelope.Event) error
	Remove(ctx context.Context, id string, ev envelope.Event) error
	Invite(ctx context.Context, org, id string) (Invite, error)
	// Invites returns a page of org's links by id and their count.
	Invites(ctx context.Context, org, after string, limit int) ([]Invite, int, error)
}

// Organizations is what invite links need of organizations (package
// organization): the caller admitted, the organization joined.
type Organizations interface {
	EnterFor(ctx context.Context, userID, orgID string, a access.Action, what string) (organization.Caller, error)
	Organization(ctx context.Context, id string) (organization.Organization, error)
}

// Members makes a user a member (package member).
type Members interface {
	Join(ctx context.Context, org, userID string, r roles.Role) error
}

// Service carries out the operations on invite links.
type Service struct {
	store   Store
	orgs    Organizations
	members Members
	urls    organization.URLs
	now     func() time.Time
}

// New returns a service over store that enters organizations through orgs,
// makes members through members and renders with urls.
func New(store Store, orgs Organizations, members Members, urls organization.URLs) *Service {
	return &Service{store: store, orgs: orgs, members: members, urls: urls, now: organization.Now}
}

const manage = "manage invites"

func (s *Service) event(newEvent func(string, View) envelope.Event, i Invite, v View) envelope.Event {
	return newEvent(i.Organization, v)
}

// List lists an organization's invite links, by id; admins only.
func (s *Service) List(ctx context.Context, userID, orgID string, p paging.Request) (paging.List[View], error) {
	e, err := s.orgs.EnterFor(ctx, userID, orgID, access.ManageInvites, manage)
	if err != nil {
		return paging.List[View]{}, err
	}
	l, err := paging.Fetch(p, func(limit int) ([]Invite, int, error) {
		return s.store.Invites(ctx, e.Org.ID, p.AfterID, limit)
	}, func(i Invite) string { return paging.IDCursor(i.ID) })
	if err != nil {
		return paging.List[View]{}, err
	}
	out := paging.With(l, make([]View, len(l.Items)))
	for i, inv := range l.Items {
		out.Items[i] = render(s.urls, inv)
	}
	return out, nil
}

// Create creates an invite link; admins only.
func (s *Service) Create(ctx context.Context, userID, orgID string, in Input) (View, error) {
	e, err := s.orgs.EnterFor(ctx, userID, orgID, access.ManageInvites, manage)
	if err != nil {
		return View{}, err
	}
	r, err := in.role()
	if err != nil {
		return View{}, err
	}
	inv := Invite{ID: ids.New(), Organization: e.Org.ID, Role: r, CreatedAt: s.now(), CreatedBy: userID}
	v := render(s.urls, inv)
	if err := s.store.Insert(ctx, inv, s.event(identityapi.NewInviteCreated, inv, v)); err != nil {
		return View{}, err
	}
	return v, nil
}

func (s *Service) invite(ctx context.Context, org, id string) (Invite, error) {
	inv, err := s.store.Invite(ctx, org, id)
	if errors.Is(err, apierr.ErrNotFound) {
		return Invite{}, ErrNotFound
	}
	return inv, err
}

// managed enters orgID for a manager of invites and loads its link id.
func (s *Service) managed(ctx context.Context, userID, orgID, id string) (Invite, error) {
	e, err := s.orgs.EnterFor(ctx, userID, orgID, access.ManageInvites, manage)
	if err != nil {
		return Invite{}, err
	}
	return s.invite(ctx, e.Org.ID, id)
}

// Get returns an invite link; admins only.
func (s *Service) Get(ctx context.Context, userID, orgID, id string) (View, error) {
	inv, err := s.managed(ctx, userID, orgID, id)
	if err != nil {
		return View{}, err
	}
	return render(s.urls, inv), nil
}

// Update changes an invite link's role; admins only.
func (s *Service) Update(ctx context.Context, userID, orgID, id string, in Input) (View, error) {
	inv, err := s.managed(ctx, userID, orgID, id)
	if err != nil {
		return View{}, err
	}
	r, err := in.role()
	if err != nil {
		return View{}, err
	}
	inv.Role = r
	v := render(s.urls, inv)
	if err := s.store.SetRole(ctx, inv.ID, r, s.event(identityapi.NewInviteUpdated, inv, v)); err != nil {
		return View{}, err
	}
	return v, nil
}

// Delete deletes an invite link; admins only.
func (s *Service) Delete(ctx context.Context, userID, orgID, id string) error {
	inv, err := s.managed(ctx, userID, orgID, id)
	if err != nil {
		return err
	}
	return s.store.Remove(ctx, inv.ID, s.event(identityapi.NewInviteDeleted, inv, render(s.urls, inv)))
}

// Join makes the caller a member with the invite's role. Anyone holding the
// invite id may join while the organization allows invite links; a member
// who joins again keeps their membership unchanged.
func (s *Service) Join(ctx context.Context, userID, orgID, id string) error {
	org, err := s.orgs.Organization(ctx, orgID)
	if errors.Is(err, apierr.ErrNotFound) {
		return ErrNotFound
	}
	if err != nil {
		return err
	}
	inv, err := s.invite(ctx, org.ID, id)
	if err != nil {
		return err
	}
	if !org.InviteLinks {
		return ErrLinksDisabled
	}
	return s.members.Join(ctx, org.ID, userID, inv.Role)
}
