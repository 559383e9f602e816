// Command sites serves the sites API: sites, sections, section groups, site
// spaces, share links and the published view.
package main

import (
	"github.com/docspub/platform/libs/service"
	"github.com/docspub/platform/services/sites"
)

func main() {
	service.Main("sites", sites.Run, func(c sites.Config) string { return c.LogLevel })
}
