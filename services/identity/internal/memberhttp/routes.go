// Package memberhttp is the HTTP API of users and members: GET /v1/user,
// /v1/orgs/{organizationId}/members, e-mail invites (POST
// /v1/orgs/{organizationId}/invites) and ping. Every route requires the
// internal token; the caller is its user.
package memberhttp

import (
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/services/identity/internal/member"
	"github.com/gin-gonic/gin"
)

// Register adds the member routes to e behind internaltoken.Require(signer).
func Register(e *gin.Engine, svc *member.Service, signer *internaltoken.Signer) {
	h := &handlers{svc: svc}
	v1 := e.Group("/v1", internaltoken.Require(signer), internaltoken.RequireUser)
	v1.GET("/user", h.currentUser)

	org := v1.Group("/orgs/:organizationId")
	org.POST("/ping", h.ping)
	org.GET("/members", h.listMembers)
	org.GET("/members/:userId", h.getMember)
	org.PATCH("/members/:userId", h.updateMember)
	org.DELETE("/members/:userId", h.removeMember)
	org.POST("/members/:userId/sso", h.setSSOMember)
	org.POST("/invites", h.inviteUsers)
}

type handlers struct {
	svc *member.Service
}

func orgID(c *gin.Context) string { return c.Param("organizationId") }
