// Package identityclient asks identity, through internalclient, who the
// user a request acts for is (GET /v1/user with a token minted for them):
// the name and e-mail a Git export writes as its commit's author, from
// their owner. Content's copy of them (its projection of identity's events)
// may not have a user created a moment ago, and a commit keeps what it was
// given.
package identityclient

import (
	"context"
	"net/http"
	"time"

	"github.com/docspub/platform/libs/discovery"
	"github.com/docspub/platform/libs/internalapi/identityapi"
	"github.com/docspub/platform/libs/internalclient"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/services/integrations/internal/access"
)

// Service is identity's name in discovery and the audience of the tokens
// the client mints.
const Service = identityapi.Service

// Bounds of a call: a user is a few hundred bytes.
const (
	timeout       = 5 * time.Second
	maxAnswerSize = 64 << 10
)

// Client calls identity.
type Client struct {
	identity *internalclient.Client
}

// New returns a client that finds identity through resolver and signs with signer.
func New(resolver discovery.Resolver, signer *internaltoken.Signer) *Client {
	return &Client{identity: internalclient.New(Service, resolver, signer, timeout)}
}

// User is the caller as identity knows them.
func (c *Client) User(ctx context.Context, caller access.Caller) (identityapi.User, error) {
	var u identityapi.User
	as := c.identity.For(caller.UserID, caller.Roles)
	err := c.identity.Do(ctx, internalclient.Request{Method: http.MethodGet, Path: identityapi.CurrentUserPath, As: &as, What: "user"}, &u, maxAnswerSize)
	return u, err
}
