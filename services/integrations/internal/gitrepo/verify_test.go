package gitrepo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docspub/platform/libs/gittest"
	"github.com/go-git/go-billy/v5/util"
	"github.com/go-git/go-git/v5/plumbing"
)

// TestExportRefusesFilesChangedInTheWorktree: a file of the clone that
// changed although the export did not write it (a checkout gone wrong),
// or whose bytes changed after the export wrote them, fails the push
// naming the file; the branch does not move.
func TestExportRefusesFilesChangedInTheWorktree(t *testing.T) {
	t.Parallel()
	srv := gittest.NewServer(t, "", "")
	head := srv.NewRepo(t, "docs", "main", map[string][]byte{"README.md": []byte("# Docs\n"), "a/spec.yaml": []byte("openapi: 3.0.0\n")})
	for name, write := range map[string]func(fs Files) error{
		"a/spec.yaml": func(fs Files) error {
			// The clone's file changes under the export.
			return util.WriteFile(fs.(*worktree).fs, "a/spec.yaml", []byte("openapi: 3.1.0\n"), 0o644)
		},
		"b/new.md": func(fs Files) error {
			if err := fs.Write("b/new.md", []byte("# New\n")); err != nil {
				return err
			}
			return util.WriteFile(fs.(*worktree).fs, "b/new.md", []byte("# Changed\n"), 0o644)
		},
	} {
		_, err := Push(context.Background(), open, remote(t, srv.RepoURL("docs")), Commit{Ref: "refs/heads/main", Base: head,
			Message: "export", Write: write}, lim)
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: push error %v, want ErrCorrupt naming it", name, err)
		}
		if got := srv.Head(t, "docs", "refs/heads/main"); got != head {
			t.Errorf("%s: the branch moved to %s", name, got)
		}
	}
}

// TestPackRefusesAChangedObject: a staged blob whose bytes changed on disk
// before the push is not sent: the pack fails naming its file.
func TestPackRefusesAChangedObject(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st, _ := newStorage(filepath.Join(dir, ".git"), lim.withDefaults())
	raw, err := newRawBlobs(st, filepath.Join(dir, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	o := &plumbing.MemoryObject{}
	o.SetType(plumbing.BlobObject)
	_, _ = o.Write([]byte("paths:\n  /things:\n    description: the property description\n"))
	h, err := raw.SetEncodedObject(o)
	if err != nil {
		t.Fatal(err)
	}
	p := &pack{store: raw, hashes: []plumbing.Hash{h}, names: map[plumbing.Hash]string{h: "spec.yaml"}}
	if err := p.write(&countWriter{}); err != nil {
		t.Fatalf("an intact object: %v", err)
	}
	path := filepath.Join(dir, "blobs", h.String())
	b, _ := os.ReadFile(path)
	b[20] ^= 1
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := p.write(&countWriter{}); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "spec.yaml") {
		t.Fatalf("a changed object: %v, want ErrCorrupt naming spec.yaml", err)
	}
}
