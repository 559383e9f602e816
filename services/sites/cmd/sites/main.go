// Command sites serves the sites API: sites, sections, section groups, site
// spaces, share links and the published view.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/docspub/platform/libs/config"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/services/sites"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "sites:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	var cfg sites.Config
	if err := config.Load(ctx, &cfg); err != nil {
		return err
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	log := logx.New("sites", cfg.LogLevel)
	if err := sites.Run(ctx, cfg, log); err != nil {
		log.Error("sites stopped", "err", err)
		return err
	}
	return nil
}
