package local

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/gittest"
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
// http-backend, three times into new spaces, and reports the median wall
// time from the 204 to the pages being readable through the gateway, the
// median of `git clone` of the same repository on this machine, and their
// ratio (goal ≤ 3).
//
//	go test -run '^$' -bench GitImport1000Pages -benchtime 1x ./deployments/local/
func BenchmarkGitImport1000Pages(b *testing.B) {
	const runs = 3
	repo := benchRepo(1000, 5, 100)
	// At info level the import job logs the time of each of its phases,
	// which the benchmark prints.
	p, logs := startPlatformLogged(b, "info", nil)
	srv := gittest.NewServer(b, "", "")
	srv.NewRepo(b, "big", "main", repo)
	admin := client{t: nil, base: p.URL, token: p.Credentials.DemoAdminToken}
	var clones, imports []time.Duration
	for b.Loop() {
		for i := range runs {
			dir := filepath.Join(b.TempDir(), fmt.Sprint(i))
			start := time.Now()
			if out, err := exec.Command("git", "clone", "--quiet", srv.URL+"/big.git", dir).CombinedOutput(); err != nil {
				b.Fatalf("git clone: %v %s", err, out)
			}
			clones = append(clones, time.Since(start))

			space := benchSpace(b, admin, p.Credentials.DemoOrgID, fmt.Sprintf("Big %d", i))
			r := admin.raw("POST", "/v1/spaces/"+space+"/git/import", map[string]any{"url": srv.URL + "/big.git", "ref": "refs/heads/main"})
			start = time.Now()
			if r.Status != 204 {
				b.Fatalf("import: %d %s", r.Status, r.Body)
			}
			for {
				if n := countPages(admin, space); n == 1000 {
					break
				} else if info := admin.raw("GET", "/v1/spaces/"+space+"/git/info", nil); bytes.Contains(info.Body, []byte(`"failure"`)) ||
					time.Since(start) > 5*time.Minute {
					c := admin.raw("GET", "/v1/spaces/"+space+"/content", nil)
					b.Fatalf("%d pages; git info %s; content %d %.300s", n, info.Body, c.Status, c.Body)
				}
				time.Sleep(20 * time.Millisecond) // the polling interval of the measurement, not synchronisation
			}
			imports = append(imports, time.Since(start))
		}
	}
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, "git import written") {
			b.Log(line)
		}
	}
	slices.Sort(clones)
	slices.Sort(imports)
	clone, imp := clones[len(clones)/2], imports[len(imports)/2]
	b.ReportMetric(float64(clone.Milliseconds()), "clone-ms")
	b.ReportMetric(float64(imp.Milliseconds()), "import-ms")
	b.ReportMetric(float64(imp)/float64(clone), "import/clone")
}

func benchSpace(b *testing.B, c client, org, title string) string {
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
