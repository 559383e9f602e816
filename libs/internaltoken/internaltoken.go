// Package internaltoken is the short-lived signed token the gateway mints for
// each forwarded request and services verify: it carries the caller's user id
// and role in each organization. A request without a valid one is refused.
package internaltoken

import (
	"errors"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Header is the HTTP header that carries the token. Only the gateway sets it;
// it strips any inbound copy.
const Header = "X-Internal-Token"

const issuer = "docspub-gateway"

// Principal is who makes a request.
type Principal struct {
	// UserID is the calling user; empty for a platform service call.
	UserID string `json:"sub,omitempty"`
	// Service is set instead of UserID when a platform service calls another.
	Service string `json:"svc,omitempty"`
	// Roles maps organization id to the user's role there.
	Roles map[string]string `json:"roles,omitempty"`
	// TokenID is the API token the user authenticated with.
	TokenID string `json:"tid,omitempty"`
}

// Role returns the principal's role in org, "" when not a member.
func (p Principal) Role(org string) string { return p.Roles[org] }

type claims struct {
	jwt.RegisteredClaims
	Service string            `json:"svc,omitempty"`
	Roles   map[string]string `json:"roles,omitempty"`
	TokenID string            `json:"tid,omitempty"`
}

// Signer mints and verifies tokens with a shared HMAC secret.
type Signer struct {
	secret []byte
	ttl    time.Duration
	now    func() time.Time
}

// NewSigner returns a signer. The secret must be at least 32 bytes.
func NewSigner(secret string, ttl time.Duration) (*Signer, error) {
	if len(secret) < 32 {
		return nil, errors.New("internal token secret must be at least 32 bytes")
	}
	if ttl <= 0 {
		ttl = time.Minute
	}
	return &Signer{secret: []byte(secret), ttl: ttl, now: time.Now}, nil
}

// Mint returns a signed token for p, valid for the signer's TTL.
func (s *Signer) Mint(p Principal) (string, error) {
	now := s.now()
	c := claims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    issuer,
			Subject:   p.UserID,
			IssuedAt:  jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(now.Add(s.ttl)),
		},
		Service: p.Service,
		Roles:   p.Roles,
		TokenID: p.TokenID,
	}
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(s.secret)
	if err != nil {
		return "", fmt.Errorf("sign internal token: %w", err)
	}
	return tok, nil
}

// ErrInvalid is returned for a missing, malformed, forged or expired token.
var ErrInvalid = errors.New("invalid internal token")

// Verify checks the token's signature, issuer and expiry and returns its principal.
func (s *Signer) Verify(token string) (Principal, error) {
	if token == "" {
		return Principal{}, ErrInvalid
	}
	var c claims
	_, err := jwt.ParseWithClaims(token, &c, func(*jwt.Token) (any, error) { return s.secret, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithIssuer(issuer), jwt.WithExpirationRequired(), jwt.WithTimeFunc(s.now), jwt.WithLeeway(5*time.Second))
	if err != nil {
		return Principal{}, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if c.Subject == "" && c.Service == "" {
		return Principal{}, fmt.Errorf("%w: no subject", ErrInvalid)
	}
	return Principal{UserID: c.Subject, Service: c.Service, Roles: c.Roles, TokenID: c.TokenID}, nil
}
