package local

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docspub/platform/libs/internaltoken"
)

// BenchmarkPublishedPage reads a published page of 5,000 words in a space
// of 1,000 pages through the gateway, with no token, against the gateway's
// /healthz in the same run: p50 and p99 of one reader at a time, and
// requests per second of 8 readers at once, for each; the ratios.
//
//	go test -run '^$' -bench PublishedPage -benchtime 2000x ./deployments/local/
func BenchmarkPublishedPage(b *testing.B) {
	p := benchPlatform(b)
	url := publishBenchSite(b, p)

	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	get := func(u string) time.Duration {
		start := time.Now()
		req, _ := http.NewRequest(http.MethodGet, u, nil)
		// Asked for explicitly, gzip is not inflated by the transport: a
		// reader's browser inflates on the reader's machine, while here the
		// client shares the server's two cores.
		req.Header.Set("Accept-Encoding", "gzip")
		res, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			b.Fatalf("GET %s: %d", u, res.StatusCode)
		}
		return time.Since(start)
	}
	page := url + "/chapter-500"
	if n := len(strings.Fields(pageText(b, hc, page))); n < 5000 {
		b.Fatalf("the page shows %d words", n)
	}
	for range 50 { // warm: revision cached, page rendered, connections open
		get(page)
		get(p.URL + "/healthz")
	}

	// Latency: one reader at a time, alternating.
	health := make([]time.Duration, 0, b.N)
	reads := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		health = append(health, get(p.URL+"/healthz"))
		reads = append(reads, get(page))
	}
	// Throughput: 8 readers at once, b.N requests each way.
	rate := func(u string) float64 {
		var wg sync.WaitGroup
		per := max(b.N/8, 1)
		start := time.Now()
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range per {
					get(u)
				}
			}()
		}
		wg.Wait()
		return float64(per*8) / time.Since(start).Seconds()
	}
	healthRate := rate(p.URL + "/healthz")
	pageRate := rate(page)
	b.StopTimer()
	b.ReportMetric(float64(percentile(reads, 50).Microseconds()), "page-p50-µs")
	b.ReportMetric(float64(percentile(reads, 99).Microseconds()), "page-p99-µs")
	b.ReportMetric(float64(percentile(health, 50).Microseconds()), "healthz-p50-µs")
	b.ReportMetric(float64(percentile(health, 99).Microseconds()), "healthz-p99-µs")
	b.ReportMetric(pageRate, "page-req/s")
	b.ReportMetric(healthRate, "healthz-req/s")
	b.ReportMetric(pageRate/healthRate, "throughput-ratio")
}

// publishBenchSite makes a space of 1,000 pages (chapter-500 of 5,000
// words, the others short) through content's internal revision API, puts
// it on a published site and returns the site's URL.
func publishBenchSite(b testing.TB, p *Platform) string {
	b.Helper()
	org := "/v1/orgs/" + p.Credentials.DemoOrgID
	send := func(method, url, token string, internal bool, body any) []byte {
		b.Helper()
		raw, _ := json.Marshal(body)
		req, _ := http.NewRequest(method, url, bytes.NewReader(raw))
		if internal {
			req.Header.Set(internaltoken.Header, token)
		} else {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		defer res.Body.Close()
		out, _ := io.ReadAll(res.Body)
		if res.StatusCode >= 300 {
			b.Fatalf("%s %s: %d %s", method, url, res.StatusCode, out)
		}
		return out
	}
	var sp struct{ ID, Revision string }
	if err := json.Unmarshal(send("POST", p.URL+org+"/spaces", p.Credentials.DemoAdminToken, false, map[string]any{"title": "Bench"}), &sp); err != nil {
		b.Fatal(err)
	}
	tok := serviceToken(b, p, "integrations", "content", internaltoken.Principal{})
	words := strings.TrimSpace(strings.Repeat("lorem ipsum dolor sit amet consectetur adipiscing elit sed do ", 500))
	long := "## Part one\n\n" + words + "\n\n```go\nfmt.Println(\"bench\")\n```\n\n## Part two\n\n" + words + "\n"
	pages := make([]map[string]any, 0, 1000)
	for i := range 1000 {
		md := fmt.Sprintf("Chapter %d of the bench space.\n", i)
		if i == 500 {
			md = long
		}
		pages = append(pages, map[string]any{"kind": "document", "title": fmt.Sprintf("Chapter %d", i),
			"slug": fmt.Sprintf("chapter-%d", i), "markdown": md, "pages": []any{}})
	}
	send("POST", p.ContentURL+"/internal/v1/spaces/"+sp.ID+"/git/revisions", tok, true,
		map[string]any{"parent": sp.Revision, "pages": pages, "files": []any{}})
	var st struct{ ID string }
	if err := json.Unmarshal(send("POST", p.URL+org+"/sites", p.Credentials.DemoAdminToken, false,
		map[string]any{"title": "Bench", "spaces": []string{sp.ID}}), &st); err != nil {
		b.Fatal(err)
	}
	var site struct {
		URLs struct{ Published string }
	}
	if err := json.Unmarshal(send("POST", p.URL+org+"/sites/"+st.ID+"/publish", p.Credentials.DemoAdminToken, false, nil), &site); err != nil {
		b.Fatal(err)
	}
	return site.URLs.Published
}

// pageText is the text of a page's article.
func pageText(b testing.TB, hc *http.Client, url string) string {
	b.Helper()
	res, err := hc.Get(url)
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	s := string(body)
	if i := strings.Index(s, "<article>"); i >= 0 {
		s = s[i:]
	}
	return s
}
