// Command kafka runs the embedded Kafka-protocol broker (franz-go's kfake,
// topics created on demand, its log in a temporary folder removed when it
// stops) alone, until interrupted:
// `make cluster`'s broker process.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/docspub/platform/libs/embedded"
)

func main() {
	port := flag.Int("port", 0, "listen port on 127.0.0.1 (0: a free one)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	k, err := embedded.StartKafka(*port)
	if err != nil {
		fmt.Fprintln(os.Stderr, "kafka:", err)
		os.Exit(1)
	}
	defer k.Close()
	fmt.Println(strings.Join(k.Brokers, ","))
	<-ctx.Done()
}
