// Command mongo runs the embedded MongoDB protocol server (FerretDB on
// SQLite files) alone, until interrupted: `make cluster`'s database
// process, shared by every replica. `make race` starts it, built
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
	readURIFile := flag.String("read-uri-file", "", "file to write the server's URI for reads to (a pool of its own beside the writers')")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv, err := embedded.StartMongo(*dir, *addr, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mongo:", err)
		os.Exit(1)
	}
	defer srv.Close()
	if *uriFile == "" {
		fmt.Println(srv.URI)
	}
	// The read URI first: a reader of the URI file finds both.
	for _, f := range []struct{ path, uri string }{{*readURIFile, srv.ReadURI}, {*uriFile, srv.URI}} {
		if f.path == "" {
			continue
		}
		if err := os.WriteFile(f.path, []byte(f.uri), 0o600); err != nil {
			fmt.Fprintln(os.Stderr, "mongo:", err)
			os.Exit(1)
		}
	}
	<-ctx.Done()
}
