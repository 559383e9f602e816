//go:build ignore

// Command generate bundles the API document's sources (src/) into
// openapi.json: run `go generate ./apidoc` in libs after editing them.
package main

import (
	"log"
	"os"

	"github.com/docspub/platform/libs/apidoc/internal/bundle"
)

func main() {
	b, err := bundle.Bundle(os.DirFS("src"))
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile("openapi.json", b, 0o644); err != nil {
		log.Fatal(err)
	}
}
