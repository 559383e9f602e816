package saml

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
	"github.com/docspub/platform/services/identity/internal/team"
)

// Store keeps providers. Every write records its event with the change (the
// outbox); Remove tombstones the provider; a read of a missing provider is an
// apierr not-found error.
type Store interface {
	Insert(ctx context.Context, p Provider, ev envelope.Event) error
	// Update writes the provider's settings (all but its id, organization
	// and creation time).
	Update(ctx context.Context, p Provider, ev envelope.Event) error
	Remove(ctx context.Context, id string, ev envelope.Event) error
	Provider(ctx context.Context, org, id string) (Provider, error)
	// Providers returns a page of org's providers by id (all when limit is
	// 0) and their count.
	Providers(ctx context.Context, org, after string, limit int) ([]Provider, int, error)
}

// Organizations admit callers to organizations (package organization).
type Organizations interface {
	EnterFor(ctx context.Context, userID, orgID string, a access.Action, what string) (organization.Caller, error)
}

// Teams is what providers need of an organization's teams (package team):
// a provider's default team.
type Teams interface {
	HasTeam(ctx context.Context, org, id string) (bool, error)
	TeamOf(ctx context.Context, c *organization.Caller, org, id string) (*team.View, error)
}

// Service carries out the operations on SAML providers.
type Service struct {
	store Store
	orgs  Organizations
	teams Teams
	urls  organization.URLs
	now   func() time.Time
}

// New returns a service over store that enters organizations through orgs,
// reads their teams through teams and renders with urls.
func New(store Store, orgs Organizations, teams Teams, urls organization.URLs) *Service {
	return &Service{store: store, orgs: orgs, teams: teams, urls: urls, now: organization.Now}
}

const manage = "manage SAML providers"

// apply validates in, applies it to p and reports whether it changed anything.
func (s *Service) apply(ctx context.Context, in Input, p *Provider, create bool) (bool, error) {
	var pr apierr.Problems
	changed := false
	str := func(name string, f nullable.Field[string], max int, dst *string) {
		if !f.Set {
			return
		}
		if f.Null {
			*dst = ""
		} else {
			pr.Text(name, f.Value, 0, max)
			*dst = f.Value
		}
		changed = true
	}
	switch {
	case in.Label.Set && in.Label.Null:
		pr.Add("label", "must not be null")
	case in.Label.Set:
		pr.Text("label", in.Label.Value, 1, MaxLabel)
		p.Label, changed = in.Label.Value, true
	case create:
		pr.Add("label", "is required")
	}
	str("entityID", in.EntityID, MaxEntityID, &p.EntityID)
	if in.Certificate.Set {
		p.Certificate = ""
		if !in.Certificate.Null && in.Certificate.Value != "" {
			checkCertificate(&pr, "certificate", in.Certificate.Value)
			p.Certificate = in.Certificate.Value
		}
		changed = true
	}
	if in.SSOURL.Set && !in.SSOURL.Null && in.SSOURL.Value != "" {
		organization.CheckURL(&pr, "ssoURL", in.SSOURL.Value)
	}
	str("ssoURL", in.SSOURL, organization.MaxURL, &p.SSOURL)
	if in.DefaultRole.Set {
		r, err := organization.ParseRoleOrGuest("defaultRole", in.DefaultRole)
		if err != nil {
			pr.Add("defaultRole", "must be one of %v or null", roles.Names)
		}
		p.DefaultRole, changed = r, true
	}
	if in.DefaultTeam.Set {
		p.DefaultTeam = ""
		if !in.DefaultTeam.Null && in.DefaultTeam.Value != "" {
			ok, err := s.teams.HasTeam(ctx, p.Organization, in.DefaultTeam.Value)
			if err != nil {
				return false, err
			}
			if !ok {
				pr.Add("defaultTeam", "%q is not a team of the organization", in.DefaultTeam.Value)
			}
			p.DefaultTeam = in.DefaultTeam.Value
		}
		changed = true
	}
	return changed, pr.Err()
}

// view renders a provider with its default team, as e sees it, or as events
// carry it when e is nil.
func (s *Service) view(ctx context.Context, e *organization.Caller, p Provider) (ProviderView, error) {
	var team *team.View
	if p.DefaultTeam != "" {
		t, err := s.teams.TeamOf(ctx, e, p.Organization, p.DefaultTeam)
		if err != nil {
			return ProviderView{}, err
		}
		team = t
	}
	return render(s.urls, p, team), nil
}

func (s *Service) event(ctx context.Context, newEvent func(org, id string, data any) envelope.Event, p Provider) (envelope.Event, error) {
	v, err := s.view(ctx, nil, p)
	if err != nil {
		return envelope.Event{}, err
	}
	return newEvent(p.Organization, p.ID, v), nil
}

// List lists an organization's SAML providers, by id; admins only.
func (s *Service) List(ctx context.Context, userID, orgID string, pg paging.Request) (paging.List[ProviderView], error) {
	e, err := s.orgs.EnterFor(ctx, userID, orgID, access.ManageSAML, manage)
	if err != nil {
		return paging.List[ProviderView]{}, err
	}
	l, err := paging.Fetch(pg, func(limit int) ([]Provider, int, error) {
		return s.store.Providers(ctx, e.Org.ID, pg.AfterID, limit)
	}, func(p Provider) string { return paging.IDCursor(p.ID) })
	if err != nil {
		return paging.List[ProviderView]{}, err
	}
	out := paging.With(l, make([]ProviderView, len(l.Items)))
	for i, p := range l.Items {
		if out.Items[i], err = s.view(ctx, &e, p); err != nil {
			return paging.List[ProviderView]{}, err
		}
	}
	return out, nil
}

// Create creates a SAML provider; admins only.
func (s *Service) Create(ctx context.Context, userID, orgID string, in Input) (ProviderView, error) {
	e, err := s.orgs.EnterFor(ctx, userID, orgID, access.ManageSAML, manage)
	if err != nil {
		return ProviderView{}, err
	}
	p := Provider{ID: ids.New(), Organization: e.Org.ID, DefaultRole: roles.Read, CreatedAt: s.now()}
	if _, err := s.apply(ctx, in, &p, true); err != nil {
		return ProviderView{}, err
	}
	ev, err := s.event(ctx, identityapi.NewSAMLProviderCreated, p)
	if err != nil {
		return ProviderView{}, err
	}
	if err := s.store.Insert(ctx, p, ev); err != nil {
		return ProviderView{}, err
	}
	return s.view(ctx, &e, p)
}

// provider enters orgID for a manager and loads its provider id.
func (s *Service) provider(ctx context.Context, userID, orgID, id string) (organization.Caller, Provider, error) {
	e, err := s.orgs.EnterFor(ctx, userID, orgID, access.ManageSAML, manage)
	if err != nil {
		return e, Provider{}, err
	}
	p, err := s.store.Provider(ctx, e.Org.ID, id)
	if errors.Is(err, apierr.ErrNotFound) {
		return e, Provider{}, ErrNotFound
	}
	return e, p, err
}

// Get returns a SAML provider; admins only.
func (s *Service) Get(ctx context.Context, userID, orgID, id string) (ProviderView, error) {
	e, p, err := s.provider(ctx, userID, orgID, id)
	if err != nil {
		return ProviderView{}, err
	}
	return s.view(ctx, &e, p)
}

// Update changes a SAML provider; admins only.
func (s *Service) Update(ctx context.Context, userID, orgID, id string, in Input) (ProviderView, error) {
	e, p, err := s.provider(ctx, userID, orgID, id)
	if err != nil {
		return ProviderView{}, err
	}
	changed, err := s.apply(ctx, in, &p, false)
	if err != nil {
		return ProviderView{}, err
	}
	if changed {
		ev, err := s.event(ctx, identityapi.NewSAMLProviderUpdated, p)
		if err != nil {
			return ProviderView{}, err
		}
		if err := s.store.Update(ctx, p, ev); err != nil {
			return ProviderView{}, err
		}
	}
	return s.view(ctx, &e, p)
}

// Delete deletes a SAML provider; admins only.
func (s *Service) Delete(ctx context.Context, userID, orgID, id string) error {
	_, p, err := s.provider(ctx, userID, orgID, id)
	if err != nil {
		return err
	}
	ev, err := s.event(ctx, identityapi.NewSAMLProviderDeleted, p)
	if err != nil {
		return err
	}
	return s.store.Remove(ctx, p.ID, ev)
}

// SSOLogins lists the login infos of the organization's active SAML providers.
func (s *Service) SSOLogins(ctx context.Context, userID, orgID string) ([]SSOLoginView, error) {
	e, err := s.orgs.EnterFor(ctx, userID, orgID, access.ListSSO, "list SSO logins")
	if err != nil {
		return nil, err
	}
	ps, _, err := s.store.Providers(ctx, e.Org.ID, "", 0)
	if err != nil {
		return nil, err
	}
	out := []SSOLoginView{}
	for _, p := range ps {
		if p.Active() {
			out = append(out, SSOLoginView{ID: p.ID, Label: p.Label, StartURL: service(s.urls, p.Organization, p.ID).StartURL})
		}
	}
	return out, nil
}
