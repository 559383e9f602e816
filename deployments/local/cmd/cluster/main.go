// Command cluster runs the platform as the distributed system it is
// deployed as, on one machine: `make cluster`. The real binaries of every
// component as separate processes (CLUSTER_REPLICAS of every service,
// CLUSTER_GATEWAYS gateways) share one embedded MongoDB-protocol server
// process, one Kafka-protocol broker process and Redis, find each other
// through a Consul agent (CONSUL_BIN) and are reached at one entry (ADDR)
// that spreads connections over the gateways. A process that exits is
// started again; $DATA_DIR/cluster.json lists them. <COMPONENT>_BIN
// (CONTENT_BIN, GATEWAY_BIN, …) runs a given binary instead of building
// it. Ctrl-C stops everything.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	local "github.com/docspub/platform/deployments/local"
	"github.com/docspub/platform/libs/config"
	"github.com/docspub/platform/libs/logx"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "cluster:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	var cfg local.ClusterConfig
	if err := config.Load(ctx, &cfg); err != nil {
		return err
	}
	cfg.Binaries = map[string]string{}
	for _, c := range local.ClusterComponents {
		cfg.Binaries[c.Name] = os.Getenv(strings.ToUpper(c.Name) + "_BIN")
	}
	log := logx.New("cluster", cfg.LogLevel)
	c, err := local.StartCluster(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer c.Close()
	fmt.Fprintf(os.Stderr, "\ncluster ready at %s: %d processes in %s, their logs in %s/logs\ncredentials written to %s\n  set -a; . %s; set +a\n  curl -H \"Authorization: Bearer $DEMO_ADMIN_TOKEN\" $GATEWAY_URL/v1/orgs\n\n",
		c.URL, len(c.Processes()), c.StatePath, c.Dir, c.CredsPath, c.CredsPath)
	<-ctx.Done()
	fmt.Fprintln(os.Stderr, "stopping…")
	return nil
}
