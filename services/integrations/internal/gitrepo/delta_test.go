package gitrepo

import (
	"bytes"
	"context"
	crand "crypto/rand"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/docspub/platform/libs/gittest"
)

// similarSpecs are n OpenAPI-like YAML files of about size bytes each,
// made of the same paragraphs in other orders with a few edits: what a
// repository of many specs holds, and what Git stores as deltas of one
// another, whose copies read the base out of order.
func similarSpecs(seed uint64, n, size int) map[string][]byte {
	rng := rand.New(rand.NewPCG(seed, 1))
	var paras [][]byte
	for total := 0; total < size; {
		p := fmt.Appendf(nil, "  /things/%d:\n    get:\n      summary: read thing %d\n      description: the property description of thing %d, %x\n",
			len(paras), len(paras), len(paras), rng.Uint64())
		paras = append(paras, p)
		total += len(p)
	}
	out := map[string][]byte{}
	for i := range n {
		// Sections of 40 paragraphs in another order, as an editor moves
		// whole operations around.
		sections := rng.Perm((len(paras) + 39) / 40)
		var b bytes.Buffer
		fmt.Fprintf(&b, "openapi: 3.0.0\ninfo:\n  title: spec %d\npaths:\n", i)
		for _, s := range sections {
			fmt.Fprintf(&b, "  # section %d of spec %d\n", s, i)
			for _, p := range paras[s*40 : min(len(paras), (s+1)*40)] {
				b.Write(p)
			}
		}
		out[fmt.Sprintf(".gitbook/assets/spec-%02d.yaml", i)] = b.Bytes()
	}
	return out
}

// TestCloneReadsLargeDeltasExactly: files above the threshold past which
// a clone streams objects, stored as deltas of one another, read back
// byte for byte (go-git's streamed delta reader loses its place in the
// base after a copy from behind it: such files came back with spliced
// words).
func TestCloneReadsLargeDeltasExactly(t *testing.T) {
	t.Parallel()
	srv := gittest.NewServer(t, "", "")
	files := similarSpecs(7, 12, 90<<10)
	// Images after them, more than a clone's cache of decoded objects:
	// the specs are read from the pack, not from that cache.
	for i := range 12 {
		img := make([]byte, 1<<20)
		_, _ = crand.Read(img)
		files[fmt.Sprintf(".gitbook/assets/zz-image-%02d.png", i)] = img
	}
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
	files := similarSpecs(7, 12, 90<<10)
	for i := range 12 {
		img := make([]byte, 1<<20)
		_, _ = crand.Read(img)
		files[fmt.Sprintf(".gitbook/assets/zz-image-%02d.png", i)] = img
	}
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
