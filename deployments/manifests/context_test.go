package manifests

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
)

// workspaceModules returns the module directories go.work uses.
func workspaceModules(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "go.work"))
	if err != nil {
		t.Fatal(err)
	}
	wf, err := modfile.ParseWork("go.work", b, nil)
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, u := range wf.Use {
		dirs = append(dirs, strings.TrimPrefix(filepath.ToSlash(u.Path), "./"))
	}
	return dirs
}

// checkContext: the build stage's COPY instructions (their sources, with
// the component's build arguments substituted) copy every workspace
// module's go.mod and go.sum (go.work needs them), and of the sources only
// libs and the component's own directory, so that a change of another
// component does not rebuild this image.
func checkContext(t *testing.T, c component, copied map[string][]string) {
	t.Helper()
	var sources []string
	manifests := map[string]bool{}
	for _, srcs := range copied {
		for _, src := range srcs {
			switch {
			case src == "go.work" || src == "go.work.sum":
			case strings.HasSuffix(src, "/go.mod") || strings.HasSuffix(src, "/go.sum"):
				manifests[src] = true
			default:
				sources = append(sources, strings.TrimSuffix(src, "/"))
			}
		}
	}
	for _, m := range workspaceModules(t) {
		for _, f := range []string{m + "/go.mod", m + "/go.sum"} {
			if !manifests[f] {
				t.Errorf("the build does not copy %s (go.work uses %s)", f, m)
			}
		}
	}
	slices.Sort(sources)
	want := []string{c.dir, "libs"}
	slices.Sort(want)
	if !slices.Equal(sources, want) {
		t.Errorf("the build copies %v; want only %v (one component's change rebuilds one image)", sources, want)
	}
}
