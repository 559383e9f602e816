package local

import (
	"bufio"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docspub/platform/libs/gittest"
)

// peakRSS is the process's peak resident memory (VmHWM), in bytes: the
// platform runs in the test's process.
func peakRSS(t testing.TB) int64 {
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
// peak resident memory to the current one (Linux's clear_refs 5).
func resetPeak(t testing.TB) {
	t.Helper()
	debug.FreeOSMemory()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Skipf("cannot reset the peak resident memory: %v", err)
	}
}

// TestGitImportRefusesOversizedRepositories imports three repositories
// past the clone's limits (a 1 MiB pack that inflates to 1 GiB, a 300 MiB
// file, 200,000 files): each job fails with a message naming the limit,
// the platform's peak memory barely moves, and another organization's
// requests keep their latency meanwhile.
func TestGitImportRefusesOversizedRepositories(t *testing.T) {
	srv := gittest.NewServer(t, "", "")
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
	many = nil

	p, _ := startPlatformLogged(t, "warn", nil)
	cr := p.Credentials
	admin := client{t, p.URL, cr.DemoAdminToken}
	other := client{t, p.URL, cr.OtherOrgToken}
	otherOrg := str(items(t, other.op("listOrganizationsForAuthenticatedUser", "GET", "/v1/orgs", nil))[0], "id")
	theirs := "/v1/spaces/" + newSpace(t, other, otherOrg, "Theirs")
	spaces := map[string]string{}
	for _, repo := range []string{"bomb", "big-blob", "many"} {
		spaces[repo] = newSpace(t, admin, cr.DemoOrgID, repo)
	}
	// The other organization's quiet latency: before the imports and after
	// them (the machine is shared; a baseline of one moment is noise).
	timeGet := func() time.Duration {
		start := time.Now()
		other.status(200, "GET", theirs, nil)
		return time.Since(start)
	}
	var quiet []time.Duration
	for range 60 {
		quiet = append(quiet, timeGet())
	}

	resetPeak(t)
	before := peakRSS(t)
	done := make(chan struct{})
	var busy []time.Duration
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
				busy = append(busy, timeGet())
			}
		}
	})
	start := time.Now()
	for repo, space := range spaces {
		admin.op("importGitRepository", "POST", "/v1/spaces/"+space+"/git/import", map[string]any{"url": srv.RepoURL(repo), "ref": "refs/heads/main"})
	}
	errs := map[string]string{}
	// One organization's imports run one after another, each followed by a
	// rest as long as it ran (JOB_TENANT_REST): on a machine busy with other
	// work the three take most of a minute.
	for repo, space := range spaces {
		st, e := opState(gitDoneWithin(t, admin, space, 3*time.Minute))
		if st != "failure" {
			t.Errorf("import of %s ended %s: %s", repo, st, e)
		}
		errs[repo] = e
	}
	took := time.Since(start)
	close(done)
	wg.Wait()
	grew := peakRSS(t) - before
	for range 60 {
		quiet = append(quiet, timeGet())
	}

	for repo, says := range map[string]string{
		"bomb":     "the repository is larger than the clone limit: one of its files is 1.0 GiB, more than the 100.0 MiB a file may have",
		"big-blob": "the repository is larger than the clone limit: one of its files is 300.0 MiB, more than the 100.0 MiB a file may have",
		"many":     "the repository is larger than the clone limit: it has 200002 objects (files, directories and commits), more than the 100000 a clone may have",
	} {
		if errs[repo] != says {
			t.Errorf("import of %s failed with %q, want %q", repo, errs[repo], says)
		}
	}
	q, b := median(quiet), median(busy)
	t.Logf("three imports refused in %v; the platform's peak memory grew %d MiB; another organization's GET space p50 %v quiet, %v during them (%d requests)",
		took, grew>>20, q, b, len(busy))
	if grew > 64<<20 {
		t.Errorf("the platform's peak memory grew %d MiB, want at most 64 MiB", grew>>20)
	}
	// Twice the quiet p50, and a millisecond for a machine that other tests share.
	if len(busy) > 0 && b > 2*q+time.Millisecond {
		t.Errorf("another organization's GET space p50 %v during the imports, %v quiet: want at most twice", b, q)
	}
}
