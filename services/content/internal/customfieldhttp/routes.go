// Package customfieldhttp is the HTTP API of custom fields: the definitions
// under /orgs/{organizationId}/custom-fields and a space's values under
// /spaces/{spaceId}/custom-fields. The caller comes from the internal token.
package customfieldhttp

import (
	"context"
	"net/http"

	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/paging"
	"github.com/docspub/platform/services/content/internal/access"
	"github.com/docspub/platform/services/content/internal/customfield"
	"github.com/gin-gonic/gin"
)

// Gate lets a caller into a space: it answers the caller's grant when the
// space is visible to them (404 otherwise), not deleted (409) and their
// level allows a (403). The space service implements it.
type Gate interface {
	Enter(ctx context.Context, c access.Caller, spaceID string, a access.Action) (access.Grant, error)
}

type handlers struct {
	svc  *customfield.Service
	gate Gate
}

// Register adds the custom field routes to r, the /v1 group behind
// internaltoken.Require.
func Register(r gin.IRouter, svc *customfield.Service, gate Gate) {
	h := &handlers{svc: svc, gate: gate}
	r.GET("/orgs/:organizationId/custom-fields", h.list)
	r.POST("/orgs/:organizationId/custom-fields", h.create)
	r.GET("/orgs/:organizationId/custom-fields/:fieldName", h.get)
	r.PATCH("/orgs/:organizationId/custom-fields/:fieldName", h.update)
	r.DELETE("/orgs/:organizationId/custom-fields/:fieldName", h.delete)
	r.GET("/spaces/:spaceId/custom-fields", h.spaceValues)
	r.PATCH("/spaces/:spaceId/custom-fields", h.setSpaceValues)
}

func (h *handlers) list(c *gin.Context) {
	p, err := paging.FromQuery(c)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	var page customfield.Page
	if p.Page != "" {
		if err := p.Keys(&page.AfterName, &page.AfterID); err != nil {
			httpx.Error(c, err)
			return
		}
	}
	l, err := paging.Fetch(p, func(limit int) ([]customfield.View, int, error) {
		page.Limit = limit
		return h.svc.List(c.Request.Context(), internaltoken.CallerOf(c), c.Param("organizationId"), page)
	}, func(v customfield.View) string { return paging.Cursor(v.Name, v.ID) })
	httpx.Reply(c, http.StatusOK, l, err)
}

func (h *handlers) create(c *gin.Context) {
	var in customfield.NewField
	if err := httpx.BindJSON(c, &in); err != nil {
		httpx.Error(c, err)
		return
	}
	v, err := h.svc.Create(c.Request.Context(), internaltoken.CallerOf(c), c.Param("organizationId"), in)
	reply(c, http.StatusCreated, v, err)
}

func (h *handlers) get(c *gin.Context) {
	v, err := h.svc.Get(c.Request.Context(), internaltoken.CallerOf(c), c.Param("organizationId"), c.Param("fieldName"))
	reply(c, http.StatusOK, v, err)
}

func (h *handlers) update(c *gin.Context) {
	var p customfield.Patch
	if err := httpx.BindJSON(c, &p); err != nil {
		httpx.Error(c, err)
		return
	}
	v, err := h.svc.Update(c.Request.Context(), internaltoken.CallerOf(c), c.Param("organizationId"), c.Param("fieldName"), p)
	reply(c, http.StatusOK, v, err)
}

func (h *handlers) delete(c *gin.Context) {
	err := h.svc.Delete(c.Request.Context(), internaltoken.CallerOf(c), c.Param("organizationId"), c.Param("fieldName"))
	empty(c, err)
}

func (h *handlers) spaceValues(c *gin.Context) {
	ctx, who := c.Request.Context(), internaltoken.CallerOf(c)
	g, err := h.gate.Enter(ctx, who, c.Param("spaceId"), access.View)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	vs, err := h.svc.SpaceValues(ctx, who, g)
	reply(c, http.StatusOK, vs, err)
}

func (h *handlers) setSpaceValues(c *gin.Context) {
	ctx, who := c.Request.Context(), internaltoken.CallerOf(c)
	g, err := h.gate.Enter(ctx, who, c.Param("spaceId"), access.Edit)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	var p customfield.ValuesPatch
	if err := httpx.BindJSON(c, &p); err != nil {
		httpx.Error(c, err)
		return
	}
	empty(c, h.svc.SetSpaceValues(ctx, who, g, p))
}

// reply answers with v, or the error.
func reply(c *gin.Context, status int, v any, err error) {
	if err != nil {
		httpx.Error(c, err)
		return
	}
	c.JSON(status, v)
}

// empty answers 204, or the error.
func empty(c *gin.Context, err error) {
	if err != nil {
		httpx.Error(c, err)
		return
	}
	httpx.NoContent(c, http.StatusNoContent)
}
