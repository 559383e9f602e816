// Command identity serves the identity API: organizations, members, teams,
// invites, SAML providers and API token resolution.
package main

import (
	"github.com/docspub/platform/libs/service"
	"github.com/docspub/platform/services/identity"
)

func main() {
	service.Main("identity", identity.Run, func(c identity.Config) string { return c.LogLevel })
}
