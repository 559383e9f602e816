// Command integrations serves the integrations API: translation settings,
// OpenAPI specs and Git sync of spaces.
//
// The operator's commands (libs/ops, deployments/docs/operations/day-two.md):
// `integrations deadletters list|show|replay|drop`, `integrations backup DIR`,
// `integrations restore DIR [--replace]` and `integrations check DIR`.
package main

import (
	"github.com/docspub/platform/libs/ops"
	"github.com/docspub/platform/libs/service"
	"github.com/docspub/platform/services/integrations"
)

func main() {
	ops.Main(integrations.Ops)
	service.Main("integrations", integrations.Run, func(c integrations.Config) string { return c.LogLevel })
}
