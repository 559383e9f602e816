package embedded_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// copies are the modules this package builds from a copy of upstream's
// with a patch of ours (each folder's PATCH.md), and the files of each
// copy that are not upstream's.
var copies = []struct {
	dir, module string
	patched     []string
}{
	{"ferretdb", "github.com/FerretDB/FerretDB@v1.24.2", []string{
		"PATCH.md",
		"ferretdb/exact.go",
		"internal/backends/collection.go",
		"internal/backends/sqlite/collection.go",
		"internal/backends/sqlite/database.go",
		"internal/backends/sqlite/exact.go",
		"internal/backends/sqlite/insert.go",
		"internal/backends/sqlite/metadata/metadata.go",
		"internal/backends/sqlite/metadata/registry.go",
		"internal/backends/sqlite/metadata/settings.go",
		"internal/backends/sqlite/metadata/values.go",
		"internal/backends/sqlite/pushdown.go",
		"internal/handler/exact.go",
		"internal/handler/msg_aggregate.go",
		"internal/handler/msg_count.go",
		"internal/handler/msg_delete.go",
		"internal/handler/msg_find.go",
		"internal/handler/msg_findandmodify.go",
		"internal/handler/msg_update.go",
		"internal/handler/writelock.go",
		"internal/util/fsql/db.go",
		"internal/util/resource/resource.go",
	}},
	{"kfake", "github.com/twmb/franz-go/pkg/kfake@v0.0.0-20260918054303-01f206a7e32c", []string{
		"PATCH.md",
		"groups.go",
	}},
}

// Each copy is upstream's module but for its patch: every other file is
// byte for byte the module's, as the Go module proxy serves it.
func TestCopiesAreUpstreamAndThePatch(t *testing.T) {
	for _, c := range copies {
		t.Run(c.dir, func(t *testing.T) {
			out, err := exec.Command("go", "mod", "download", "-json", c.module).Output()
			var mod struct{ Dir, Error string }
			if err != nil || json.Unmarshal(out, &mod) != nil || mod.Dir == "" {
				if os.Getenv("CI") != "" {
					t.Fatalf("download %s: %v %s %s", c.module, err, out, mod.Error)
				}
				t.Skipf("%s cannot be downloaded here: %v %s", c.module, err, mod.Error)
			}
			seen, err := compareWithUpstream(t, c.dir, mod.Dir, c.patched)
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(seen)
			if !slices.Equal(seen, c.patched) {
				t.Errorf("patched files present = %q, want %q", seen, c.patched)
			}
		})
	}
}

// compareWithUpstream reports each file of dir that differs from the
// module's copy in upstream and is not listed in patched, and returns the
// patched files it found.
func compareWithUpstream(t *testing.T, dir, upstream string, patched []string) ([]string, error) {
	var seen []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		ours, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		theirs, missing := os.ReadFile(filepath.Join(upstream, rel))
		switch {
		case slices.Contains(patched, filepath.ToSlash(rel)):
			seen = append(seen, filepath.ToSlash(rel))
			if missing == nil && bytes.Equal(ours, theirs) {
				t.Errorf("%s is listed as patched but is upstream's", rel)
			}
		case missing != nil:
			t.Errorf("%s is not upstream's nor in the patch", rel)
		case !bytes.Equal(ours, theirs):
			t.Errorf("%s differs from upstream's but is not in the patch (PATCH.md)", rel)
		}
		return nil
	})
	return seen, err
}
