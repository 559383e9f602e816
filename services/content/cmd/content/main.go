// Command content serves the content API: collections, spaces, comments and
// custom fields.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/docspub/platform/libs/config"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/services/content"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "content:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	var cfg content.Config
	if err := config.Load(ctx, &cfg); err != nil {
		return err
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	log := logx.New("content", cfg.LogLevel)
	if err := content.Run(ctx, cfg, log); err != nil {
		log.Error("content stopped", "err", err)
		return err
	}
	return nil
}
