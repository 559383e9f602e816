package gitsynchttp

import (
	"context"
	"fmt"
	"net/http"
	"unicode/utf8"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/services/content/internal/revision"
	"github.com/docspub/platform/services/content/internal/search"
	"github.com/docspub/platform/services/content/internal/spacehttp"
	"github.com/gin-gonic/gin"
)

// The reads of published sites, beside the Git sync reads, for a platform
// service alone (the sites service serving readers who hold no token):
//
//	GET  /internal/v1/spaces/{spaceId}/git/current  the space's organization and current revision, small
//	                                               enough to ask on every page view (404 missing, 409 deleted)
//	POST /internal/v1/orgs/{organizationId}/search   {spaces, query, limit}: content's search over those
//	                                               spaces of the organization (the ones a site publishes)
//	GET  /internal/v1/orgs/{organizationId}/storage  the bytes the organization stores (files, each distinct
//	                                               one once, and page markdown) and its quota

// Searcher is content's search (search.Service).
type Searcher interface {
	Search(ctx context.Context, org string, spaceIDs []string, query string, limit int, after *search.Cursor) (search.Result, error)
}

// CurrentView is a space's current revision.
type CurrentView struct {
	Space        string `json:"space"`
	Organization string `json:"organization"`
	Revision     string `json:"revision"`
}

// maxSearchBody bounds a search request: its spaces at their longest (as
// an access question's) and a query at its longest, in bytes.
const maxSearchBody = spacehttp.MaxAccessSpaces*(spacehttp.MaxAccessID+3) + 4*search.MaxQueryLength + 256

// UsageFunc tells what an organization stores (revisionmongo.Store.Usage).
type UsageFunc func(ctx context.Context, org string) (revision.Usage, error)

type reads struct {
	spaces   Spaces
	searcher Searcher
	usage    UsageFunc
}

// RegisterReads adds the reads of published sites, and an organization's
// storage, to internal, the /internal/v1 group behind
// internaltoken.Require.
func RegisterReads(internal gin.IRouter, spaces Spaces, searcher Searcher, usage UsageFunc) {
	h := &reads{spaces: spaces, searcher: searcher, usage: usage}
	internal.GET("/spaces/:spaceId/git/current", requireService, h.current)
	internal.POST("/orgs/:organizationId/search", requireService, h.search)
	internal.GET("/orgs/:organizationId/storage", requireService, h.storage)
}

func (h *reads) storage(c *gin.Context) {
	u, err := h.usage(c.Request.Context(), c.Param("organizationId"))
	httpx.Reply(c, http.StatusOK, u, err)
}

func (h *reads) current(c *gin.Context) {
	g, err := h.spaces.ServiceGrant(c.Request.Context(), c.Param("spaceId"))
	httpx.Reply(c, http.StatusOK, CurrentView{Space: g.Space, Organization: g.Organization, Revision: g.Revision}, err)
}

type searchRequest struct {
	Spaces []string `json:"spaces"`
	Query  string   `json:"query"`
	Limit  int      `json:"limit"`
}

// search runs content's search over the listed spaces of the organization:
// the index holds each organization's postings apart, so a space of
// another organization matches nothing.
func (h *reads) search(c *gin.Context) {
	c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, maxSearchBody)
	var req searchRequest
	if !httpx.Bind(c, &req) {
		return
	}
	var p apierr.Problems
	switch {
	case req.Spaces == nil:
		p.Add("spaces", "is required")
	case len(req.Spaces) > spacehttp.MaxAccessSpaces:
		p.Add("spaces", "must have at most %d items", spacehttp.MaxAccessSpaces)
	}
	for i, id := range req.Spaces {
		if id == "" || len(id) > spacehttp.MaxAccessID {
			p.Add(fmt.Sprintf("spaces[%d]", i), "must be a space id of 1..%d characters", spacehttp.MaxAccessID)
			break
		}
	}
	if n := utf8.RuneCountInString(req.Query); n > search.MaxQueryLength {
		p.Add("query", "must be at most %d characters", search.MaxQueryLength)
	}
	if err := p.Err(); err != nil {
		httpx.Error(c, err)
		return
	}
	res, err := h.searcher.Search(c.Request.Context(), c.Param("organizationId"), req.Spaces, req.Query, req.Limit, nil)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	httpx.Reply(c, http.StatusOK, map[string]any{"items": res.Items, "count": res.Count}, nil)
}
