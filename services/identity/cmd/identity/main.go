// Command identity serves the identity API: organizations, members, teams,
// invites, SAML providers and API token resolution.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/docspub/platform/libs/config"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/services/identity"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "identity:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	var cfg identity.Config
	if err := config.Load(ctx, &cfg); err != nil {
		return err
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	log := logx.New("identity", cfg.LogLevel)
	if err := identity.Run(ctx, cfg, log); err != nil {
		log.Error("identity stopped", "err", err)
		return err
	}
	return nil
}
