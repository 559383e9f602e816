package local

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/gittest"
	"github.com/docspub/platform/libs/waittest"
)

// benchRepo is a repository in GitBook's layout with pages markdown pages
// nested levels deep in SUMMARY.md and images images under .gitbook/assets.
func benchRepo(pages, levels, images int) map[string][]byte {
	rng := rand.New(rand.NewPCG(1, 2))
	files := map[string][]byte{}
	var sum strings.Builder
	sum.WriteString("# Table of contents\n\n")
	made := 0
	// Five children per page down to levels-1, the last level filled up to pages.
	var add func(dir string, depth int)
	add = func(dir string, depth int) {
		for i := 0; i < 5 && made < pages; i++ {
			if depth == levels && i > 0 {
				return
			}
			made++
			name := fmt.Sprintf("page-%04d", made)
			file := name + ".md"
			if dir != "" {
				file = dir + "/" + file
			}
			title := fmt.Sprintf("Page %d", made)
			img := ""
			if made%(pages/images) == 0 {
				img = fmt.Sprintf("\n![figure](.gitbook/assets/image-%03d.png)\n", made/(pages/images))
			}
			body := fmt.Sprintf("# %s\n\n%s%s\n\n```go\nfmt.Println(%d)\n```\n", title,
				strings.Repeat("Some prose about this part of the product, with **bold** and a [link](https://example.com). ", 12), img, made)
			files[file] = []byte(body)
			fmt.Fprintf(&sum, "%s* [%s](%s)\n", strings.Repeat("  ", depth-1), title, file)
			if depth < levels {
				sub := name
				if dir != "" {
					sub = dir + "/" + name
				}
				add(sub, depth+1)
			}
		}
	}
	for made < pages {
		before := made
		add("", 1)
		if made == before {
			break
		}
	}
	files["SUMMARY.md"] = []byte(sum.String())
	for i := 1; i <= images; i++ {
		b := make([]byte, 20<<10)
		for j := range b {
			b[j] = byte(rng.UintN(256))
		}
		copy(b, png)
		files[fmt.Sprintf(".gitbook/assets/image-%03d.png", i)] = b
	}
	return files
}

// BenchmarkGitImport1000Pages imports a generated repository of 1,000
// markdown pages (5 levels of SUMMARY nesting, 100 images) served by git
// http-backend into new spaces, and reports the median wall time of three
// imports from the 204 to the pages being readable through the gateway,
// the median of three `git clone`s of the same repository on this machine,
// and their ratio (goal ≤ 3).
//
// The clones run first, before the platform starts, on a quiet machine (a
// platform starting or indexing an import's pages for search would slow
// them), after one clone not measured that warms the repository on disk.
// A first import, not measured, finds the path of the repository's last
// page; an import is readable once
// that page reads (pages become readable together, when the imported
// revision becomes the space's), and each import is then checked to have
// all 1,000 pages. The time of one read of the whole content (every page
// with its markdown) is reported too.
//
//	go test -run '^$' -bench GitImport1000Pages -benchtime 1x ./deployments/local/
func BenchmarkGitImport1000Pages(b *testing.B) {
	const runs = 3
	repo := benchRepo(1000, 5, 100)
	srv := gittest.NewServer(b, "", "")
	srv.NewRepo(b, "big", "main", repo)
	var clones, imports, reads []time.Duration
	for i := range runs + 1 {
		dir := filepath.Join(b.TempDir(), fmt.Sprint(i))
		start := time.Now()
		if out, err := exec.Command("git", "clone", "--quiet", srv.URL+"/big.git", dir).CombinedOutput(); err != nil {
			b.Fatalf("git clone: %v %s", err, out)
		}
		if i > 0 { // the first, not measured, warms the server's repository
			clones = append(clones, time.Since(start))
		}
	}
	// At info level the import job logs the time of each of its phases,
	// which the benchmark prints.
	p, logs := startPlatformLogged(b, "info", nil)
	admin := client{t: nil, base: p.URL, token: p.Credentials.DemoAdminToken}
	for b.Loop() {
		last := ""
		for i := range runs + 1 {
			space := benchSpace(b, admin, p.Credentials.DemoOrgID, fmt.Sprintf("Big %d", i))
			r := admin.raw("POST", "/v1/spaces/"+space+"/git/import", map[string]any{"url": srv.URL + "/big.git", "ref": "refs/heads/main"})
			start := time.Now()
			if r.Status != 204 {
				b.Fatalf("import: %d %s", r.Status, r.Body)
			}
			waittest.Until(b, "the import readable", 5*time.Minute, func() bool { return importRead(b, admin, space, last) })
			took := time.Since(start)
			start = time.Now()
			content := admin.raw("GET", "/v1/spaces/"+space+"/content", nil)
			read := time.Since(start)
			if n := bytes.Count(content.Body, []byte(`"kind":"sheet"`)); n != 1000 {
				b.Fatalf("import %d: %d pages", i, n)
			}
			if last == "" { // the first import, not measured
				last = lastPagePath(b, content.Body)
				continue
			}
			imports, reads = append(imports, took), append(reads, read)
		}
	}
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, "git import written") {
			b.Log(line)
		}
	}
	clone, imp, read := median(clones), median(imports), median(reads)
	b.ReportMetric(float64(clone.Milliseconds()), "clone-ms")
	b.ReportMetric(float64(imp.Milliseconds()), "import-ms")
	b.ReportMetric(float64(read.Milliseconds()), "content-read-ms")
	b.ReportMetric(float64(imp)/float64(clone), "import/clone")
}

// importRead tells whether an import into space is readable: the page at
// path reads, or, before any path is known, the space has 1,000 pages. A
// failed import stops the benchmark.
func importRead(b *testing.B, c client, space, path string) bool {
	if path != "" && c.raw("GET", "/v1/spaces/"+space+"/content/path/"+path, nil).Status == 200 {
		return true
	}
	if path == "" && countPages(c, space) == 1000 {
		return true
	}
	if info := c.raw("GET", "/v1/spaces/"+space+"/git/info", nil); bytes.Contains(info.Body, []byte(`"failure"`)) {
		b.Fatalf("import into %s failed: git info %s", space, info.Body)
	}
	return false
}

// lastPagePath is the path of the last page of a revision's tree.
func lastPagePath(b *testing.B, content []byte) string {
	var rev struct{ Pages []benchPage }
	if err := json.Unmarshal(content, &rev); err != nil || len(rev.Pages) == 0 {
		b.Fatalf("content: %v", err)
	}
	p := rev.Pages[len(rev.Pages)-1]
	for len(p.Pages) > 0 {
		p = p.Pages[len(p.Pages)-1]
	}
	return p.Path
}

type benchPage struct {
	Path  string
	Pages []benchPage
}

func benchSpace(b testing.TB, c client, org, title string) string {
	r := c.raw("POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": title})
	var sp struct{ ID string }
	if r.Status != 201 || json.Unmarshal(r.Body, &sp) != nil {
		b.Fatalf("create space: %d %s", r.Status, r.Body)
	}
	return sp.ID
}

// countPages counts the pages of a space's current revision.
func countPages(c client, space string) int {
	r := c.raw("GET", "/v1/spaces/"+space+"/content", nil)
	if r.Status != 200 {
		return 0
	}
	return bytes.Count(r.Body, []byte(`"kind":"sheet"`))
}

// assetRepo is a repository in GitBook's layout of pages pages (listed in
// SUMMARY.md, two levels) and images images of about imageBytes random
// (incompressible) bytes each under .gitbook/assets, each page showing
// its share of them in figures.
func assetRepo(pages, images, imageBytes int) map[string][]byte {
	rng := rand.New(rand.NewPCG(3, 4))
	files := map[string][]byte{}
	var sum strings.Builder
	sum.WriteString("# Table of contents\n\n")
	for i := range pages {
		dir, indent := "", ""
		if i%10 != 0 { // every tenth page is a section, the nine after it its children
			dir, indent = fmt.Sprintf("section-%03d/", i/10*10), "  "
		}
		name := fmt.Sprintf("%spage-%03d.md", dir, i)
		if dir == "" {
			name = fmt.Sprintf("section-%03d/README.md", i)
		}
		var body strings.Builder
		fmt.Fprintf(&body, "---\ndescription: Page %d\n---\n\n# Page %d\n\n%s\n\n{%% hint style=\"info\" %%}\nA hint.\n{%% endhint %%}\n",
			i, i, strings.Repeat("Some prose about this part of the product, with **bold** and a [link](https://example.com). ", 20))
		for j := i; j < images; j += pages {
			fmt.Fprintf(&body, "\n<figure><img src=\"%s.gitbook/assets/image-%03d.png\" alt=\"\"><figcaption><p>Figure %d</p></figcaption></figure>\n",
				strings.Repeat("../", strings.Count(name, "/")), j, j)
		}
		files[name] = []byte(body.String())
		fmt.Fprintf(&sum, "%s* [Page %d](%s)\n", indent, i, name)
	}
	files["SUMMARY.md"] = []byte(sum.String())
	for i := range images {
		b := make([]byte, imageBytes/2+rng.IntN(imageBytes))
		for j := 0; j+8 <= len(b); j += 8 {
			v := rng.Uint64()
			for k := range 8 {
				b[j+k] = byte(v >> (8 * k))
			}
		}
		copy(b, png)
		files[fmt.Sprintf(".gitbook/assets/image-%03d.png", i)] = b
	}
	return files
}

// BenchmarkGitSyncAssets imports a repository of 200 pages and 600
// images (about 130 MB of incompressible bytes; BENCH_GIT_IMAGES and
// BENCH_GIT_IMAGE_KB scale it) served by git http-backend into a new
// space, then exports the space to an empty repository, and reports each
// next to git itself on the same data in the same run: `git clone --depth
// 1` (median of three after one not measured) and `git push` to an empty
// repository (median of three), with the platform's peak memory growth
// during each (the platform runs in this process: VmHWM after the heap's
// free memory is returned and the peak reset), and another organization's
// GET space p50 during the export next to quiet. Goals: import/clone ≤ 2,
// export/push ≤ 2, peak growth ≤ 300 MB. BENCH_GIT_IMPORT_ONLY=1 skips the
// export.
//
//	go test -run '^$' -bench GitSyncAssets -benchtime 1x -timeout 30m ./deployments/local/
func BenchmarkGitSyncAssets(b *testing.B) {
	images, kb := envInt("BENCH_GIT_IMAGES", 600), envInt("BENCH_GIT_IMAGE_KB", 216)
	repo := assetRepo(200, images, kb<<10)
	var total int64
	for _, f := range repo {
		total += int64(len(f))
	}
	srv := gittest.NewServer(b, "", "")
	srv.NewRepo(b, "assets", "main", repo)
	repo = nil
	b.Logf("repository: 200 pages, %d images, %d MiB", images, total>>20)
	git := func(dir string, args ...string) time.Duration {
		start := time.Now()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v %s", args, err, out)
		}
		return time.Since(start)
	}
	var clones, pushes []time.Duration
	for i := range 4 {
		d := git(b.TempDir(), "clone", "--quiet", "--depth", "1", srv.URL+"/assets.git", "c")
		if i > 0 {
			clones = append(clones, d)
		}
	}
	local := b.TempDir()
	git(local, "clone", "--quiet", srv.URL+"/assets.git", ".")
	for i := range 3 {
		name := fmt.Sprintf("pushed-%d", i)
		srv.NewRepo(b, name, "main", nil)
		// A buffer for the whole pack: git http-backend behind CGI refuses chunked requests.
		pushes = append(pushes, git(local, "-c", "http.postBuffer=2147483647", "push", "--quiet", srv.URL+"/"+name+".git", "HEAD:refs/heads/main"))
	}

	// At info level the import job logs the time of each of its phases,
	// which the benchmark prints.
	p, logs := startPlatformLogged(b, "info", nil)
	admin := client{t: nil, base: p.URL, token: p.Credentials.DemoAdminToken}
	// Another organization reads its space meanwhile.
	other := client{t: nil, base: p.URL, token: p.Credentials.OtherOrgToken}
	theirs := benchSpace(b, other, benchOrg(b, other), "Theirs")
	var imp, exp time.Duration
	var impGrew, expGrew int64
	var quiet, busy []time.Duration
	for b.Loop() {
		space := benchSpace(b, admin, p.Credentials.DemoOrgID, "Assets")
		resetPeak(b)
		before := peakRSS(b)
		start := time.Now()
		if r := admin.raw("POST", "/v1/spaces/"+space+"/git/import", map[string]any{"url": srv.URL + "/assets.git", "ref": "refs/heads/main"}); r.Status != 204 {
			b.Fatalf("import: %d %s", r.Status, r.Body)
		}
		benchGitDone(b, admin, space)
		imp, impGrew = time.Since(start), peakRSS(b)-before

		if os.Getenv("BENCH_GIT_IMPORT_ONLY") == "" {
			srv.NewRepo(b, "exported", "main", nil)
			quiet = otherGets(b, other, theirs, 100, nil)
			stop := make(chan struct{})
			during := make(chan []time.Duration, 1)
			go func() { during <- otherGets(b, other, theirs, 0, stop) }()
			resetPeak(b)
			before = peakRSS(b)
			start = time.Now()
			if r := admin.raw("POST", "/v1/spaces/"+space+"/git/export", map[string]any{"url": srv.URL + "/exported.git", "ref": "refs/heads/main",
				"commitMessage": "Export"}); r.Status != 204 {
				b.Fatalf("export: %d %s", r.Status, r.Body)
			}
			benchGitDone(b, admin, space)
			exp, expGrew = time.Since(start), peakRSS(b)-before
			close(stop)
			busy = <-during
		}
	}
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, "git import written") {
			b.Log(line)
		}
	}
	clone, push := median(clones), median(pushes)
	b.ReportMetric(float64(clone.Milliseconds()), "clone-ms")
	b.ReportMetric(float64(imp.Milliseconds()), "import-ms")
	b.ReportMetric(float64(imp)/float64(clone), "import/clone")
	b.ReportMetric(float64(impGrew>>20), "import-peak-MiB")
	if exp == 0 {
		return // BENCH_GIT_IMPORT_ONLY
	}
	if got := srv.Files(b, "exported", "refs/heads/main"); len(got) != 200+images+1 {
		b.Fatalf("exported %d files, want %d", len(got), 200+images+1)
	}
	b.ReportMetric(float64(push.Milliseconds()), "push-ms")
	b.ReportMetric(float64(exp.Milliseconds()), "export-ms")
	b.ReportMetric(float64(exp)/float64(push), "export/push")
	b.ReportMetric(float64(expGrew>>20), "export-peak-MiB")
	b.ReportMetric(float64(percentile(quiet, 50).Microseconds()), "other-get-quiet-p50-µs")
	b.ReportMetric(float64(percentile(busy, 50).Microseconds()), "other-get-export-p50-µs")
}

// otherGets times GET space of another organization: n of them, or until
// stop is closed.
func otherGets(b *testing.B, c client, space string, n int, stop chan struct{}) []time.Duration {
	var out []time.Duration
	for i := 0; n == 0 || i < n; i++ {
		if stop != nil {
			select {
			case <-stop:
				return out
			default:
			}
		}
		start := time.Now()
		if r := c.raw("GET", "/v1/spaces/"+space, nil); r.Status != 200 {
			b.Errorf("GET their space: %d %s", r.Status, r.Body)
			return out
		}
		out = append(out, time.Since(start))
	}
	return out
}

// benchOrg is the first organization of the client's user.
func benchOrg(b *testing.B, c client) string {
	r := c.raw("GET", "/v1/orgs", nil)
	var orgs struct{ Items []struct{ ID string } }
	if r.Status != 200 || json.Unmarshal(r.Body, &orgs) != nil || len(orgs.Items) == 0 {
		b.Fatalf("orgs: %d %s", r.Status, r.Body)
	}
	return orgs.Items[0].ID
}

// benchGitDone waits for the space's Git operation to succeed.
func benchGitDone(b *testing.B, c client, space string) {
	waittest.Until(b, "the Git operation of "+space, 30*time.Minute, func() bool {
		r := c.raw("GET", "/v1/spaces/"+space+"/git/info", nil)
		if bytes.Contains(r.Body, []byte(`"failure"`)) || bytes.Contains(r.Body, []byte(`"timeout"`)) {
			b.Fatalf("git operation on %s failed: %s", space, r.Body)
		}
		return bytes.Contains(r.Body, []byte(`"success"`))
	})
}

// envInt is the count the variable name holds (0 included), or def when
// it is unset or holds no count.
func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v >= 0 {
		return v
	}
	return def
}
