// Package spacehttp is the HTTP API of content's tree: collections, spaces,
// ORG/spaces and a member's spaces.
package spacehttp

import (
	"github.com/docspub/platform/services/content/internal/space"
	"github.com/gin-gonic/gin"
)

// Handlers serve the tree.
type Handlers struct {
	svc *space.Service
}

// Register adds the routes under r, the /v1 group behind the internal token.
func Register(r gin.IRouter, svc *space.Service) {
	h := &Handlers{svc: svc}

	org := r.Group("/orgs/:organizationId")
	org.GET("/spaces", h.listSpaces)
	org.POST("/spaces", h.createSpace)
	org.GET("/collections", h.listCollections)
	org.POST("/collections", h.createCollection)
	org.GET("/members/:userId/spaces", h.memberSpaces)

	col := r.Group("/collections/:collectionId")
	col.GET("", h.getCollection)
	col.PATCH("", h.updateCollection)
	col.DELETE("", h.deleteCollection)
	col.GET("/spaces", h.collectionSpaces)
	col.POST("/move", h.moveCollection)
	col.POST("/transfer", h.transferCollection)

	sp := r.Group("/spaces/:spaceId")
	sp.GET("", h.getSpace)
	sp.PATCH("", h.updateSpace)
	sp.DELETE("", h.deleteSpace)
	sp.POST("/duplicate", h.duplicateSpace)
	sp.POST("/restore", h.restoreSpace)
	sp.POST("/move", h.moveSpace)
	sp.POST("/transfer", h.transferSpace)
}
