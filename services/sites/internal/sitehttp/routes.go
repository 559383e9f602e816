// Package sitehttp is the HTTP API of sites: ORG/sites, SITE (get, change,
// delete), publish and unpublish, site spaces, the adaptive schema, the
// publishing auth (visitor key) and the published view. Sections, section groups and share links add their routes
// under the same /orgs/:organizationId/sites/:siteId prefix.
package sitehttp

import (
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
	st.GET("/publishing/auth", h.getPublishingAuth)
	st.PATCH("/publishing/auth", h.updatePublishingAuth)
	st.POST("/publishing/auth/regenerate", h.regeneratePublishingAuth)
}
