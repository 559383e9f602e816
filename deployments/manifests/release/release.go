// Package release writes the kustomize component that pins every
// component's image by the digest its registry returned (`make release`):
// k8s/components/release/kustomization.yaml, which the prod overlays list
// before their settings.
package release

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
)

// digest is an image manifest's content digest.
var digest = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// registry is a registry and repository path without tag or digest
// (ghcr.io/acme, registry.example.com:5000/docspub).
var registry = regexp.MustCompile(`^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]+)?(/[a-z0-9]+([._-][a-z0-9]+)*)*$`)

// ParseDigests reads a digest list: one "<component> sha256:<hex>" a line;
// blank lines and lines starting with # are skipped.
func ParseDigests(r io.Reader) (map[string]string, error) {
	out := map[string]string{}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 || !digest.MatchString(f[1]) {
			return nil, fmt.Errorf("line %d: %q, want <component> sha256:<64 hex digits>", n, line)
		}
		if _, dup := out[f[0]]; dup {
			return nil, fmt.Errorf("line %d: %s listed twice", n, f[0])
		}
		out[f[0]] = f[1]
	}
	return out, sc.Err()
}

// MetadataDigest reads the digest of the image pushed by `docker buildx
// build --push --metadata-file file`.
func MetadataDigest(file string) (string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	var m struct {
		Digest string `json:"containerimage.digest"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return "", fmt.Errorf("%s: %w", file, err)
	}
	if !digest.MatchString(m.Digest) {
		return "", fmt.Errorf("%s: containerimage.digest %q is no sha256 digest", file, m.Digest)
	}
	return m.Digest, nil
}

// Kustomization renders the release component: each component's image
// docspub/<component> becomes <reg>/<component>@<digest>. A registry
// without a host (docspub) is Docker Hub's, written out (docker.io/docspub),
// so that no environment's image setting (docspub/<component>:<tag>)
// matches the pinned name again.
func Kustomization(reg, version string, digests map[string]string) ([]byte, error) {
	reg = strings.TrimSuffix(reg, "/")
	if !registry.MatchString(reg) {
		return nil, fmt.Errorf("registry %q, want a host and path such as ghcr.io/acme", reg)
	}
	if host, _, _ := strings.Cut(reg, "/"); !strings.ContainsAny(host, ".:") && host != "localhost" {
		reg = "docker.io/" + reg
	}
	if len(digests) == 0 {
		return nil, fmt.Errorf("no digest")
	}
	names := slices.Sorted(maps.Keys(digests))
	var b strings.Builder
	fmt.Fprintf(&b, "# Written by `make release` (deployments/manifests/release): release %s,\n", version)
	b.WriteString("# every component's image pinned by the digest its registry returned.\n")
	b.WriteString("apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nimages:\n")
	for _, n := range names {
		if !digest.MatchString(digests[n]) {
			return nil, fmt.Errorf("%s: %q is no sha256 digest", n, digests[n])
		}
		fmt.Fprintf(&b, "  - name: docspub/%s\n    newName: %s/%s\n    digest: %s\n", n, reg, n, digests[n])
	}
	return []byte(b.String()), nil
}
