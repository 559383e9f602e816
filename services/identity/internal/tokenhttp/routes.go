// Package tokenhttp is the gateway-only resolution of API tokens:
// POST /internal/v1/tokens/resolve, behind the internal token.
package tokenhttp

import (
	"net/http"

	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internalapi/identityapi"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/services/identity/internal/token"
	"github.com/gin-gonic/gin"
)

// GatewayService is the Principal.Service allowed to resolve API tokens.
const GatewayService = identityapi.Gateway

// Register adds the token routes to e behind internaltoken.Require(signer),
// for the gateway alone (another caller's token is a 403).
func Register(e *gin.Engine, svc *token.Service, signer *internaltoken.Signer) {
	h := &handlers{svc: svc}
	e.POST(identityapi.ResolvePath, internaltoken.Require(signer), internaltoken.RequireService(GatewayService), h.resolve)
}

type handlers struct {
	svc *token.Service
}

func (h *handlers) resolve(c *gin.Context) {
	var req identityapi.ResolveRequest
	if !httpx.Bind(c, &req) {
		return
	}
	res, err := h.svc.Resolve(c.Request.Context(), req.Token)
	httpx.Reply(c, http.StatusOK, identityapi.Resolution{UserID: res.UserID, TokenID: res.TokenID, Roles: res.Roles}, err)
}
