// Package invitehttp is the HTTP API of invite links: /v1/orgs/{id}/link-invites
// and joining with one, POST /v1/orgs/{id}/invites/{inviteId}. Every route
// requires the internal token; the caller is its user.
package invitehttp

import (
	"net/http"

	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/paging"
	"github.com/docspub/platform/services/identity/internal/invite"
	"github.com/gin-gonic/gin"
)

// Register adds the invite link routes to e behind internaltoken.Require(signer).
func Register(e *gin.Engine, svc *invite.Service, signer *internaltoken.Signer) {
	h := &handlers{svc: svc}
	org := e.Group("/v1/orgs/:organizationId", internaltoken.Require(signer), internaltoken.RequireUser)
	org.POST("/invites/:inviteId", h.join)
	org.GET("/link-invites", h.list)
	org.POST("/link-invites", h.create)
	org.GET("/link-invites/:inviteId", h.get)
	org.PATCH("/link-invites/:inviteId", h.update)
	org.DELETE("/link-invites/:inviteId", h.delete)
}

type handlers struct {
	svc *invite.Service
}

func orgID(c *gin.Context) string { return c.Param("organizationId") }

func (h *handlers) join(c *gin.Context) {
	err := h.svc.Join(c.Request.Context(), internaltoken.CallerOf(c).UserID, orgID(c), c.Param("inviteId"))
	httpx.Reply(c, http.StatusOK, gin.H{}, err)
}

func (h *handlers) list(c *gin.Context) {
	p, err := paging.ReadKeyset(c, paging.ByID)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	l, err := h.svc.List(c.Request.Context(), internaltoken.CallerOf(c).UserID, orgID(c), p)
	httpx.Reply(c, http.StatusOK, l, err)
}

func (h *handlers) create(c *gin.Context) {
	var in invite.Input
	if !httpx.Bind(c, &in) {
		return
	}
	v, err := h.svc.Create(c.Request.Context(), internaltoken.CallerOf(c).UserID, orgID(c), in)
	httpx.Reply(c, http.StatusCreated, v, err)
}

func (h *handlers) get(c *gin.Context) {
	v, err := h.svc.Get(c.Request.Context(), internaltoken.CallerOf(c).UserID, orgID(c), c.Param("inviteId"))
	httpx.Reply(c, http.StatusOK, v, err)
}

func (h *handlers) update(c *gin.Context) {
	var in invite.Input
	if !httpx.Bind(c, &in) {
		return
	}
	v, err := h.svc.Update(c.Request.Context(), internaltoken.CallerOf(c).UserID, orgID(c), c.Param("inviteId"), in)
	httpx.Reply(c, http.StatusOK, v, err)
}

func (h *handlers) delete(c *gin.Context) {
	err := h.svc.Delete(c.Request.Context(), internaltoken.CallerOf(c).UserID, orgID(c), c.Param("inviteId"))
	httpx.Empty(c, http.StatusResetContent, err)
}
