package local

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/gittest"
)

// largeRepoFiles is a GitBook repository of about 157 MB in 620 files,
// more than two of an export's 64 MiB streams and ten of an import's
// 15 MiB batches: a few pages, 12 images of about the largest size a file
// may have (10 MiB, one byte less, a bit less), 40 OpenAPI specs of
// about 85 KB that Git stores as deltas of one another (sections in other
// orders: what a repository of many specs of one API holds), and 560
// images of 4 to 120 KB. Sizes and names are drawn from a fixed seed, so
// each file falls on the same side of each batch boundary every run.
func largeRepoFiles() map[string][]byte {
	rng := rand.New(rand.NewPCG(35, 1))
	noise := func(n int) []byte {
		b := make([]byte, n)
		for i := 0; i < n; i += 8 {
			v := rng.Uint64()
			for j := 0; j < 8 && i+j < n; j++ {
				b[i+j] = byte(v >> (8 * j))
			}
		}
		return append(append([]byte(nil), png...), b...)[:n]
	}
	files := map[string][]byte{}
	var summary strings.Builder
	summary.WriteString("# Table of contents\n\n* [Welcome](README.md)\n")
	files["README.md"] = []byte("# Welcome\n\nThe large handbook.\n")
	for i := range 20 {
		page := fmt.Sprintf("guides/guide-%02d.md", i)
		fmt.Fprintf(&summary, "* [Guide %d](%s)\n", i, page)
		files[page] = fmt.Appendf(nil, "# Guide %d\n\n![](../.gitbook/assets/big-%02d.png)\n\n{%% swagger src=\"../.gitbook/assets/spec-%02d.yaml\" path=\"/things\" method=\"get\" %%}\n", i, i%12, i%40)
	}
	files["SUMMARY.md"] = []byte(summary.String())
	for i, size := range []int{10 << 20, 10<<20 - 1, 10<<20 - 4096, 9 << 20, 10 << 20, 10<<20 - 1, 8 << 20, 10 << 20, 10<<20 - 1, 10 << 20, 9<<20 + 12345, 10 << 20} {
		files[fmt.Sprintf(".gitbook/assets/big-%02d.png", i)] = noise(size)
	}
	for p, b := range gittest.SimilarSpecs(35, 40, 85<<10) {
		files[p] = b
	}
	for i := range 560 {
		files[fmt.Sprintf(".gitbook/assets/screens/shot-%03d.png", i)] = noise(4<<10 + rng.IntN(116<<10))
	}
	return files
}

// TestGitRoundTripLargeRepository imports a repository larger than two
// export streams and exports it, unedited, to a new branch: every file,
// pages and assets, comes back byte for byte. Then one stored file's
// bytes are damaged (a byte flipped in the blob store): the next export
// fails naming that file, and pushes nothing.
func TestGitRoundTripLargeRepository(t *testing.T) {
	if testing.Short() {
		t.Skip("imports and exports 157 MB")
	}
	p, _ := startPlatformLogged(t, "warn", nil)
	cr := p.Credentials
	admin := client{t, p.URL, cr.DemoAdminToken}
	srv := gittest.NewServer(t, "", "")
	files := largeRepoFiles()
	var total int
	for _, b := range files {
		total += len(b)
	}
	srv.NewRepo(t, "large", "main", files)
	original := srv.Files(t, "large", "refs/heads/main")

	space := newSpace(t, admin, cr.DemoOrgID, "Large round trip")
	start := time.Now()
	admin.op("importGitRepository", "POST", "/v1/spaces/"+space+"/git/import", map[string]any{"url": srv.RepoURL("large"), "ref": "refs/heads/main"})
	if st, e := opState(gitDoneWithin(t, admin, space, 5*time.Minute)); st != "success" {
		t.Fatalf("import ended %s: %s", st, e)
	}
	imported := time.Since(start)
	export := func(ref string) (string, string) {
		t.Helper()
		admin.op("exportToGitRepository", "POST", "/v1/spaces/"+space+"/git/export", map[string]any{
			"url": srv.RepoURL("large"), "ref": ref, "commitMessage": "Round trip"})
		return opState(gitDoneWithin(t, admin, space, 5*time.Minute))
	}
	start = time.Now()
	if st, e := export("refs/heads/roundtrip"); st != "success" {
		t.Fatalf("export ended %s: %s", st, e)
	}
	exported := time.Since(start)
	got := srv.Files(t, "large", "refs/heads/roundtrip")
	for _, path := range gittest.Paths(original) {
		if !bytes.Equal(got[path], original[path]) {
			t.Errorf("%s: %d bytes exported, %d imported, not the same bytes", path, len(got[path]), len(original[path]))
		}
	}
	if len(got) != len(original) {
		t.Errorf("%d files exported, %d imported", len(got), len(original))
	}
	t.Logf("%d files, %.1f MB: imported in %v, exported in %v, every file byte for byte", len(original), float64(total)/1e6,
		imported.Round(time.Millisecond), exported.Round(time.Millisecond))

	damaged := ".gitbook/assets/spec-07.yaml"
	flipByte(t, filepath.Join(filepath.Dir(p.CredsPath), "blobs"), files[damaged])
	st, e := export("refs/heads/damaged")
	if st != "failure" || !strings.Contains(e, damaged) {
		t.Fatalf("export of a damaged file ended %s: %q, want a failure naming %s", st, e, damaged)
	}
	if head := srv.Head(t, "large", "refs/heads/damaged"); head != "" {
		t.Fatalf("the damaged export pushed %s", head)
	}
	t.Logf("damaged file: %s", e)
}

// flipByte flips a byte in the middle of the stored blob of data, in a
// file blob store at dir.
func flipByte(t *testing.T, dir string, data []byte) {
	t.Helper()
	sum := sha256.Sum256(data)
	var found []string
	_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Base(path) == hex.EncodeToString(sum[:]) {
			found = append(found, path)
		}
		return nil
	})
	if len(found) != 1 {
		t.Fatalf("%d stored blobs of %x, want 1", len(found), sum)
	}
	b, err := os.ReadFile(found[0])
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0x20
	if err := os.WriteFile(found[0], b, 0o600); err != nil {
		t.Fatal(err)
	}
}
