package gitrepo

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/gittest"
)

// peakRSS is the process's peak resident memory (VmHWM), in bytes.
func peakRSS(t *testing.T) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Skip("no VmHWM in /proc/self/status")
	return 0
}

// resetPeak returns the heap's free memory to the system and lowers the
// peak resident memory to the current (Linux's clear_refs 5), so that the
// next peakRSS is the peak from now on, and memory the heap kept from
// earlier work does not hide growth.
func resetPeak(t *testing.T) {
	t.Helper()
	debug.FreeOSMemory()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Skipf("cannot reset the peak resident memory: %v", err)
	}
}

// maxGrowth is how much the process's peak memory may grow while a clone
// refuses a repository: what go-git and the HTTP client need, nothing that
// grows with the repository's size.
const maxGrowth = 48 << 20

// These tests measure the process's memory: they do not run in parallel
// (the package's parallel tests run after them).
func TestCloneStopsAtTheLimitsWithBoundedMemory(t *testing.T) {
	srv := gittest.NewServer(t, "", "")
	start := time.Now()
	srv.NewPackedRepo(t, "bomb", "main", []gittest.Blob{
		{Name: "README.md", Size: 6, Data: strings.NewReader("# Hi\n\n")},
		{Name: "zeros.bin", Size: 1 << 30, Data: gittest.Zeros},
	})
	srv.NewPackedRepo(t, "big-blob", "main", []gittest.Blob{{Name: "video.mp4", Size: 300 << 20, Data: gittest.Zeros}})
	many := make([]gittest.Blob, 200_000)
	for i := range many {
		s := fmt.Sprintf("page %d\n", i)
		many[i] = gittest.Blob{Name: fmt.Sprintf("p%06d.md", i), Size: int64(len(s)), Data: strings.NewReader(s)}
	}
	srv.NewPackedRepo(t, "many", "main", many)
	t.Logf("repositories written in %v", time.Since(start))

	lim := Limits{MaxBytes: 256 << 20, Timeout: time.Minute} // the other limits: their defaults
	for _, tc := range []struct{ repo, says string }{
		{"bomb", "one of its files is 1.0 GiB, more than the 100.0 MiB a file may have"},
		{"big-blob", "one of its files is 300.0 MiB, more than the 100.0 MiB a file may have"},
		{"many", "it has 200002 objects (files, directories and commits), more than the 100000 a clone may have"},
	} {
		t.Run(tc.repo, func(t *testing.T) {
			tmp := t.TempDir()
			lim := lim
			lim.TempDir = tmp
			resetPeak(t)
			before := peakRSS(t)
			start := time.Now()
			c, err := Clone(context.Background(), open, remote(t, srv.RepoURL(tc.repo)), "refs/heads/main", lim)
			took := time.Since(start)
			grew := peakRSS(t) - before
			t.Logf("refused in %v; peak memory grew %d KiB", took, grew>>10)
			if err == nil {
				c.Close()
				t.Fatal("the clone went through")
			}
			if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("clone: %v, want ErrTooLarge saying %q", err, tc.says)
			}
			if grew > maxGrowth {
				t.Errorf("peak memory grew %d MiB, want at most %d MiB", grew>>20, maxGrowth>>20)
			}
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				t.Errorf("the clone left %d entries in its temporary directory", len(left))
			}
		})
	}

	// Within the limits, memory grows with the largest file, not with
	// all of them: go-git's index builder holds one object at a time
	// (which the limit of one file's size bounds), and files are read from
	// disk as streams.
	t.Run("within", func(t *testing.T) {
		const file = 32 << 20
		var files []gittest.Blob
		for i := range 4 {
			files = append(files, gittest.Blob{Name: fmt.Sprintf("f%d.bin", i), Size: file, Data: gittest.Zeros})
		}
		srv.NewPackedRepo(t, "within", "main", files)
		lim := lim
		lim.TempDir = t.TempDir()
		resetPeak(t)
		before := peakRSS(t)
		c, err := Clone(context.Background(), open, remote(t, srv.RepoURL("within")), "refs/heads/main", lim)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		cloned := peakRSS(t) - before
		entries, err := c.Files(context.Background(), func(string) bool { return true })
		if err != nil || len(entries) != 4 {
			t.Fatalf("files %v, %v", entries, err)
		}
		for _, e := range entries {
			rc, err := c.Open(e)
			if err != nil {
				t.Fatal(err)
			}
			n, err := countZeros(rc)
			rc.Close()
			if err != nil || n != file {
				t.Fatalf("read %d zeros of %s: %v", n, e.Path, err)
			}
		}
		grew := peakRSS(t) - before
		t.Logf("4 files of 32 MiB: peak memory grew %d MiB cloning, %d MiB cloning and reading them", cloned>>20, grew>>20)
		if grew > file+maxGrowth {
			t.Errorf("peak memory grew %d MiB, want at most one file (%d MiB) and %d MiB", grew>>20, file>>20, maxGrowth>>20)
		}
	})
}

func countZeros(r io.Reader) (int64, error) {
	buf, zero := make([]byte, 1<<20), make([]byte, 1<<20)
	var n int64
	for {
		k, err := r.Read(buf)
		if !bytes.Equal(buf[:k], zero[:k]) {
			return n, errors.New("a byte that is not zero")
		}
		n += int64(k)
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// A push's pack goes to a temporary file and from it to the remote, with
// its length (git http-backend behind CGI refuses chunked requests): the
// push's memory grows with its largest file, not with its pack.
func TestPushStreamsFromDisk(t *testing.T) {
	srv := gittest.NewServer(t, "", "")
	srv.NewRepo(t, "docs", "main", nil)
	const file, files = 8 << 20, 10
	noise := make([]byte, file)
	write := func(fs Files) error {
		for i := range files {
			_, _ = rand.Read(noise)
			if err := fs.Write(fmt.Sprintf("assets/%d.bin", i), noise); err != nil {
				return err
			}
		}
		return nil
	}
	resetPeak(t)
	before := peakRSS(t)
	tmp := t.TempDir()
	oid, err := Push(context.Background(), open, remote(t, srv.RepoURL("docs")), Commit{Ref: "refs/heads/main", Message: "assets",
		Write: write}, Limits{MaxBytes: 64 << 20, Timeout: time.Minute, TempDir: tmp})
	if err != nil {
		t.Fatal(err)
	}
	grew := peakRSS(t) - before
	t.Logf("pushed %d MiB: peak memory grew %d MiB", files*file>>20, grew>>20)
	if got := srv.Head(t, "docs", "refs/heads/main"); got != oid {
		t.Fatalf("head %s, want %s", got, oid)
	}
	if got := srv.Files(t, "docs", "refs/heads/main")["assets/9.bin"]; !bytes.Equal(got, noise) {
		t.Fatalf("assets/9.bin: %d bytes, not the ones written", len(got))
	}
	// go-git stages a file in memory (and the collector lets one such copy
	// wait as garbage): twice a file, below the pack's 80 MiB.
	if grew > 2*file+maxGrowth {
		t.Errorf("peak memory grew %d MiB, want at most two files (%d MiB) and %d MiB", grew>>20, 2*file>>20, maxGrowth>>20)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("the push left %d entries in its temporary directory", len(left))
	}
}

// A delta counts as the object it makes: two files of 100 KB that differ
// by a line are one object and a delta of a few bytes in the pack, and
// 200 KB uncompressed.
func TestCloneCountsDeltasAsTheirObjects(t *testing.T) {
	t.Parallel()
	srv := gittest.NewServer(t, "", "")
	page := make([]byte, 100_000)
	for i := range page {
		page[i] = "abcdefghij\n"[i%11]
	}
	other := append([]byte("a changed first line\n"), page...)
	srv.NewRepo(t, "docs", "main", map[string][]byte{"a.md": page, "b.md": other})
	repack := exec.Command("git", "repack", "-adf", "-q")
	repack.Dir = filepath.Join(srv.Root, "docs.git")
	if out, err := repack.CombinedOutput(); err != nil {
		t.Fatalf("git repack: %v %s", err, out)
	}
	idx, _ := filepath.Glob(filepath.Join(srv.Root, "docs.git", "objects", "pack", "*.idx"))
	if len(idx) != 1 {
		t.Fatalf("packs: %v", idx)
	}
	if out, err := exec.Command("git", "verify-pack", "-v", idx[0]).CombinedOutput(); err != nil || !strings.Contains(string(out), "chain length = 1") {
		t.Fatalf("the pack has no delta: %v %s", err, out)
	}
	r := remote(t, srv.RepoURL("docs"))
	ctx := context.Background()
	c, err := Clone(ctx, open, r, "refs/heads/main", Limits{MaxBytes: 1 << 20, MaxInflatedBytes: 250_000, Timeout: time.Minute, TempDir: t.TempDir()})
	if err != nil {
		t.Fatalf("within the limit: %v", err)
	}
	c.Close()
	_, err = Clone(ctx, open, r, "refs/heads/main", Limits{MaxBytes: 1 << 20, MaxInflatedBytes: 150_000, Timeout: time.Minute, TempDir: t.TempDir()})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("past the limit by a delta's object: %v, want ErrTooLarge", err)
	}
}

func TestSweepRemovesOldClonesOnly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	old := time.Now().Add(-time.Hour)
	for _, name := range []string{"git-clone-1", "git-export-2", "git-push-3", "git-clone-new", "other"} {
		if err := os.MkdirAll(filepath.Join(dir, name, "x"), 0o700); err != nil {
			t.Fatal(err)
		}
		if name != "git-clone-new" {
			if err := os.Chtimes(filepath.Join(dir, name), old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := Sweep(dir, 10*time.Minute); err != nil {
		t.Fatal(err)
	}
	var left []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if strings.Join(left, ",") != "git-clone-new,other" {
		t.Fatalf("left %v", left)
	}
}
