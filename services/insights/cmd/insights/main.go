// Command insights serves the site insights API: event ingest, aggregate
// queries and visitor segments.
package main

import (
	"github.com/docspub/platform/libs/service"
	"github.com/docspub/platform/services/insights"
)

func main() {
	service.Main("insights", insights.Run, func(c insights.Config) string { return c.LogLevel })
}
