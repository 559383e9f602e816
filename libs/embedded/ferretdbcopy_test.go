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

// patched are the files of ferretdb/ that are not upstream's (PATCH.md).
var patched = []string{
	"PATCH.md",
	"ferretdb/exact.go",
	"internal/backends/collection.go",
	"internal/backends/sqlite/collection.go",
	"internal/backends/sqlite/database.go",
	"internal/backends/sqlite/exact.go",
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
}

// The copy of FerretDB in ferretdb/ is upstream's v1.24.2 but for the
// patch: every other file is byte for byte the module's, as the Go module
// proxy serves it.
func TestCopyIsUpstreamAndThePatch(t *testing.T) {
	out, err := exec.Command("go", "mod", "download", "-json", "github.com/FerretDB/FerretDB@v1.24.2").Output()
	var mod struct{ Dir, Error string }
	if err != nil || json.Unmarshal(out, &mod) != nil || mod.Dir == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("download FerretDB v1.24.2: %v %s %s", err, out, mod.Error)
		}
		t.Skipf("FerretDB v1.24.2 cannot be downloaded here: %v %s", err, mod.Error)
	}
	var seen []string
	err = filepath.WalkDir("ferretdb", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel("ferretdb", path)
		ours, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		theirs, upstream := os.ReadFile(filepath.Join(mod.Dir, rel))
		switch {
		case slices.Contains(patched, filepath.ToSlash(rel)):
			seen = append(seen, filepath.ToSlash(rel))
			if upstream == nil && bytes.Equal(ours, theirs) {
				t.Errorf("%s is listed as patched but is upstream's", rel)
			}
		case upstream != nil:
			t.Errorf("%s is not in FerretDB v1.24.2 nor in the patch", rel)
		case !bytes.Equal(ours, theirs):
			t.Errorf("%s differs from FerretDB v1.24.2 but is not in the patch (PATCH.md)", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(seen)
	if !slices.Equal(seen, patched) {
		t.Errorf("patched files present = %q, want %q", seen, patched)
	}
}
