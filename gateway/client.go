package gateway

import (
	"net"
	"time"
)

// proxyHeaderTimeout bounds the wait for a PROXY protocol header: a
// connection that sends nothing for that long is taken as one without.
const proxyHeaderTimeout = 5 * time.Second

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
