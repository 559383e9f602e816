// Command redis runs the embedded Redis-protocol server (miniredis, its
// data in memory) alone, until interrupted: `make cluster`'s Redis.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/docspub/platform/libs/embedded"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address (port 0: a free one)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	r, err := embedded.StartRedis(*addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "redis:", err)
		os.Exit(1)
	}
	defer r.Close()
	fmt.Println(r.Addr())
	<-ctx.Done()
}
