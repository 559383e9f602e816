package gateway

import (
	"net"
	"time"

	"github.com/docspub/platform/libs/httpx"
	"github.com/gin-gonic/gin"
)

// proxyHeaderTimeout bounds the wait for a PROXY protocol header: a
// connection that sends nothing for that long is taken as one without.
const proxyHeaderTimeout = 5 * time.Second

// identifyClient derives the request's client address once (clientip,
// as TRUSTED_PROXIES or TRUSTED_HOPS decide it) for every use: the rate
// limits, the failed-auth limit, insights, the X-Forwarded-For services
// receive, and the access log line.
func (g *Gateway) identifyClient(c *gin.Context) {
	c.Set(httpx.ClientKey, g.clients.Client(c.Request))
	c.Next()
}

// clientOf is the request's client address (identifyClient).
func clientOf(c *gin.Context) string { return c.GetString(httpx.ClientKey) }

// Listener wraps ln as the gateway serves it: with PROXY_PROTOCOL, a
// trusted proxy's connection may open with a PROXY header (v1 or v2) that
// names the client, and anyone else's that does is closed (clientip);
// without, ln itself.
func (g *Gateway) Listener(ln net.Listener) net.Listener {
	if !g.cfg.ProxyProtocol {
		return ln
	}
	return g.clients.Listener(ln, proxyHeaderTimeout)
}
