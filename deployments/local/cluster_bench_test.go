package local

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/consultest"
	"github.com/docspub/platform/libs/gittest"
	"github.com/docspub/platform/libs/logx"
)

// BenchmarkClusterVersusRun is `make bench-cluster`: `GET /v1/spaces/{id}`
// and a published page (a ~40-page GitBook space) through the two-gateway
// cluster of processes (2 replicas of every service, Consul, the entry
// spreading connections) and through make run's one process, in one run:
// requests/s and p50 at 32 connections, one target at a time.
//
//	go test -run '^$' -bench ClusterVersusRun -benchtime 1x -timeout 20m ./deployments/local/
func BenchmarkClusterVersusRun(b *testing.B) {
	consul := consultest.Binary(b)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	p, err := Start(ctx, Config{Addr: "127.0.0.1:0", DataDir: b.TempDir(), LogLevel: "error", RateLimit: 0,
		OutboundAllowPrivate: true}, logx.Discard())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(p.Close)
	c, err := StartCluster(ctx, ClusterConfig{Addr: "127.0.0.1:0", DataDir: b.TempDir(), LogLevel: "error", RateLimit: 0,
		Replicas: 2, Gateways: 2, ConsulBin: consul, Repo: "../..", OutboundAllowPrivate: true}, logx.Discard())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	srv := gittest.NewServer(b, "", "")
	type platform struct {
		name, url, token, org string
		space, page           string
	}
	platforms := []*platform{
		{name: "make run", url: p.URL, token: p.Credentials.DemoAdminToken, org: p.Credentials.DemoOrgID},
		{name: "cluster", url: c.URL, token: c.Credentials.DemoAdminToken, org: c.Credentials.DemoOrgID},
	}
	for _, pl := range platforms {
		h := publishHandbook(b, client{base: pl.url, token: pl.token}, pl.org, srv, 30)
		pl.space, pl.page = h.space, h.page
	}
	seconds := time.Duration(envInt("BENCH_HTTP_SECONDS", 3)) * time.Second
	b.ResetTimer()
	var out strings.Builder
	fmt.Fprintf(&out, "\n32 connections, %s each, one target at a time.\n\n| target | make run: requests/s, p50 | cluster: requests/s, p50 | cluster/make run |\n|---|---|---|---|\n", seconds)
	for _, row := range []struct {
		name   string
		target func(*platform) target
	}{
		{"`GET /v1/spaces/{id}`", func(pl *platform) target {
			return target{url: pl.url + "/v1/spaces/" + pl.space, auth: "Bearer " + pl.token}
		}},
		{"published page, no token", func(pl *platform) target { return target{url: pl.page} }},
	} {
		var rps [2]float64
		var p50 [2]time.Duration
		for i, pl := range platforms {
			tg := row.target(pl)
			fetch(b, http.DefaultClient, tg)
			rps[i], p50[i], _, _ = load(b, tg, 32, seconds)
		}
		fmt.Fprintf(&out, "| %s | %.0f, %s | %.0f, %s | %.2f× |\n", row.name, rps[0], ms(p50[0]), rps[1], ms(p50[1]), rps[1]/rps[0])
	}
	b.StopTimer()
	fmt.Print(out.String())
}
