// Command sites serves the sites API: sites, sections, section groups, site
// spaces, share links and the published view.
//
// The operator's commands (libs/ops, deployments/docs/operations/day-two.md):
// `sites deadletters list|show|replay|drop`, `sites backup DIR`,
// `sites restore DIR [--replace]` and `sites check DIR`.
package main

import (
	"github.com/docspub/platform/libs/ops"
	"github.com/docspub/platform/libs/service"
	"github.com/docspub/platform/services/sites"
)

func main() {
	ops.Main(sites.Ops)
	service.Main("sites", sites.Run, func(c sites.Config) string { return c.LogLevel })
}
