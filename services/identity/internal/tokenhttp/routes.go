// Package tokenhttp is the gateway-only resolution of API tokens:
// POST /internal/v1/tokens/resolve, behind the internal token.
package tokenhttp

import (
	"net/http"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/services/identity/internal/token"
	"github.com/gin-gonic/gin"
)

// GatewayService is the Principal.Service allowed to resolve API tokens.
const GatewayService = "gateway"

// Register adds the token routes to e behind internaltoken.Require(signer).
func Register(e *gin.Engine, svc *token.Service, signer *internaltoken.Signer) {
	h := &handlers{svc: svc}
	e.Group("/internal/v1", internaltoken.Require(signer)).POST("/tokens/resolve", h.resolve)
}

type handlers struct {
	svc *token.Service
}

type resolveRequest struct {
	Token string `json:"token"`
}

func (h *handlers) resolve(c *gin.Context) {
	if internaltoken.From(c).Service != GatewayService {
		httpx.Error(c, apierr.Forbidden("only the gateway may resolve tokens"))
		return
	}
	var req resolveRequest
	if !httpx.Bind(c, &req) {
		return
	}
	res, err := h.svc.Resolve(c.Request.Context(), req.Token)
	httpx.Reply(c, http.StatusOK, res, err)
}
