package directory

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/ids"
	"github.com/docspub/platform/libs/roles"
)

// TokenPrefix starts every API token, so that leaked tokens are recognisable.
const TokenPrefix = "dp_"

// NewRawToken returns a new API token: the prefix and 32 random bytes in base62.
func NewRawToken() string { return TokenPrefix + ids.Random(32, 43) }

// HashToken returns the stored form of a raw token: its SHA-256, hex.
func HashToken(raw string) string {
	sum := sha256.Sum256([]byte(raw))
	return hex.EncodeToString(sum[:])
}

// ClaimsKey derives the HMAC key of the visitor claims JWT from the internal
// token secret, so that the two kinds of token can never be swapped:
// HMAC-SHA256(secret, "service-visitor-claims").
func ClaimsKey(secret string) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte("service-visitor-claims"))
	return m.Sum(nil)
}

// Resolved is who an API token belongs to.
type Resolved struct {
	UserID  string            `json:"userId"`
	TokenID string            `json:"tokenId"`
	Roles   map[string]string `json:"roles"` // organization id → role; "" for guests
}

// ResolveToken returns the user of a raw API token and the user's current
// role in each organization (guests with ""). Unknown and revoked tokens are
// ErrBadToken.
func (s *Service) ResolveToken(ctx context.Context, raw string) (Resolved, error) {
	if raw == "" {
		return Resolved{}, ErrBadToken
	}
	t, err := s.store.TokenByHash(ctx, HashToken(raw))
	if errors.Is(err, apierr.ErrNotFound) {
		return Resolved{}, ErrBadToken
	}
	if err != nil {
		return Resolved{}, err
	}
	if t.RevokedAt != nil {
		return Resolved{}, ErrBadToken
	}
	ms, err := s.store.Memberships(ctx, t.User)
	if err != nil {
		return Resolved{}, err
	}
	out := Resolved{UserID: t.User, TokenID: t.ID, Roles: map[string]string{}}
	for _, m := range ms {
		out.Roles[m.Organization] = string(m.Role)
	}
	return out, nil
}

// CreateToken makes a new API token for a user and returns the stored token
// and the raw token, which is not kept.
func (s *Service) CreateToken(ctx context.Context, userID string) (Token, string, error) {
	raw := NewRawToken()
	t := Token{ID: ids.New(), User: userID, Hash: HashToken(raw), CreatedAt: s.now()}
	ev := s.event("token.created", "", t.ID, TokenEvent{ID: t.ID, User: t.User, Hash: t.Hash, CreatedAt: t.CreatedAt})
	if err := s.store.Insert(ctx, Tokens, t, ev); err != nil {
		return Token{}, "", err
	}
	return t, raw, nil
}

// RevokeToken revokes an API token; revoking twice changes nothing.
func (s *Service) RevokeToken(ctx context.Context, id string) error {
	t, err := s.store.Token(ctx, id)
	if errors.Is(err, apierr.ErrNotFound) {
		return apierr.NotFound("token not found")
	}
	if err != nil {
		return err
	}
	if t.RevokedAt != nil {
		return nil
	}
	at := s.now()
	t.RevokedAt = &at
	ev := s.event("token.revoked", "", t.ID, TokenEvent{ID: t.ID, User: t.User, Hash: t.Hash, CreatedAt: t.CreatedAt, RevokedAt: &at})
	return s.store.Set(ctx, Tokens, t.ID, Fields{"revokedAt": at}, ev)
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
		checkTitle(&pr, "organizationTitle", in.OrganizationTitle, MinOrganizationTitle, MaxOrganizationTitle)
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
	var org Organization
	if in.OrganizationID != "" {
		o, err := s.store.Organization(ctx, in.OrganizationID)
		if err != nil {
			return BootstrapResult{}, err
		}
		org = o
	} else {
		org = Organization{ID: ids.New(), Title: in.OrganizationTitle, CreatedAt: s.now(), EmailDomains: []string{},
			Type: DefaultOrganizationType, Plan: DefaultPlan, DefaultRole: roles.Read, InviteLinks: true}
		ev := s.event("organization.created", org.ID, org.ID, s.urls.OrganizationView(org, nil))
		if err := s.store.Insert(ctx, Organizations, org, ev); err != nil {
			return BootstrapResult{}, err
		}
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
		if _, err := s.saveMember(ctx, m, Fields{"role": in.Role}); err != nil {
			return BootstrapResult{}, err
		}
	}
	t, raw, err := s.CreateToken(ctx, u.ID)
	if err != nil {
		return BootstrapResult{}, err
	}
	return BootstrapResult{OrganizationID: org.ID, UserID: u.ID, TokenID: t.ID, Token: raw}, nil
}
