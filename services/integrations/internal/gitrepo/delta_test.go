package gitrepo

import (
	"bytes"
	"context"
	crand "crypto/rand"
	"fmt"
	"testing"

	"github.com/docspub/platform/libs/gittest"
)

// deltaRepo is 12 specs of 90 KB that Git stores as deltas of one
// another, then 12 MiB of images: more than a clone's cache of decoded
// objects, so the specs are read from the pack, not from that cache.
func deltaRepo() map[string][]byte {
	files := gittest.SimilarSpecs(7, 12, 90<<10)
	for i := range 12 {
		img := make([]byte, 1<<20)
		_, _ = crand.Read(img)
		files[fmt.Sprintf(".gitbook/assets/zz-image-%02d.png", i)] = img
	}
	return files
}

// TestCloneReadsLargeDeltasExactly: files above the threshold past which
// a clone streams objects, stored as deltas of one another, read back
// byte for byte (go-git's streamed delta reader loses its place in the
// base after a copy from behind it: such files came back with spliced
// words).
func TestCloneReadsLargeDeltasExactly(t *testing.T) {
	t.Parallel()
	srv := gittest.NewServer(t, "", "")
	files := deltaRepo()
	srv.NewRepo(t, "specs", "main", files)
	_, got, err := fetch(context.Background(), open, remote(t, srv.RepoURL("specs")), "refs/heads/main", lim, all)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range gittest.Paths(files) {
		if !bytes.Equal(got[p], files[p]) {
			t.Errorf("%s: %d bytes read, want %d, different bytes", p, len(got[p]), len(files[p]))
		}
	}
}

// TestExportKeepsLargeDeltasExactly: an export to a new branch checks out
// the branch it starts from and commits every file it did not write as
// it is: large files stored as deltas come back byte for byte.
func TestExportKeepsLargeDeltasExactly(t *testing.T) {
	t.Parallel()
	srv := gittest.NewServer(t, "", "")
	files := deltaRepo()
	srv.NewRepo(t, "specs", "main", files)
	write := func(fs Files) error { return fs.Write("README.md", []byte("# Specs\n")) }
	_, err := Push(context.Background(), open, remote(t, srv.RepoURL("specs")), Commit{Ref: "refs/heads/export",
		From: "refs/heads/main", Message: "export", Write: write}, lim)
	if err != nil {
		t.Fatal(err)
	}
	got := srv.Files(t, "specs", "refs/heads/export")
	for _, p := range gittest.Paths(files) {
		if !bytes.Equal(got[p], files[p]) {
			t.Errorf("%s: %d bytes pushed, want %d, different bytes", p, len(got[p]), len(files[p]))
		}
	}
}
