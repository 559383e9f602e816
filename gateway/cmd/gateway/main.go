// Command gateway serves the platform's public API: it authenticates bearer
// tokens, applies rate limits and forwards each request to the owning service.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/docspub/platform/gateway"
	"github.com/docspub/platform/libs/config"
	"github.com/docspub/platform/libs/logx"
)

func main() {
	log := logx.New("gateway", os.Getenv("LOG_LEVEL"))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx); err != nil {
		log.Error("gateway stopped", "err", err)
		stop()
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	var cfg gateway.Config
	if err := config.Load(ctx, &cfg); err != nil {
		return err
	}
	return gateway.Run(ctx, cfg)
}
