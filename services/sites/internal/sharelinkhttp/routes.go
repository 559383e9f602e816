// Package sharelinkhttp is the HTTP API of share links, under
// /orgs/{organizationId}/sites/{siteId}/share-links. The caller comes from
// the internal token.
package sharelinkhttp

import (
	"net/http"

	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/paging"
	"github.com/docspub/platform/services/sites/internal/sharelink"
	"github.com/gin-gonic/gin"
)

type handlers struct {
	svc *sharelink.Service
}

// Register adds the share link routes to v1, the /v1 group behind
// internaltoken.Require.
func Register(v1 gin.IRouter, svc *sharelink.Service) {
	h := &handlers{svc: svc}
	const links = "/orgs/:organizationId/sites/:siteId/share-links"
	v1.GET(links, h.list)
	v1.POST(links, h.create)
	v1.PATCH(links+"/:shareLinkId", h.update)
	v1.DELETE(links+"/:shareLinkId", h.delete)
}

func (h *handlers) list(c *gin.Context) {
	p, err := paging.ReadKeyset(c, paging.ByID)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	l, err := paging.Fetch(p, func(limit int) ([]sharelink.View, int, error) {
		return h.svc.List(c.Request.Context(), internaltoken.CallerOf(c), c.Param("organizationId"), c.Param("siteId"),
			sharelink.Page{AfterID: p.AfterID, Limit: limit})
	}, func(v sharelink.View) string { return paging.IDCursor(v.ID) })
	httpx.Reply(c, http.StatusOK, l, err)
}

func (h *handlers) create(c *gin.Context) {
	var in sharelink.NewLink
	if !httpx.Bind(c, &in) {
		return
	}
	v, err := h.svc.Create(c.Request.Context(), internaltoken.CallerOf(c), c.Param("organizationId"), c.Param("siteId"), in)
	httpx.Reply(c, http.StatusCreated, v, err)
}

func (h *handlers) update(c *gin.Context) {
	var p sharelink.Patch
	if !httpx.Bind(c, &p) {
		return
	}
	v, err := h.svc.Update(c.Request.Context(), internaltoken.CallerOf(c), c.Param("organizationId"), c.Param("siteId"), c.Param("shareLinkId"), p)
	httpx.Reply(c, http.StatusOK, v, err)
}

func (h *handlers) delete(c *gin.Context) {
	err := h.svc.Delete(c.Request.Context(), internaltoken.CallerOf(c), c.Param("organizationId"), c.Param("siteId"), c.Param("shareLinkId"))
	httpx.Empty(c, http.StatusResetContent, err)
}
