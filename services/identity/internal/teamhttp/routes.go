// Package teamhttp is the HTTP API of teams: /v1/orgs/{organizationId}/teams
// and a member's teams, GET /v1/orgs/{organizationId}/members/{userId}/teams.
// Every route requires the internal token; the caller is its user.
package teamhttp

import (
	"net/http"

	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/paging"
	"github.com/docspub/platform/services/identity/internal/team"
	"github.com/gin-gonic/gin"
)

// Register adds the team routes to e behind internaltoken.Require(signer).
func Register(e *gin.Engine, svc *team.Service, signer *internaltoken.Signer) {
	h := &handlers{svc: svc}
	org := e.Group("/v1/orgs/:organizationId", internaltoken.Require(signer), internaltoken.RequireUser)
	org.GET("/members/:userId/teams", h.memberTeams)
	org.GET("/teams", h.list)
	org.PUT("/teams", h.create)
	org.GET("/teams/:teamId", h.get)
	org.PATCH("/teams/:teamId", h.update)
	org.DELETE("/teams/:teamId", h.delete)
	org.GET("/teams/:teamId/members", h.listMembers)
	org.PUT("/teams/:teamId/members", h.updateMembers)
	org.PUT("/teams/:teamId/members/:userId", h.putMember)
	org.DELETE("/teams/:teamId/members/:userId", h.removeMember)
}

type handlers struct {
	svc *team.Service
}

func orgID(c *gin.Context) string { return c.Param("organizationId") }

func (h *handlers) memberTeams(c *gin.Context) {
	p, err := paging.ReadKeyset(c, paging.ByID)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	l, err := h.svc.MemberTeams(c.Request.Context(), internaltoken.CallerOf(c).UserID, orgID(c), c.Param("userId"), c.Query("title"), p)
	httpx.Reply(c, http.StatusOK, l, err)
}

func (h *handlers) list(c *gin.Context) {
	p, err := paging.ReadKeyset(c, paging.ByID)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	f := team.Filter{Owner: c.Query("owner"), Title: c.Query("title")}
	l, err := h.svc.ListTeams(c.Request.Context(), internaltoken.CallerOf(c).UserID, orgID(c), f, p)
	httpx.Reply(c, http.StatusOK, l, err)
}

func (h *handlers) create(c *gin.Context) {
	var in team.Input
	if !httpx.Bind(c, &in) {
		return
	}
	t, err := h.svc.CreateTeam(c.Request.Context(), internaltoken.CallerOf(c).UserID, orgID(c), in)
	httpx.Reply(c, http.StatusCreated, t, err)
}

func (h *handlers) get(c *gin.Context) {
	t, err := h.svc.GetTeam(c.Request.Context(), internaltoken.CallerOf(c).UserID, orgID(c), c.Param("teamId"))
	httpx.Reply(c, http.StatusOK, t, err)
}

func (h *handlers) update(c *gin.Context) {
	var in team.Input
	if !httpx.Bind(c, &in) {
		return
	}
	t, err := h.svc.UpdateTeam(c.Request.Context(), internaltoken.CallerOf(c).UserID, orgID(c), c.Param("teamId"), in)
	httpx.Reply(c, http.StatusOK, t, err)
}

func (h *handlers) delete(c *gin.Context) {
	err := h.svc.DeleteTeam(c.Request.Context(), internaltoken.CallerOf(c).UserID, orgID(c), c.Param("teamId"))
	httpx.Empty(c, http.StatusNoContent, err)
}

func (h *handlers) listMembers(c *gin.Context) {
	p, err := paging.ReadKeyset(c, paging.ByID)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	l, err := h.svc.ListTeamMembers(c.Request.Context(), internaltoken.CallerOf(c).UserID, orgID(c), c.Param("teamId"), p)
	httpx.Reply(c, http.StatusOK, l, err)
}

func (h *handlers) updateMembers(c *gin.Context) {
	var in team.MembersUpdate
	if !httpx.Bind(c, &in) {
		return
	}
	err := h.svc.UpdateTeamMembers(c.Request.Context(), internaltoken.CallerOf(c).UserID, orgID(c), c.Param("teamId"), in)
	httpx.Empty(c, http.StatusNoContent, err)
}

type memberInput struct {
	Role *string `json:"role"`
}

func (h *handlers) putMember(c *gin.Context) {
	var in memberInput
	if !httpx.BindOptional(c, &in) {
		return
	}
	err := h.svc.PutTeamMember(c.Request.Context(), internaltoken.CallerOf(c).UserID, orgID(c), c.Param("teamId"), c.Param("userId"), in.Role)
	httpx.Empty(c, http.StatusNoContent, err)
}

func (h *handlers) removeMember(c *gin.Context) {
	err := h.svc.RemoveTeamMember(c.Request.Context(), internaltoken.CallerOf(c).UserID, orgID(c), c.Param("teamId"), c.Param("userId"))
	httpx.Empty(c, http.StatusNoContent, err)
}
