package local

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/gittest"
	"github.com/docspub/platform/libs/waittest"
)

// BenchmarkGitBookHeavyPage reads the GitBook fixture's heaviest page
// (hints, tabs, 50 code blocks, 30 images) through the gateway: the first
// read after publishing (cold: the revision read from content, the page
// rendered, highlighted and sanitized) and then warm reads (cached).
//
//	go test -run '^$' -bench GitBookHeavyPage -benchtime 200x ./deployments/local/
func BenchmarkGitBookHeavyPage(b *testing.B) {
	p, _ := startPlatformLogged(b, "warn", nil)
	admin := client{t: nil, base: p.URL, token: p.Credentials.DemoAdminToken}
	srv := gittest.NewServer(b, "", "")
	srv.NewRepo(b, "zebra", "main", gitbookRepo())
	org := "/v1/orgs/" + p.Credentials.DemoOrgID
	space := benchSpace(b, admin, p.Credentials.DemoOrgID, "Zebra")
	if r := admin.raw("POST", "/v1/spaces/"+space+"/git/import", map[string]any{"url": srv.RepoURL("zebra"), "ref": "refs/heads/main"}); r.Status != 204 {
		b.Fatalf("import: %d %s", r.Status, r.Body)
	}
	waittest.Until(b, "the import done", time.Minute, func() bool {
		info := admin.raw("GET", "/v1/spaces/"+space+"/git/info", nil)
		return info.Status == 200 && strings.Contains(string(info.Body), `"success"`)
	})
	var st struct{ ID string }
	if r := admin.raw("POST", org+"/sites", map[string]any{"title": "Zebra", "spaces": []string{space}}); json.Unmarshal(r.Body, &st) != nil || st.ID == "" {
		b.Fatalf("create site: %d %s", r.Status, r.Body)
	}
	var site struct{ URLs struct{ Published string } }
	if r := admin.raw("POST", org+"/sites/"+st.ID+"/publish", nil); json.Unmarshal(r.Body, &site) != nil {
		b.Fatalf("publish: %d %s", r.Status, r.Body)
	}
	page := site.URLs.Published + "/heavy"
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	get := func() (time.Duration, int) {
		start := time.Now()
		req, _ := http.NewRequest(http.MethodGet, page, nil)
		req.Header.Set("Accept-Encoding", "gzip")
		res, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			b.Fatalf("GET %s: %d", page, res.StatusCode)
		}
		return time.Since(start), int(n)
	}
	cold, _ := get()
	if body := pageText(b, hc, page); strings.Count(body, "<img ") < 30 || strings.Count(body, `<pre class="chroma"`) < 50 {
		b.Fatalf("the heavy page shows %d images and %d code blocks", strings.Count(body, "<img "), strings.Count(body, `<pre class="chroma"`))
	}
	for range 20 {
		get()
	}
	warm := make([]time.Duration, 0, b.N)
	size := 0
	b.ResetTimer()
	for range b.N {
		d, n := get()
		warm = append(warm, d)
		size = n
	}
	b.StopTimer()
	b.ReportMetric(float64(cold.Microseconds()), "cold-µs")
	b.ReportMetric(float64(percentile(warm, 50).Microseconds()), "warm-p50-µs")
	b.ReportMetric(float64(percentile(warm, 99).Microseconds()), "warm-p99-µs")
	b.ReportMetric(float64(size), "gzip-bytes")
}
