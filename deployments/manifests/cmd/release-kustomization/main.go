// Command release-kustomization writes the release component of `make
// release`: every component's image pinned by digest.
//
//	release-kustomization -registry ghcr.io/acme -version 1.2.3 \
//	  -metadata gateway=gateway.json -metadata content=content.json ... \
//	  -out k8s/components/release/kustomization.yaml
//
// -metadata names a component's `docker buildx build --metadata-file`;
// -digests instead reads a digest list ("<component> sha256:<hex>" a line).
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/docspub/platform/deployments/manifests/release"
)

type metadataFlag map[string]string

func (m metadataFlag) String() string { return fmt.Sprint(map[string]string(m)) }

func (m metadataFlag) Set(v string) error {
	c, file, ok := strings.Cut(v, "=")
	if !ok || c == "" || file == "" {
		return fmt.Errorf("%q, want <component>=<metadata file>", v)
	}
	m[c] = file
	return nil
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "release-kustomization:", err)
		os.Exit(1)
	}
}

func run() error {
	metadata := metadataFlag{}
	reg := flag.String("registry", "", "the registry and path the images were pushed to (ghcr.io/acme)")
	version := flag.String("version", "", "the release's version")
	list := flag.String("digests", "", "a digest list, instead of -metadata")
	out := flag.String("out", "k8s/components/release/kustomization.yaml", "the file to write")
	flag.Var(metadata, "metadata", "<component>=<buildx metadata file>, once per component")
	flag.Parse()
	digests := map[string]string{}
	if *list != "" {
		f, err := os.Open(*list)
		if err != nil {
			return err
		}
		defer f.Close()
		if digests, err = release.ParseDigests(f); err != nil {
			return fmt.Errorf("%s: %w", *list, err)
		}
	}
	for c, file := range metadata {
		d, err := release.MetadataDigest(file)
		if err != nil {
			return err
		}
		digests[c] = d
	}
	b, err := release.Kustomization(*reg, *version, digests)
	if err != nil {
		return err
	}
	return os.WriteFile(*out, b, 0o644)
}
