// Command content serves the content API: collections, spaces, comments and
// custom fields. `content migrate [--destructive]` applies the pending
// migration steps of its database and exits (run before serving: the
// init container in Kubernetes, a one-shot service in compose); the
// destructive ones only with --destructive, one release after the steps
// that copied their data.
//
// The operator's commands (libs/ops, deployments/docs/operations/day-two.md):
// `content deadletters list|show|replay|drop`, `content backup DIR`,
// `content restore DIR [--replace]` and `content check DIR`.
package main

import (
	"context"
	"flag"
	"fmt"
	"github.com/docspub/platform/libs/ops"
	"log/slog"
	"os"

	"github.com/docspub/platform/libs/service"
	"github.com/docspub/platform/services/content"
)

func main() {
	ops.Main(content.Ops)
	level := func(c content.Config) string { return c.LogLevel }
	if len(os.Args) > 1 && os.Args[1] == "migrate" {
		fs := flag.NewFlagSet("content migrate", flag.ExitOnError)
		destructive := fs.Bool("destructive", false, "also apply the destructive steps (once no replica of the previous release runs)")
		_ = fs.Parse(os.Args[2:])
		// A one-shot serves no metrics (run beside the service, as by
		// `kubectl exec`, its port is taken).
		_ = os.Unsetenv("ADMIN_ADDR")
		service.Main("content", func(ctx context.Context, cfg content.MigrateConfig, log *slog.Logger) error {
			applied, err := content.Migrate(ctx, cfg, log, *destructive)
			if err == nil {
				fmt.Fprintf(os.Stdout, "content migrate: applied %v\n", applied)
			}
			return err
		}, func(c content.MigrateConfig) string { return c.LogLevel })
		return
	}
	service.Main("content", content.Run, level)
}
