// Package token is identity's API tokens: making one for a user, resolving
// a raw token to its user and the user's roles, revoking one. Only the
// SHA-256 of a raw token is stored. It knows neither gin nor the MongoDB
// driver: it talks to storage through Store.
package token

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/ids"
	"github.com/docspub/platform/libs/internalapi/identityapi"
)

// Errors of tokens.
var (
	ErrBadToken = apierr.Unauthorized("unknown or revoked token")
	ErrNotFound = apierr.NotFound("token not found")
)

// Prefix starts every API token, so that leaked tokens are recognisable.
const Prefix = "dp_"

// NewRaw returns a new API token: the prefix and 32 random bytes in base62.
func NewRaw() string { return Prefix + ids.Random(32, 43) }

// Hash returns the stored form of a raw token: its SHA-256, hex.
func Hash(raw string) string {
	sum := sha256.Sum256([]byte(raw))
	return hex.EncodeToString(sum[:])
}

// Token is an API token.
type Token struct {
	ID        string     `bson:"_id"`
	User      string     `bson:"user"`
	Hash      string     `bson:"hash"`
	CreatedAt time.Time  `bson:"createdAt"`
	RevokedAt *time.Time `bson:"revokedAt,omitempty"`
}

// Event is the data of token.* events. Hash lets the gateway drop the
// cache entry of a revoked token; the raw token is never published.
type Event = identityapi.Token

func eventOf(t Token) Event {
	return Event{ID: t.ID, User: t.User, Hash: t.Hash, CreatedAt: t.CreatedAt, RevokedAt: t.RevokedAt}
}

// Resolved is who an API token belongs to.
type Resolved struct {
	UserID  string            `json:"userId"`
	TokenID string            `json:"tokenId"`
	Roles   map[string]string `json:"roles"` // organization id → role; "" for guests
}

// Store keeps tokens. Every write records its event with the change (the
// outbox); a read of a missing token is an apierr not-found error.
type Store interface {
	Insert(ctx context.Context, t Token, ev envelope.Event) error
	Revoke(ctx context.Context, id string, at time.Time, ev envelope.Event) error
	Token(ctx context.Context, id string) (Token, error)
	TokenByHash(ctx context.Context, hash string) (Token, error)
}

// Roles reads a user's role in each of their organizations ("" for guests):
// the members context's answer, which a resolution carries.
type Roles interface {
	Roles(ctx context.Context, user string) (map[string]string, error)
}

// Service carries out the operations on tokens.
type Service struct {
	store Store
	roles Roles
	now   func() time.Time
}

// New returns a service over store that reads roles from roles.
func New(store Store, roles Roles) *Service {
	return &Service{store: store, roles: roles, now: func() time.Time { return time.Now().UTC().Truncate(time.Millisecond) }}
}

// Resolve returns the user of a raw API token and the user's current role in
// each organization. Unknown and revoked tokens are ErrBadToken.
func (s *Service) Resolve(ctx context.Context, raw string) (Resolved, error) {
	if raw == "" {
		return Resolved{}, ErrBadToken
	}
	t, err := s.store.TokenByHash(ctx, Hash(raw))
	if errors.Is(err, apierr.ErrNotFound) {
		return Resolved{}, ErrBadToken
	}
	if err != nil {
		return Resolved{}, err
	}
	if t.RevokedAt != nil {
		return Resolved{}, ErrBadToken
	}
	roles, err := s.roles.Roles(ctx, t.User)
	if err != nil {
		return Resolved{}, err
	}
	return Resolved{UserID: t.User, TokenID: t.ID, Roles: roles}, nil
}

// Create makes a new API token for a user and returns the stored token and
// the raw token, which is not kept.
func (s *Service) Create(ctx context.Context, userID string) (Token, string, error) {
	raw := NewRaw()
	t := Token{ID: ids.New(), User: userID, Hash: Hash(raw), CreatedAt: s.now()}
	if err := s.store.Insert(ctx, t, identityapi.NewTokenCreated(eventOf(t))); err != nil {
		return Token{}, "", err
	}
	return t, raw, nil
}

// Revoke revokes an API token; revoking twice changes nothing.
func (s *Service) Revoke(ctx context.Context, id string) error {
	t, err := s.store.Token(ctx, id)
	if errors.Is(err, apierr.ErrNotFound) {
		return ErrNotFound
	}
	if err != nil {
		return err
	}
	if t.RevokedAt != nil {
		return nil
	}
	at := s.now()
	t.RevokedAt = &at
	return s.store.Revoke(ctx, t.ID, at, identityapi.NewTokenRevoked(eventOf(t)))
}
