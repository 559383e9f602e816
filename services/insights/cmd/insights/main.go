// Command insights serves the site insights API: event ingest, aggregate
// queries and visitor segments.
//
// The operator's commands (libs/ops, deployments/docs/operations/day-two.md):
// `insights deadletters list|show|replay|drop`, `insights backup DIR`,
// `insights restore DIR [--replace]` and `insights check DIR`.
package main

import (
	"github.com/docspub/platform/libs/ops"
	"github.com/docspub/platform/libs/service"
	"github.com/docspub/platform/services/insights"
)

func main() {
	ops.Main(insights.Ops)
	service.Main("insights", insights.Run, func(c insights.Config) string { return c.LogLevel })
}
