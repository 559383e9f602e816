// Package searchhttp is the HTTP API of search: GET ORG/search.
package searchhttp

import (
	"context"

	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/paging"
	"github.com/docspub/platform/services/content/internal/access"
	"github.com/docspub/platform/services/content/internal/search"
	"github.com/gin-gonic/gin"
)

// MaxSpaces is how many of the spaces a caller can read are searched.
const MaxSpaces = 10000

// Readable returns the titles, by id, of the spaces of org the caller may
// view (up to limit); for a caller who is not a member it returns a
// not-found error. space.Service implements it.
type Readable interface {
	Readable(ctx context.Context, c access.Caller, org string, limit int) (map[string]string, error)
}

type handlers struct {
	svc    *search.Service
	spaces Readable
}

// Register adds the routes under r, the /v1 group behind the internal token.
func Register(r gin.IRouter, svc *search.Service, spaces Readable) {
	h := &handlers{svc: svc, spaces: spaces}
	r.GET("/orgs/:organizationId/search", h.search)
}

func (h *handlers) search(c *gin.Context) {
	p, err := paging.FromQuery(c)
	var after *search.Cursor
	if err == nil && p.Page != "" {
		after = &search.Cursor{}
		err = p.Keys(&after.Matched, &after.Score, &after.Space)
	}
	if err != nil {
		httpx.Error(c, err)
		return
	}
	org := c.Param("organizationId")
	spaces, err := h.spaces.Readable(c.Request.Context(), internaltoken.CallerOf(c), org, MaxSpaces)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	res, err := h.svc.SearchJSON(c.Request.Context(), org, spaces, c.Query("query"), p.Limit, after)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	httpx.KeptJSON(c, res.JSON, res.Sum)
}
