// Package sitehttp is the HTTP API of sites: ORG/sites, SITE (get, change,
// delete), publish and unpublish, site spaces, the adaptive schema and the
// published view. Sections, section groups and share links add their routes
// under the same /orgs/:organizationId/sites/:siteId prefix.
package sitehttp

import (
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/paging"
	"github.com/docspub/platform/services/sites/internal/site"
	"github.com/gin-gonic/gin"
)

// Handlers serve sites.
type Handlers struct {
	svc *site.Service
}

// Register adds the routes under v1, the /v1 group behind the internal token.
func Register(v1 gin.IRouter, svc *site.Service) {
	h := &Handlers{svc: svc}

	sites := v1.Group("/orgs/:organizationId/sites")
	sites.GET("", h.listSites)
	sites.POST("", h.createSite)

	st := sites.Group("/:siteId")
	st.GET("", h.getSite)
	st.PATCH("", h.updateSite)
	st.DELETE("", h.deleteSite)
	st.POST("/publish", h.publish)
	st.POST("/unpublish", h.unpublish)
	st.GET("/adaptive-schema", h.getAdaptiveSchema)
	st.PUT("/adaptive-schema", h.putAdaptiveSchema)
	st.GET("/published", h.published)
	st.GET("/site-spaces", h.listSiteSpaces)
	st.POST("/site-spaces", h.addSiteSpace)
	st.PATCH("/site-spaces/:siteSpaceId", h.updateSiteSpace)
	st.DELETE("/site-spaces/:siteSpaceId", h.deleteSiteSpace)
}

// idPage reads paging parameters whose cursor is the id.
func idPage(c *gin.Context) (site.Page, bool) {
	var pg site.Page
	p, err := paging.Read(c, &pg.AfterID)
	if err != nil {
		httpx.Error(c, err)
		return site.Page{}, false
	}
	pg.Limit = p.Limit
	return pg, true
}

// positionPage reads paging parameters whose cursor is (position, id).
func positionPage(c *gin.Context) (site.Page, bool) {
	var pg site.Page
	p, err := paging.Read(c, &pg.AfterPosition, &pg.AfterID)
	if err != nil {
		httpx.Error(c, err)
		return site.Page{}, false
	}
	pg.Limit = p.Limit
	return pg, true
}

// list answers a page of a list with the cursor its sort needs.
func list[T any](c *gin.Context, l site.List[T], err error, byID bool) {
	if err != nil {
		httpx.Error(c, err)
		return
	}
	var next string
	switch {
	case l.HasMore && byID:
		next = paging.Cursor(l.LastID)
	case l.HasMore:
		next = paging.Cursor(l.LastPosition, l.LastID)
	}
	paging.Reply(c, l.Items, l.Count, next)
}
