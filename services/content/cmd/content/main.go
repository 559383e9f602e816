// Command content serves the content API: collections, spaces, comments and
// custom fields.
package main

import (
	"github.com/docspub/platform/libs/service"
	"github.com/docspub/platform/services/content"
)

func main() {
	service.Main("content", content.Run, func(c content.Config) string { return c.LogLevel })
}
