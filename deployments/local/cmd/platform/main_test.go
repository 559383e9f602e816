package main

import (
	"context"
	"net"
	"net/http"
	"testing"

	"github.com/docspub/platform/libs/logx"
)

// TestMetricsAddressTaken: a taken metrics port is not fatal: metrics are
// served on another port of the same host, reported.
func TestMetricsAddressTaken(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	metrics := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("up 1\n")) })
	addr, err := serveMetrics(ctx, taken.Addr().String(), metrics, logx.New("test", "error"))
	if err != nil {
		t.Fatalf("serveMetrics on a taken port: %v", err)
	}
	if addr == taken.Addr().String() {
		t.Fatalf("served on the taken address %s", addr)
	}
	res, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics on %s: %d", addr, res.StatusCode)
	}
	if _, err := serveMetrics(ctx, "256.0.0.1:1", metrics, logx.New("test", "error")); err == nil {
		t.Fatal("an address that cannot be listened on is an error")
	}
}
