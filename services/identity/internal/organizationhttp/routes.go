// Package organizationhttp is the HTTP API of organizations: GET /v1/orgs,
// GET /v1/email-domains/{emailDomain}/orgs and GET and PATCH
// /v1/orgs/{organizationId}. Every route requires the internal token; the
// caller is its user.
package organizationhttp

import (
	"net/http"

	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/paging"
	"github.com/docspub/platform/services/identity/internal/organization"
	"github.com/gin-gonic/gin"
)

// Register adds the organization routes to e behind internaltoken.Require(signer).
func Register(e *gin.Engine, svc *organization.Service, signer *internaltoken.Signer) {
	h := &handlers{svc: svc}
	v1 := e.Group("/v1", internaltoken.Require(signer), internaltoken.RequireUser)
	v1.GET("/orgs", h.list)
	v1.GET("/email-domains/:emailDomain/orgs", h.forEmailDomain)
	v1.GET("/orgs/:organizationId", h.get)
	v1.PATCH("/orgs/:organizationId", h.update)
}

type handlers struct {
	svc *organization.Service
}

func orgID(c *gin.Context) string { return c.Param("organizationId") }

func (h *handlers) list(c *gin.Context) {
	p, err := paging.ReadKeyset(c, paging.ByID)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	l, err := h.svc.ListOrganizations(c.Request.Context(), internaltoken.CallerOf(c).UserID, p)
	httpx.Reply(c, http.StatusOK, l, err)
}

func (h *handlers) forEmailDomain(c *gin.Context) {
	orgs, err := h.svc.OrganizationsForEmailDomain(c.Request.Context(), internaltoken.CallerOf(c).UserID, c.Param("emailDomain"))
	httpx.Reply(c, http.StatusOK, gin.H{"organizations": orgs}, err)
}

func (h *handlers) get(c *gin.Context) {
	o, err := h.svc.GetOrganization(c.Request.Context(), internaltoken.CallerOf(c).UserID, orgID(c))
	httpx.Reply(c, http.StatusOK, o, err)
}

func (h *handlers) update(c *gin.Context) {
	var p organization.Patch
	if !httpx.Bind(c, &p) {
		return
	}
	o, err := h.svc.UpdateOrganization(c.Request.Context(), internaltoken.CallerOf(c).UserID, orgID(c), p)
	httpx.Reply(c, http.StatusOK, o, err)
}
