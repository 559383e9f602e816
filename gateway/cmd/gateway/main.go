// Command gateway serves the platform's public API: it authenticates bearer
// tokens, applies rate limits and forwards each request to the owning service.
package main

import (
	"context"
	"log/slog"

	"github.com/docspub/platform/gateway"
	"github.com/docspub/platform/libs/service"
)

func main() {
	service.Main("gateway", func(ctx context.Context, cfg gateway.Config, _ *slog.Logger) error {
		return gateway.Run(ctx, cfg)
	}, func(c gateway.Config) string { return c.LogLevel })
}
