// Package sectionhttp is the HTTP API of a site's sections and section
// groups: SITE/sections and SITE/section-groups.
package sectionhttp

import (
	"github.com/docspub/platform/services/sites/internal/section"
	"github.com/gin-gonic/gin"
)

// handlers serve sections and groups.
type handlers struct {
	svc *section.Service
}

// Register adds the routes under v1, the /v1 group behind the internal token.
func Register(v1 gin.IRouter, svc *section.Service) {
	h := &handlers{svc: svc}
	st := v1.Group("/orgs/:organizationId/sites/:siteId")

	st.GET("/sections", h.listSections)
	st.POST("/sections", h.createSection)
	st.PATCH("/sections/:siteSectionId", h.updateSection)
	st.DELETE("/sections/:siteSectionId", h.deleteSection)
	st.POST("/sections/:siteSectionId/move", h.moveSection)

	st.GET("/section-groups", h.listGroups)
	st.POST("/section-groups", h.createGroup)
	st.PATCH("/section-groups/:siteSectionGroupId", h.updateGroup)
	st.DELETE("/section-groups/:siteSectionGroupId", h.deleteGroup)
	st.POST("/section-groups/:siteSectionGroupId/move", h.moveGroup)
	st.POST("/section-groups/:siteSectionGroupId/sections", h.addToGroup)
	st.DELETE("/section-groups/:siteSectionGroupId/sections/:siteSectionId", h.removeFromGroup)
}

func orgID(c *gin.Context) string     { return c.Param("organizationId") }
func siteID(c *gin.Context) string    { return c.Param("siteId") }
func sectionID(c *gin.Context) string { return c.Param("siteSectionId") }
func groupID(c *gin.Context) string   { return c.Param("siteSectionGroupId") }
