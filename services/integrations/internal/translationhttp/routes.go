// Package translationhttp is the HTTP API of translation settings, under
// /orgs/{organizationId}/translations. The caller comes from the internal token.
package translationhttp

import (
	"net/http"

	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/paging"
	"github.com/docspub/platform/services/integrations/internal/translation"
	"github.com/gin-gonic/gin"
)

type handlers struct{ svc *translation.Service }

// Register adds the routes to v1, the /v1 group behind internaltoken.Require.
func Register(v1 gin.IRouter, svc *translation.Service) {
	h := &handlers{svc: svc}
	const base = "/orgs/:organizationId/translations"
	v1.GET(base, h.list)
	v1.POST(base, h.create)
	v1.GET(base+"/:translationSettingsId", h.get)
	v1.PUT(base+"/:translationSettingsId", h.replace)
	v1.DELETE(base+"/:translationSettingsId", h.delete)
}

func org(c *gin.Context) string { return c.Param("organizationId") }
func id(c *gin.Context) string  { return c.Param("translationSettingsId") }

func (h *handlers) list(c *gin.Context) {
	pg, err := paging.ReadKeyset(c, paging.ByID)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	l, err := h.svc.List(c.Request.Context(), internaltoken.CallerOf(c), org(c), pg)
	httpx.Reply(c, http.StatusOK, l, err)
}

func (h *handlers) create(c *gin.Context) {
	var in translation.Input
	if !httpx.Bind(c, &in) {
		return
	}
	v, err := h.svc.Create(c.Request.Context(), internaltoken.CallerOf(c), org(c), in)
	httpx.Created(c, v.URLs.Location, v, err)
}

func (h *handlers) get(c *gin.Context) {
	v, err := h.svc.Get(c.Request.Context(), internaltoken.CallerOf(c), org(c), id(c))
	httpx.Reply(c, http.StatusOK, v, err)
}

func (h *handlers) replace(c *gin.Context) {
	var in translation.Input
	if !httpx.Bind(c, &in) {
		return
	}
	v, err := h.svc.Replace(c.Request.Context(), internaltoken.CallerOf(c), org(c), id(c), in)
	httpx.Reply(c, http.StatusOK, v, err)
}

func (h *handlers) delete(c *gin.Context) {
	httpx.Empty(c, http.StatusResetContent, h.svc.Delete(c.Request.Context(), internaltoken.CallerOf(c), org(c), id(c)))
}
