// Package internaltoken is the short-lived signed token the gateway mints for
// each forwarded request and services verify: it carries the caller's user id
// and role in each organization, and the one service it is for (its audience).
// A request without a valid token for the service that receives it is refused.
//
// Every party has a Signer of its own service name: Mint(audience, p) makes a
// token for the service named audience, Verify and Require accept only tokens
// whose audience is the signer's own service.
package internaltoken

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/docspub/platform/libs/sizedcache"
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

// Signer mints tokens for other services and verifies the tokens addressed
// to its own, with a secret shared by the platform (HMAC).
type Signer struct {
	service string
	secret  []byte // signs
	kid     string // names secret in the token's header; "" for the single secret
	// accept are the secrets Verify accepts, by key id ("" for a token
	// without a kid).
	accept map[string][]byte
	ttl    time.Duration
	now    func() time.Time
	// verified remembers the tokens Verify accepted, by their exact text,
	// until they expire (see Verify).
	verified *sizedcache.Cache[string, verifiedToken]
	// minted remembers the tokens Mint made, by audience and principal,
	// for the second they were made in (see Mint).
	minted *sizedcache.Cache[string, mintedToken]
}

// mintedToken is a token Mint made and the whole seconds of its issue and
// expiry times.
type mintedToken struct {
	token    string
	iat, exp int64
}

// verifiedToken is a token Verify accepted: its principal and its expiry.
type verifiedToken struct {
	p   Principal
	exp time.Time
}

// verifiedTokens bounds the tokens a signer remembers as verified. The
// gateway reuses one token for all readers' requests to sites for a
// while, and mints identical tokens for one principal within a second,
// so a few thousand cover the repeats; the rest is evicted, least
// recently used first.
const verifiedTokens = 4096

// leeway is how long after its expiry a token still passes (clock skew
// between the gateway and the service).
const leeway = 5 * time.Second

// NewSigner returns the signer of service: its name in discovery and in the
// gateway's route table ("content", "sites", ...). The secret must be at
// least 32 bytes.
func NewSigner(service, secret string, ttl time.Duration) (*Signer, error) {
	if service == "" {
		return nil, errors.New("internal token signer needs the name of its service")
	}
	if len(secret) < 32 {
		return nil, errors.New("internal token secret must be at least 32 bytes")
	}
	if ttl <= 0 {
		ttl = time.Minute
	}
	verified := sizedcache.New[string, verifiedToken](verifiedTokens, 0)
	minted := sizedcache.New[string, mintedToken](verifiedTokens, 0)
	return &Signer{service: service, secret: []byte(secret), accept: map[string][]byte{"": []byte(secret)}, ttl: ttl, now: time.Now,
		verified: verified, minted: minted}, nil
}

// Service returns the name of the signer's own service: the audience its
// Verify accepts.
func (s *Signer) Service() string { return s.service }

// Mint returns a signed token for p that only the service named audience
// accepts, valid for the signer's TTL.
//
// A token's times are whole seconds, so the tokens minted for one audience
// and principal within one second are the same text: the first is
// remembered and handed out again within its second instead of being
// signed anew (the gateway mints one for every request it forwards).
func (s *Signer) Mint(audience string, p Principal) (string, error) {
	if audience == "" {
		return "", errors.New("mint internal token: no audience")
	}
	now := s.now()
	iat, exp := jwt.NewNumericDate(now), jwt.NewNumericDate(now.Add(s.ttl))
	key := mintKey(audience, p)
	if t, ok := s.minted.Get(key); ok && t.iat == iat.Unix() && t.exp == exp.Unix() {
		return t.token, nil
	}
	c := claims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    issuer,
			Subject:   p.UserID,
			Audience:  jwt.ClaimStrings{audience},
			IssuedAt:  iat,
			ExpiresAt: exp,
		},
		Service: p.Service,
		Roles:   p.Roles,
		TokenID: p.TokenID,
	}
	t := jwt.NewWithClaims(jwt.SigningMethodHS256, c)
	if s.kid != "" {
		t.Header["kid"] = s.kid
	}
	tok, err := t.SignedString(s.secret)
	if err != nil {
		return "", fmt.Errorf("sign internal token: %w", err)
	}
	s.minted.Set(key, mintedToken{token: tok, iat: iat.Unix(), exp: exp.Unix()}, 0)
	return tok, nil
}

// mintKey is what a minted token's text depends on besides its times and
// the signer: the audience and every field of the principal, each
// length-prefixed (no two principals share a key), roles in order.
func mintKey(audience string, p Principal) string {
	var b strings.Builder
	field := func(v string) {
		b.WriteString(strconv.Itoa(len(v)))
		b.WriteByte(':')
		b.WriteString(v)
	}
	field(audience)
	field(p.UserID)
	field(p.Service)
	field(p.TokenID)
	for _, org := range slices.Sorted(maps.Keys(p.Roles)) {
		field(org)
		field(p.Roles[org])
	}
	return b.String()
}

// ErrInvalid is returned for a missing, malformed, forged or expired token,
// and for a token addressed to another service.
var ErrInvalid = errors.New("invalid internal token")

// key returns the secret of the key the token names (its "kid" header;
// none for the single secret).
func (s *Signer) key(t *jwt.Token) (any, error) {
	kid, _ := t.Header["kid"].(string)
	secret, ok := s.accept[kid]
	if !ok {
		return nil, fmt.Errorf("unknown key %q", kid)
	}
	return secret, nil
}

// Verify checks the token's signature, issuer, expiry and audience (the
// signer's own service) and returns its principal.
//
// A token accepted once is remembered, by its exact text, until it
// expires: the same token again is accepted without checking its
// signature anew (any other text, a forged or tampered token included, is
// a different key and is checked in full). Only the expiry changes with
// time, and it is checked on every call. The keys a signer accepts are
// fixed when it is made (a key is removed by a new signer, at restart),
// so a remembered token never outlives its key in that signer; even then
// it would not outlive its own expiry, at most the signer's TTL. Refused
// tokens are not remembered.
func (s *Signer) Verify(token string) (Principal, error) {
	if token == "" {
		return Principal{}, ErrInvalid
	}
	now := s.now()
	if v, ok := s.verified.Get(token); ok {
		if now.Before(v.exp.Add(leeway)) {
			p := v.p
			p.Roles = maps.Clone(p.Roles) // the caller's own, as when parsed
			return p, nil
		}
		s.verified.Remove(token)
	}
	var c claims
	_, err := jwt.ParseWithClaims(token, &c, s.key,
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithIssuer(issuer), jwt.WithAudience(s.service), jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(func() time.Time { return now }), jwt.WithLeeway(leeway))
	if err != nil {
		return Principal{}, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if c.Subject == "" && c.Service == "" {
		return Principal{}, fmt.Errorf("%w: no subject", ErrInvalid)
	}
	p := Principal{UserID: c.Subject, Service: c.Service, Roles: c.Roles, TokenID: c.TokenID}
	// A token with a not-before time (the platform mints none) is checked
	// in full each time.
	if c.NotBefore == nil {
		s.verified.Set(token, verifiedToken{p: Principal{UserID: p.UserID, Service: p.Service, Roles: maps.Clone(p.Roles), TokenID: p.TokenID}, exp: c.ExpiresAt.Time}, 0)
	}
	return p, nil
}
