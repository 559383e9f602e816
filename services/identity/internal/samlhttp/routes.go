// Package samlhttp is the HTTP API of SAML providers: /v1/orgs/{id}/saml
// and /v1/orgs/{id}/sso. Every route requires the internal token; the caller
// is its user.
package samlhttp

import (
	"net/http"

	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/paging"
	"github.com/docspub/platform/services/identity/internal/saml"
	"github.com/gin-gonic/gin"
)

// Register adds the SAML routes to e behind internaltoken.Require(signer).
func Register(e *gin.Engine, svc *saml.Service, signer *internaltoken.Signer) {
	h := &handlers{svc: svc}
	org := e.Group("/v1/orgs/:organizationId", internaltoken.Require(signer), internaltoken.RequireUser)
	org.GET("/saml", h.list)
	org.POST("/saml", h.create)
	org.GET("/saml/:samlProviderId", h.get)
	org.PATCH("/saml/:samlProviderId", h.update)
	org.DELETE("/saml/:samlProviderId", h.delete)
	org.GET("/sso", h.ssoLogins)
}

type handlers struct {
	svc *saml.Service
}

func orgID(c *gin.Context) string { return c.Param("organizationId") }

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
	var in saml.Input
	if !httpx.Bind(c, &in) {
		return
	}
	v, err := h.svc.Create(c.Request.Context(), internaltoken.CallerOf(c).UserID, orgID(c), in)
	httpx.Reply(c, http.StatusCreated, v, err)
}

func (h *handlers) get(c *gin.Context) {
	v, err := h.svc.Get(c.Request.Context(), internaltoken.CallerOf(c).UserID, orgID(c), c.Param("samlProviderId"))
	httpx.Reply(c, http.StatusOK, v, err)
}

func (h *handlers) update(c *gin.Context) {
	var in saml.Input
	if !httpx.Bind(c, &in) {
		return
	}
	v, err := h.svc.Update(c.Request.Context(), internaltoken.CallerOf(c).UserID, orgID(c), c.Param("samlProviderId"), in)
	httpx.Reply(c, http.StatusOK, v, err)
}

func (h *handlers) delete(c *gin.Context) {
	err := h.svc.Delete(c.Request.Context(), internaltoken.CallerOf(c).UserID, orgID(c), c.Param("samlProviderId"))
	httpx.Empty(c, http.StatusNoContent, err)
}

func (h *handlers) ssoLogins(c *gin.Context) {
	items, err := h.svc.SSOLogins(c.Request.Context(), internaltoken.CallerOf(c).UserID, orgID(c))
	httpx.Reply(c, http.StatusOK, gin.H{"items": items}, err)
}
