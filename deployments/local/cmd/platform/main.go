// Command platform runs the whole platform locally with embedded
// infrastructure: `make run`. Ctrl-C stops everything cleanly.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"

	local "github.com/docspub/platform/deployments/local"
	"github.com/docspub/platform/libs/config"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/otelx"
	"github.com/docspub/platform/libs/service"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "platform:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	var cfg local.Config
	if err := config.Load(ctx, &cfg); err != nil {
		return err
	}
	log := logx.New("platform", cfg.LogLevel)
	// OTEL_TRACES_*: none or stdout, for every in-process service; metrics
	// of every component (told apart by server_address) on ADMIN_ADDR
	// (defaultAdminAddr when unset, none when set empty).
	var tel service.Telemetry
	if err := config.Load(ctx, &tel); err != nil {
		return err
	}
	if _, set := os.LookupEnv("ADMIN_ADDR"); !set {
		tel.AdminAddr = defaultAdminAddr
	}
	shutdown, err := otelx.Setup(ctx, "platform", tel.Config)
	if err != nil {
		return err
	}
	defer func() { _ = shutdown(context.Background()) }()
	metrics, stopMetrics, err := otelx.Metrics("platform")
	if err != nil {
		return err
	}
	defer func() { _ = stopMetrics(context.Background()) }()
	if tel.AdminAddr != "" {
		if _, err := serveMetrics(ctx, tel.AdminAddr, metrics, log); err != nil {
			return err
		}
	}
	p, err := local.Start(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer p.Close()
	fmt.Fprintf(os.Stderr, "\nplatform ready at %s\n", p.URL)
	if p.Credentials.DocsURL != "" {
		fmt.Fprintf(os.Stderr, "its docs, published by the platform: %s\n", p.Credentials.DocsURL)
	}
	// The operator's commands (deployments/docs/operations/day-two.md) reach the embedded servers here.
	fmt.Fprintf(os.Stderr, "embedded servers, for the services' commands:\n  MONGO_URI=%s KAFKA_BROKERS=%s\n",
		p.MongoURI, strings.Join(p.Kafka.Brokers, ","))
	fmt.Fprintf(os.Stderr, "API reference: %s/v1/docs\ncredentials written to %s\n  set -a; . %s; set +a\n  curl -H \"Authorization: Bearer $DEMO_ADMIN_TOKEN\" $GATEWAY_URL/v1/orgs\n\n",
		p.URL, p.CredsPath, p.CredsPath)
	select {
	case <-ctx.Done():
		fmt.Fprintln(os.Stderr, "stopping…")
		return nil
	case err := <-p.Errors():
		return err
	}
}

// defaultAdminAddr is where make run serves metrics unless ADMIN_ADDR says.
const defaultAdminAddr = "127.0.0.1:9090"

// serveMetrics serves metrics on addr or, when that address is taken
// (Prometheus's own port, another platform), on another port of its host,
// which it reports; it returns the address served.
func serveMetrics(ctx context.Context, addr string, metrics http.Handler, log *slog.Logger) (string, error) {
	got, err := service.Admin(ctx, addr, metrics, log)
	if !errors.Is(err, syscall.EADDRINUSE) {
		return got, err
	}
	host, _, _ := net.SplitHostPort(addr)
	log.Warn("the metrics address is taken: serving metrics on another port", "addr", addr)
	return service.Admin(ctx, net.JoinHostPort(host, "0"), metrics, log)
}
