// Package sitecontentclient is content's client (contentclient) as the
// site context asks it (site.Content), so that the domain does not depend
// on the client's transport.
package sitecontentclient

import (
	"context"

	"github.com/docspub/platform/services/sites/internal/access"
	"github.com/docspub/platform/services/sites/internal/contentclient"
	"github.com/docspub/platform/services/sites/internal/site"
)

// Content is c as site.Content.
type Content struct {
	*contentclient.Client
}

var _ site.Content = Content{}

// New returns c as site.Content.
func New(c *contentclient.Client) Content { return Content{Client: c} }

// Access says what the caller may do on each space (contentclient.Access).
func (c Content) Access(ctx context.Context, caller access.Caller, spaceIDs []string) (map[string]*site.SpaceAccess, error) {
	acc, err := c.Client.Access(ctx, caller, spaceIDs)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*site.SpaceAccess, len(acc))
	for id, a := range acc {
		out[id] = (*site.SpaceAccess)(a)
	}
	return out, nil
}
