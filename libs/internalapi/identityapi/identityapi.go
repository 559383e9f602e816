// Package identityapi is the contract of the identity service's internal
// API and of its events (events.go), shared by identity (the provider) and
// its callers:
//
//	POST /internal/v1/tokens/resolve   ResolveRequest → Resolution, for the gateway alone
//	                                   (401 or 404: no such token, or revoked)
//	GET  /v1/user                      → User: the calling user, for a service acting
//	                                   for them (integrations names them as a Git
//	                                   export's author)
package identityapi

// Service is identity's name in discovery and the audience of its tokens.
const Service = "identity"

// Gateway is the one caller of the token resolution.
const Gateway = "gateway"

// CurrentUserPath is the calling user, of the public API (getAuthenticatedUser).
const CurrentUserPath = "/v1/user"

// ResolvePath resolves an API token.
const ResolvePath = "/internal/v1/tokens/resolve"

// ResolveRequest is the body of a resolution: the raw API token.
type ResolveRequest struct {
	Token string `json:"token"`
}

// Resolution is who an API token is for: its user, the token's id and the
// user's role in each organization ("" for a guest).
type Resolution struct {
	UserID  string            `json:"userId"`
	TokenID string            `json:"tokenId"`
	Roles   map[string]string `json:"roles"`
}
