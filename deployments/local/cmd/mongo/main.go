// Command mongo runs the embedded MongoDB protocol server (FerretDB on
// SQLite files) alone, until interrupted. `make race` starts it, built
// without the race detector, and points the race suites at it
// (MONGOTEST_URI), so that the detector watches the services' code and not
// the database's.
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
	dir := flag.String("dir", "", "directory of the SQLite files (empty: a temporary one, removed on exit)")
	uriFile := flag.String("uri-file", "", "file to write the server's URI to once it listens")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv, err := embedded.StartMongo(*dir, *addr, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mongo:", err)
		os.Exit(1)
	}
	defer srv.Close()
	if *uriFile != "" {
		if err := os.WriteFile(*uriFile, []byte(srv.URI), 0o600); err != nil {
			fmt.Fprintln(os.Stderr, "mongo:", err)
			os.Exit(1)
		}
	} else {
		fmt.Println(srv.URI)
	}
	<-ctx.Done()
}
