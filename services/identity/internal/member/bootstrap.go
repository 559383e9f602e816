package member

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"strings"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/identity/internal/organization"
)

// ClaimsKey derives the HMAC key of the visitor claims JWT from the internal
// token secret, so that the two kinds of token can never be swapped:
// HMAC-SHA256(secret, "service-visitor-claims").
func ClaimsKey(secret string) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte("service-visitor-claims"))
	return m.Sum(nil)
}

// BootstrapInput says what Bootstrap sets up.
type BootstrapInput struct {
	OrganizationID    string // "" creates an organization titled OrganizationTitle
	OrganizationTitle string
	UserDisplayName   string
	UserEmail         string
	Role              roles.Role
}

// BootstrapResult is what Bootstrap made. Token is the raw token, shown once.
type BootstrapResult struct {
	OrganizationID, UserID, TokenID, Token string
}

// Bootstrap creates (or reuses) an organization, a user (reused by e-mail),
// the user's membership with the role (changing the role of an existing
// membership), and a new API token.
func (s *Service) Bootstrap(ctx context.Context, in BootstrapInput) (BootstrapResult, error) {
	var pr apierr.Problems
	if in.OrganizationID == "" {
		organization.CheckTitle(&pr, "organizationTitle", in.OrganizationTitle, organization.MinOrganizationTitle, organization.MaxOrganizationTitle)
	}
	// An empty display name is the e-mail's local part.
	pr.Text("displayName", in.UserDisplayName, 0, MaxDisplayName)
	if !strings.Contains(in.UserEmail, "@") || len(in.UserEmail) > MaxEmail || apierr.TextProblem(in.UserEmail) != "" {
		pr.Add("email", "must be an e-mail address")
	}
	if !roles.Valid(in.Role) {
		pr.Add("role", "must be one of %v", roles.Names)
	}
	if err := pr.Err(); err != nil {
		return BootstrapResult{}, err
	}
	var org organization.Organization
	var err error
	if in.OrganizationID != "" {
		org, err = s.orgs.Organization(ctx, in.OrganizationID)
	} else {
		org, err = s.orgs.Create(ctx, in.OrganizationTitle)
	}
	if err != nil {
		return BootstrapResult{}, err
	}
	u, err := s.findOrCreateUser(ctx, in.UserEmail, in.UserDisplayName)
	if err != nil {
		return BootstrapResult{}, err
	}
	m, err := s.store.Member(ctx, org.ID, u.ID)
	switch {
	case errors.Is(err, apierr.ErrNotFound):
		if _, err := s.addMember(ctx, org.ID, u, in.Role, false); err != nil {
			return BootstrapResult{}, err
		}
	case err != nil:
		return BootstrapResult{}, err
	case m.Role != in.Role:
		m.Role = in.Role
		if _, err := s.saveMember(ctx, m, Change{Role: &m.Role}); err != nil {
			return BootstrapResult{}, err
		}
	}
	t, raw, err := s.tokens.Create(ctx, u.ID)
	if err != nil {
		return BootstrapResult{}, err
	}
	return BootstrapResult{OrganizationID: org.ID, UserID: u.ID, TokenID: t.ID, Token: raw}, nil
}
