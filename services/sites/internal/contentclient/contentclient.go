// Package contentclient asks the content service, over its HTTP API and
// with an internal token minted for the calling user, about spaces: the
// check a site makes before it embeds a space (the space must exist and the
// caller must see it, Space) and which spaces a member may be shown, in one
// call per request (Access). Discovery finds content; trace context travels
// along.
package contentclient

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/discovery"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/otelx"
	"github.com/docspub/platform/services/sites/internal/access"
)

// Service is content's name in discovery.
const Service = "content"

// Client calls content.
type Client struct {
	resolver discovery.Resolver
	signer   *internaltoken.Signer
	http     *http.Client
}

// New returns a client that finds content through resolver and signs with
// signer (the sites service's): its tokens are for content only.
func New(resolver discovery.Resolver, signer *internaltoken.Signer) *Client {
	return &Client{resolver: resolver, signer: signer,
		http: &http.Client{Timeout: 10 * time.Second, Transport: otelx.HTTPTransport(nil)}}
}

// token mints the internal token of a call to content made for caller.
func (c *Client) token(caller access.Caller) (string, error) {
	tok, err := c.signer.Mint(Service, internaltoken.Principal{UserID: caller.UserID, Roles: caller.Roles, Service: c.signer.Service()})
	if err != nil {
		return "", fmt.Errorf("mint internal token: %w", err)
	}
	return tok, nil
}

// Space returns the space as content shows it to the caller. A space that
// does not exist or that the caller cannot see is a 400 naming field (the
// request's field that named it); content being unreachable is a 503.
func (c *Client) Space(ctx context.Context, caller access.Caller, spaceID, field string) (json.RawMessage, error) {
	base, err := c.resolver.Resolve(ctx, Service)
	if err != nil {
		return nil, apierr.Unavailable(retryAfter, "content service unavailable")
	}
	tok, err := c.token(caller)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/v1/spaces/"+url.PathEscape(spaceID), nil)
	if err != nil {
		return nil, apierr.Invalid(field, "is not a valid space id")
	}
	req.Header.Set(internaltoken.Header, tok)
	res, err := c.http.Do(req)
	if err != nil {
		return nil, apierr.Unavailable(retryAfter, "content service unavailable")
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return nil, apierr.Unavailable(retryAfter, "content service unavailable")
	}
	switch {
	case res.StatusCode == http.StatusOK:
		var sp struct {
			DeletedAt string `json:"deletedAt"`
		}
		if json.Unmarshal(body, &sp) == nil && sp.DeletedAt != "" {
			return nil, apierr.Invalid(field, "space %s is deleted", spaceID)
		}
		return body, nil
	case res.StatusCode == http.StatusNotFound:
		return nil, apierr.Invalid(field, "space %s does not exist or is not visible to you", spaceID)
	case res.StatusCode < 500:
		return nil, apierr.Invalid(field, "space %s cannot be used (content answered %d)", spaceID, res.StatusCode)
	}
	return nil, apierr.Unavailable(retryAfter, "content service unavailable")
}
