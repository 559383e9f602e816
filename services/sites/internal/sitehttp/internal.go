package sitehttp

import (
	"net/http"

	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internalapi/sitesapi"
	"github.com/docspub/platform/services/sites/internal/site"
	"github.com/gin-gonic/gin"
)

// RegisterInternal adds the routes other services call under r, the
// /internal/v1 group behind the internal token of a service
// (sitesapi): GET /sites/{siteId} answers the live site's id and
// organization, 404 for none. Insights asks it for a site its projection
// of sites.events does not know yet.
func RegisterInternal(r gin.IRouter, svc *site.Service) {
	h := &Handlers{svc: svc}
	r.GET("/sites/:siteId", h.owner)
}

// RegisterGateway adds the route the gateway calls under r, the
// /internal/v1 group behind the gateway's internal token (sitesapi): GET
// /hostnames/{host} answers the live site that verified host (its id and
// organization), 404 for none. The gateway asks it before it obtains a TLS
// certificate for a custom hostname.
func RegisterGateway(r gin.IRouter, svc *site.Service) {
	h := &Handlers{svc: svc}
	r.GET("/hostnames/:host", h.verifiedHostname)
}

func (h *Handlers) verifiedHostname(c *gin.Context) {
	st, err := h.svc.VerifiedHostname(c.Request.Context(), c.Param("host"))
	httpx.Reply(c, http.StatusOK, sitesapi.Site{ID: st.ID, Organization: st.Organization}, err)
}

func (h *Handlers) owner(c *gin.Context) {
	st, err := h.svc.Owner(c.Request.Context(), c.Param("siteId"))
	httpx.Reply(c, http.StatusOK, sitesapi.Site{ID: st.ID, Organization: st.Organization}, err)
}
