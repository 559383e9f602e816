// Command integrations serves the integrations API: translation settings,
// OpenAPI specs and Git sync of spaces.
package main

import (
	"github.com/docspub/platform/libs/service"
	"github.com/docspub/platform/services/integrations"
)

func main() {
	service.Main("integrations", integrations.Run, func(c integrations.Config) string { return c.LogLevel })
}
