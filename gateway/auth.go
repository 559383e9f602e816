package gateway

import (
	"context"

	"github.com/docspub/platform/gateway/internal/auth"
	"github.com/docspub/platform/libs/internalapi/identityapi"
)

// ResolvePath is identity's internal endpoint that resolves an API token.
const ResolvePath = identityapi.ResolvePath

// TokenHash is the hex SHA-256 of a raw API token: the only form in which the
// gateway stores a token, and the hash Forget expects.
func TokenHash(raw string) string { return auth.TokenHash(raw) }

// Forget drops one cached token, by TokenHash of the raw token. A
// resolution of the token already in progress is not cached.
func (g *Gateway) Forget(ctx context.Context, tokenHash string) error {
	return g.tokens.Forget(ctx, tokenHash)
}

// ForgetUser drops every cached token of a user, so that the next request
// resolves the user's current roles through identity. Resolutions of the
// user's tokens already in progress are not cached.
func (g *Gateway) ForgetUser(ctx context.Context, userID string) error {
	return g.tokens.ForgetUser(ctx, userID)
}
