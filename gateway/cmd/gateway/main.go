// Command gateway serves the platform's public API: it authenticates bearer
// tokens, applies rate limits, forwards each request to the owning service,
// and consumes identity.events to drop revoked tokens from its cache.
package main

import (
	"github.com/docspub/platform/gateway"
	"github.com/docspub/platform/libs/service"
)

func main() {
	service.Main(gateway.Service, gateway.Run, func(c gateway.Config) string { return c.LogLevel })
}
