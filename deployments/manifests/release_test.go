package manifests

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/docspub/platform/deployments/manifests/release"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// releaseComponent is the file make release writes.
const releaseComponent = "k8s/components/release/kustomization.yaml"

// sampleDigests is a digest list as make release gathers it, one line per
// component.
func sampleDigests(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("# component digest\n")
	for i, c := range components(t) {
		fmt.Fprintf(&b, "%s sha256:%064x\n", c.name, i+1)
	}
	return b.String()
}

// releaseDigests is the release component written from sampleDigests for
// ghcr.io/acme.
func releaseDigests(t *testing.T) ([]byte, error) {
	t.Helper()
	digests, err := release.ParseDigests(strings.NewReader(sampleDigests(t)))
	if err != nil {
		return nil, err
	}
	return release.Kustomization("ghcr.io/acme", "1.2.3", digests)
}

// buildInMemory renders overlay from an in-memory copy of k8s/ with the
// files of edits (by path from the root) replaced; no file on disk changes.
func buildInMemory(t *testing.T, overlay string, edits map[string][]byte) []runtime.Object {
	t.Helper()
	mem := filesys.MakeFsInMemory()
	err := filepath.WalkDir(filepath.Join(root, "k8s"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return mem.WriteFile("/"+filepath.ToSlash(rel), b)
	})
	if err != nil {
		t.Fatal(err)
	}
	for path, b := range edits {
		if err := mem.WriteFile("/"+path, b); err != nil {
			t.Fatal(err)
		}
	}
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(mem, "/"+overlay)
	if err != nil {
		t.Fatalf("kustomize build %s with %d files changed: %v", overlay, len(edits), err)
	}
	return decodeAll(t, overlay, m)
}

// TestReleasePinsEveryImageByDigest: the component make release writes
// from a digest list pins every container's image, init containers
// included, as <registry>/<component>@sha256:…, in prod and in each
// component's prod overlay built alone.
func TestReleasePinsEveryImageByDigest(t *testing.T) {
	digests, err := release.ParseDigests(strings.NewReader(sampleDigests(t)))
	if err != nil {
		t.Fatal(err)
	}
	component, err := releaseDigests(t)
	if err != nil {
		t.Fatal(err)
	}
	overlays := []string{"k8s/overlays/prod"}
	for _, c := range components(t) {
		overlays = append(overlays, "k8s/overlays/prod/"+c.name)
	}
	for _, overlay := range overlays {
		deployments := of[*appsv1.Deployment](index(buildInMemory(t, overlay, map[string][]byte{releaseComponent: component})))
		if len(deployments) == 0 {
			t.Errorf("%s: no Deployment", overlay)
		}
		for _, d := range deployments {
			pod := d.Spec.Template.Spec
			for _, c := range append(pod.InitContainers, pod.Containers...) {
				want := "ghcr.io/acme/" + d.Name + "@" + digests[d.Name]
				if c.Image != want {
					t.Errorf("%s: %s's container %s runs %s, want %s", overlay, d.Name, c.Name, c.Image, want)
				}
			}
		}
	}
}

func TestReleaseKustomization(t *testing.T) {
	d := map[string]string{"content": "sha256:" + strings.Repeat("a", 64)}
	for reg, want := range map[string]string{
		"ghcr.io/acme":                        "newName: ghcr.io/acme/content",
		"registry.example.com:5000/a/b/":      "newName: registry.example.com:5000/a/b/content",
		"docspub":                             "newName: docker.io/docspub/content",
		"localhost:5000":                      "newName: localhost:5000/content",
		"Bad Registry":                        "",
		"ghcr.io/acme/content:1.2.3":          "",
		"ghcr.io/acme@sha256:" + d["content"]: "",
	} {
		b, err := release.Kustomization(reg, "1.2.3", d)
		if got := string(b); (want == "") != (err != nil) || !strings.Contains(got, want) {
			t.Errorf("registry %q: %v\n%s\nwant %q", reg, err, got, want)
		}
	}
	if _, err := release.Kustomization("ghcr.io/acme", "1", map[string]string{"content": "sha256:abc"}); err == nil {
		t.Error("a short digest was written")
	}
	for _, list := range []string{"content sha256:abc\n", "content\n", "content " + d["content"] + "\ncontent " + d["content"] + "\n"} {
		if _, err := release.ParseDigests(strings.NewReader(list)); err == nil {
			t.Errorf("digest list %q parsed", list)
		}
	}
}

// buildArgLine matches the Makefile's BUILD_ARGS_<component> := … lines.
var buildArgLine = regexp.MustCompile(`(?m)^BUILD_ARGS_(\w+)\s*:=\s*(.*)$`)

// TestMakefileReleaseBuildArgs: make release builds each component with
// the arguments compose and skaffold pass.
func TestMakefileReleaseBuildArgs(t *testing.T) {
	lines := map[string]string{}
	for _, m := range buildArgLine.FindAllStringSubmatch(readFile(t, filepath.Join(root, "Makefile")), -1) {
		lines[m[1]] = strings.TrimSpace(m[2])
	}
	for _, c := range components(t) {
		args := c.buildArgs()
		delete(args, "COMPONENT")
		var want []string
		for _, k := range []string{"DIR", "ADDR_ENV", "PORT", "TOOLS"} {
			if v, ok := args[k]; ok {
				want = append(want, k+"="+v)
			}
		}
		if got := lines[c.name]; got != strings.Join(want, " ") {
			t.Errorf("Makefile BUILD_ARGS_%s := %s; want %s", c.name, got, strings.Join(want, " "))
		}
	}
}
