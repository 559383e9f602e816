// Package gitsynchttp is the HTTP API of Git sync, under
// /spaces/{spaceId}/git. The caller comes from the internal token.
package gitsynchttp

import (
	"net/http"

	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/services/integrations/internal/gitsync"
	"github.com/gin-gonic/gin"
)

type handlers struct{ svc *gitsync.Service }

// Register adds the routes to v1, the /v1 group behind internaltoken.Require.
func Register(v1 gin.IRouter, svc *gitsync.Service) {
	h := &handlers{svc: svc}
	v1.POST("/spaces/:spaceId/git/import", h.importRepo)
	v1.POST("/spaces/:spaceId/git/export", h.exportRepo)
	v1.GET("/spaces/:spaceId/git/info", h.info)
}

func (h *handlers) importRepo(c *gin.Context) {
	var in gitsync.Request
	if !httpx.Bind(c, &in) {
		return
	}
	httpx.Empty(c, http.StatusNoContent, h.svc.Import(c.Request.Context(), internaltoken.CallerOf(c), c.Param("spaceId"), in))
}

func (h *handlers) exportRepo(c *gin.Context) {
	var in gitsync.Request
	if !httpx.Bind(c, &in) {
		return
	}
	httpx.Empty(c, http.StatusNoContent, h.svc.Export(c.Request.Context(), internaltoken.CallerOf(c), c.Param("spaceId"), in))
}

func (h *handlers) info(c *gin.Context) {
	v, err := h.svc.Info(c.Request.Context(), internaltoken.CallerOf(c), c.Param("spaceId"))
	httpx.Reply(c, http.StatusOK, v, err)
}
