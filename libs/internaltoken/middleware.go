package internaltoken

import (
	"github.com/docspub/platform/libs/roles"
	"slices"
	"strings"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/httpx"
	"github.com/gin-gonic/gin"
)

const ctxKey = "internaltoken.principal"

// Require is gin middleware that refuses requests without a valid internal
// token for s's service (401: missing, forged, expired, or minted for another
// service) and stores the principal for From.
func Require(s *Signer) gin.HandlerFunc {
	return func(c *gin.Context) {
		p, err := s.Verify(c.GetHeader(Header))
		if err != nil {
			httpx.Error(c, apierr.Unauthorized("missing or invalid internal token"))
			return
		}
		c.Set(ctxKey, p)
		c.Next()
	}
}

// From returns the principal stored by Require.
func From(c *gin.Context) Principal {
	p, _ := c.Get(ctxKey)
	pr, _ := p.(Principal)
	return pr
}

// RequireUser refuses, after Require, calls that do not act for a user.
func RequireUser(c *gin.Context) {
	if From(c).UserID == "" {
		httpx.Error(c, apierr.Unauthorized("this operation needs a user"))
		return
	}
	c.Next()
}

// RequireService refuses, after Require, calls that do not come from a
// platform service alone (a token with a service name and no user), or,
// when names are given, from another service than those.
func RequireService(names ...string) gin.HandlerFunc {
	return func(c *gin.Context) {
		p := From(c)
		if p.Service == "" || p.UserID != "" || (len(names) > 0 && !slices.Contains(names, p.Service)) {
			httpx.Error(c, apierr.Forbidden("this operation is for platform services"))
			return
		}
		c.Next()
	}
}

// CallerOf is the user a request acts for, behind Require.
func CallerOf(c *gin.Context) roles.Caller {
	p := From(c)
	return roles.Caller{UserID: p.UserID, Roles: p.Roles}
}

// RequireUserOf refuses, after Require, calls that do not act for a user
// through one of the named services (a token a service minted with the
// user's id and roles): another caller is a 403, a service's token without
// a user a 401.
func RequireUserOf(services ...string) gin.HandlerFunc {
	return func(c *gin.Context) {
		p := From(c)
		if !slices.Contains(services, p.Service) {
			httpx.Error(c, apierr.Forbidden("this operation is for the %s service", strings.Join(services, ", ")))
			return
		}
		if p.UserID == "" {
			httpx.Error(c, apierr.Unauthorized("this operation needs a user"))
			return
		}
		c.Next()
	}
}
