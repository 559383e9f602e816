// Package contentclient asks the content service, over its HTTP API and
// internalclient, about spaces: for a member, with a token naming the
// calling user, the check a site makes before it embeds a space (the
// space must exist and the caller must see it, Space) and which spaces a
// member may be shown, in one call per request (Access); for a published
// site's readers, with a token of the sites service alone, content's
// readers' API (reader.go). The types are content's (contentapi).
package contentclient

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/discovery"
	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/internalclient"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/services/sites/internal/access"
	"github.com/docspub/platform/services/sites/internal/limits"
)

// Service is content's name in discovery.
const Service = contentapi.Service

// Client calls content.
type Client struct {
	content *internalclient.Client
}

// New returns a client that finds content through resolver and signs with
// signer (the sites service's): its tokens are for content only.
func New(resolver discovery.Resolver, signer *internaltoken.Signer) *Client {
	return &Client{content: internalclient.New(Service, resolver, signer, limits.ContentTimeout)}
}

// as is the principal of a call to content made for caller.
func (c *Client) as(caller access.Caller) *internaltoken.Principal {
	p := c.content.For(caller.UserID, caller.Roles)
	return &p
}

// maxSpace bounds a space as content shows it.
const maxSpace = 1 << 20

// Space returns the space as content shows it to the caller. A space that
// does not exist or that the caller cannot see is a 400 naming field (the
// request's field that named it); content being unreachable is a 503.
func (c *Client) Space(ctx context.Context, caller access.Caller, spaceID, field string) (json.RawMessage, error) {
	var body json.RawMessage
	err := c.content.Do(ctx, internalclient.Request{Method: http.MethodGet, Path: "/v1/spaces/" + url.PathEscape(spaceID),
		As: c.as(caller), What: "space"}, &body, maxSpace)
	switch status := internalclient.StatusOf(err); {
	case err == nil:
		var sp struct {
			DeletedAt string `json:"deletedAt"`
		}
		if json.Unmarshal(body, &sp) == nil && sp.DeletedAt != "" {
			return nil, apierr.Invalid(field, "space %s is deleted", spaceID)
		}
		return body, nil
	case status == http.StatusNotFound:
		return nil, apierr.Invalid(field, "space %s does not exist or is not visible to you", spaceID)
	case status >= 400 && status < 500 && status != http.StatusUnauthorized && status != http.StatusTooManyRequests:
		return nil, apierr.Invalid(field, "space %s cannot be used (content answered %d)", spaceID, status)
	}
	return nil, err
}
