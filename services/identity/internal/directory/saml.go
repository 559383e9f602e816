package directory

import (
	"context"
	"errors"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/ids"
	"github.com/docspub/platform/libs/keyset"
	"github.com/docspub/platform/libs/nullable"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/identity/internal/access"
)

// SAMLInput is the body of POST ORG/saml (label required) and PATCH
// ORG/saml/{id} (all optional).
type SAMLInput struct {
	Label       nullable.Field[string] `json:"label"`
	EntityID    nullable.Field[string] `json:"entityID"`
	Certificate nullable.Field[string] `json:"certificate"`
	SSOURL      nullable.Field[string] `json:"ssoURL"`
	DefaultTeam nullable.Field[string] `json:"defaultTeam"`
	DefaultRole nullable.Field[string] `json:"defaultRole"`
}

// apply validates the input, applies it to p and returns the changed fields.
func (s *Service) applySAML(ctx context.Context, in SAMLInput, p *SAMLProvider, create bool) (Fields, error) {
	var pr apierr.Problems
	set := Fields{}
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
		set[name] = *dst
	}
	switch {
	case in.Label.Set && in.Label.Null:
		pr.Add("label", "must not be null")
	case in.Label.Set:
		pr.Text("label", in.Label.Value, 1, MaxSAMLLabel)
		p.Label = in.Label.Value
		set["label"] = p.Label
	case create:
		pr.Add("label", "is required")
	}
	str("entityID", in.EntityID, MaxSAMLEntityID, &p.EntityID)
	if in.Certificate.Set {
		p.Certificate = ""
		if !in.Certificate.Null && in.Certificate.Value != "" {
			checkCertificate(&pr, "certificate", in.Certificate.Value)
			p.Certificate = in.Certificate.Value
		}
		set["certificate"] = p.Certificate
	}
	if in.SSOURL.Set && !in.SSOURL.Null && in.SSOURL.Value != "" {
		checkURL(&pr, "ssoURL", in.SSOURL.Value)
	}
	str("ssoURL", in.SSOURL, MaxURL, &p.SSOURL)
	if in.DefaultRole.Set {
		r, err := parseRoleOrGuest("defaultRole", in.DefaultRole)
		if err != nil {
			pr.Add("defaultRole", "must be one of %v or null", roles.Names)
		}
		p.DefaultRole = r
		set["defaultRole"] = r
	}
	if in.DefaultTeam.Set {
		p.DefaultTeam = ""
		if !in.DefaultTeam.Null && in.DefaultTeam.Value != "" {
			_, err := s.store.Team(ctx, p.Organization, in.DefaultTeam.Value)
			switch {
			case errors.Is(err, apierr.ErrNotFound):
				pr.Add("defaultTeam", "%q is not a team of the organization", in.DefaultTeam.Value)
			case err != nil:
				return nil, err
			}
			p.DefaultTeam = in.DefaultTeam.Value
		}
		set["defaultTeam"] = p.DefaultTeam
	}
	return set, pr.Err()
}

// samlView renders a provider with its default team.
func (s *Service) samlView(ctx context.Context, c *caller, p SAMLProvider) (SAMLProviderView, error) {
	var team *TeamView
	if p.DefaultTeam != "" {
		t, err := s.store.Team(ctx, p.Organization, p.DefaultTeam)
		switch {
		case errors.Is(err, apierr.ErrNotFound):
		case err != nil:
			return SAMLProviderView{}, err
		case c != nil:
			v, err := s.teamView(ctx, *c, t)
			if err != nil {
				return SAMLProviderView{}, err
			}
			team = &v
		default:
			v, err := s.teamEventData(ctx, t)
			if err != nil {
				return SAMLProviderView{}, err
			}
			team = &v
		}
	}
	return s.urls.SAMLProviderView(p, team), nil
}

// ListSAMLProviders lists an organization's SAML providers, by id; admins only.
func (s *Service) ListSAMLProviders(ctx context.Context, userID, orgID string, pg keyset.Page) (keyset.List[SAMLProviderView], error) {
	c, err := s.enterFor(ctx, userID, orgID, access.ManageSAML, "manage SAML providers")
	if err != nil {
		return keyset.List[SAMLProviderView]{}, err
	}
	ps, count, err := s.store.SAMLProviders(ctx, c.org.ID, pg.AfterID, pg.Limit+1)
	if err != nil {
		return keyset.List[SAMLProviderView]{}, err
	}
	l := keyset.Cut(ps, pg.Limit, count, func(p SAMLProvider) (int64, string) { return 0, p.ID })
	ps = l.Items
	out := keyset.With(l, make([]SAMLProviderView, len(ps)))
	for i, p := range ps {
		if out.Items[i], err = s.samlView(ctx, &c, p); err != nil {
			return keyset.List[SAMLProviderView]{}, err
		}
	}
	return out, nil
}

// CreateSAMLProvider creates a SAML provider; admins only.
func (s *Service) CreateSAMLProvider(ctx context.Context, userID, orgID string, in SAMLInput) (SAMLProviderView, error) {
	c, err := s.enterFor(ctx, userID, orgID, access.ManageSAML, "manage SAML providers")
	if err != nil {
		return SAMLProviderView{}, err
	}
	p := SAMLProvider{ID: ids.New(), Organization: c.org.ID, DefaultRole: roles.Read, CreatedAt: s.now()}
	if _, err := s.applySAML(ctx, in, &p, true); err != nil {
		return SAMLProviderView{}, err
	}
	ev, err := s.samlView(ctx, nil, p)
	if err != nil {
		return SAMLProviderView{}, err
	}
	if err := s.store.Insert(ctx, SAMLProviders, p, s.event("saml_provider.created", p.Organization, p.ID, ev)); err != nil {
		return SAMLProviderView{}, err
	}
	return s.samlView(ctx, &c, p)
}

func (s *Service) samlProvider(ctx context.Context, org, id string) (SAMLProvider, error) {
	p, err := s.store.SAMLProvider(ctx, org, id)
	if errors.Is(err, apierr.ErrNotFound) {
		return SAMLProvider{}, ErrSAMLNotFound
	}
	return p, err
}

// GetSAMLProvider returns a SAML provider; admins only.
func (s *Service) GetSAMLProvider(ctx context.Context, userID, orgID, id string) (SAMLProviderView, error) {
	c, err := s.enterFor(ctx, userID, orgID, access.ManageSAML, "manage SAML providers")
	if err != nil {
		return SAMLProviderView{}, err
	}
	p, err := s.samlProvider(ctx, c.org.ID, id)
	if err != nil {
		return SAMLProviderView{}, err
	}
	return s.samlView(ctx, &c, p)
}

// UpdateSAMLProvider changes a SAML provider; admins only.
func (s *Service) UpdateSAMLProvider(ctx context.Context, userID, orgID, id string, in SAMLInput) (SAMLProviderView, error) {
	c, err := s.enterFor(ctx, userID, orgID, access.ManageSAML, "manage SAML providers")
	if err != nil {
		return SAMLProviderView{}, err
	}
	p, err := s.samlProvider(ctx, c.org.ID, id)
	if err != nil {
		return SAMLProviderView{}, err
	}
	set, err := s.applySAML(ctx, in, &p, false)
	if err != nil {
		return SAMLProviderView{}, err
	}
	if len(set) > 0 {
		ev, err := s.samlView(ctx, nil, p)
		if err != nil {
			return SAMLProviderView{}, err
		}
		if err := s.store.Set(ctx, SAMLProviders, p.ID, set, s.event("saml_provider.updated", p.Organization, p.ID, ev)); err != nil {
			return SAMLProviderView{}, err
		}
	}
	return s.samlView(ctx, &c, p)
}

// DeleteSAMLProvider deletes a SAML provider; admins only.
func (s *Service) DeleteSAMLProvider(ctx context.Context, userID, orgID, id string) error {
	c, err := s.enterFor(ctx, userID, orgID, access.ManageSAML, "manage SAML providers")
	if err != nil {
		return err
	}
	p, err := s.samlProvider(ctx, c.org.ID, id)
	if err != nil {
		return err
	}
	ev, err := s.samlView(ctx, nil, p)
	if err != nil {
		return err
	}
	return s.store.Remove(ctx, SAMLProviders, p.ID, s.event("saml_provider.deleted", p.Organization, p.ID, ev))
}

// SSOLogins lists the login infos of the organization's active SAML providers.
func (s *Service) SSOLogins(ctx context.Context, userID, orgID string) ([]SSOLoginView, error) {
	c, err := s.enterFor(ctx, userID, orgID, access.ListSSO, "list SSO logins")
	if err != nil {
		return nil, err
	}
	ps, _, err := s.store.SAMLProviders(ctx, c.org.ID, "", 0)
	if err != nil {
		return nil, err
	}
	out := []SSOLoginView{}
	for _, p := range ps {
		if p.Active() {
			out = append(out, SSOLoginView{ID: p.ID, Label: p.Label, StartURL: s.urls.SAMLService(p.Organization, p.ID).StartURL})
		}
	}
	return out, nil
}
