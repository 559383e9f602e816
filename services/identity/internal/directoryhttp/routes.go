// Package directoryhttp is identity's HTTP API: the /v1 routes of
// organizations, members (e-mail invites included) and teams, and GET
// /v1/user (invite links are package invitehttp, SAML providers samlhttp,
// the gateway's token resolution tokenhttp). Every route requires the
// internal token; the caller is its user.
package directoryhttp

import (
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/services/identity/internal/directory"
	"github.com/gin-gonic/gin"
)

// Handlers serve the API over a directory service.
type Handlers struct {
	svc *directory.Service
}

// Register adds identity's routes to e behind internaltoken.Require(signer).
func Register(e *gin.Engine, svc *directory.Service, signer *internaltoken.Signer) {
	h := &Handlers{svc: svc}
	auth := internaltoken.Require(signer)

	v1 := e.Group("/v1", auth, internaltoken.RequireUser)
	v1.GET("/user", h.currentUser)
	v1.GET("/orgs", h.listOrganizations)
	v1.GET("/email-domains/:emailDomain/orgs", h.organizationsForEmailDomain)

	org := v1.Group("/orgs/:organizationId")
	org.GET("", h.getOrganization)
	org.PATCH("", h.updateOrganization)
	org.POST("/ping", h.ping)

	org.GET("/members", h.listMembers)
	org.GET("/members/:userId", h.getMember)
	org.PATCH("/members/:userId", h.updateMember)
	org.DELETE("/members/:userId", h.removeMember)
	org.POST("/members/:userId/sso", h.setSSOMember)
	org.GET("/members/:userId/teams", h.memberTeams)

	org.GET("/teams", h.listTeams)
	org.PUT("/teams", h.createTeam)
	org.GET("/teams/:teamId", h.getTeam)
	org.PATCH("/teams/:teamId", h.updateTeam)
	org.DELETE("/teams/:teamId", h.deleteTeam)
	org.GET("/teams/:teamId/members", h.listTeamMembers)
	org.PUT("/teams/:teamId/members", h.updateTeamMembers)
	org.PUT("/teams/:teamId/members/:userId", h.putTeamMember)
	org.DELETE("/teams/:teamId/members/:userId", h.removeTeamMember)

	org.POST("/invites", h.inviteUsers)
}

func user(c *gin.Context) string { return internaltoken.From(c).UserID }

func orgID(c *gin.Context) string { return c.Param("organizationId") }
