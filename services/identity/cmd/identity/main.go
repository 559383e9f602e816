// Command identity serves the identity API: organizations, members, teams,
// invites, SAML providers and API token resolution.
//
// The operator's commands (libs/ops, deployments/docs/operations/day-two.md):
// `identity deadletters list|show|replay|drop`, `identity backup DIR`,
// `identity restore DIR [--replace]` and `identity check DIR`.
package main

import (
	"github.com/docspub/platform/libs/ops"
	"github.com/docspub/platform/libs/service"
	"github.com/docspub/platform/services/identity"
)

func main() {
	ops.Main(identity.Ops)
	service.Main("identity", identity.Run, func(c identity.Config) string { return c.LogLevel })
}
