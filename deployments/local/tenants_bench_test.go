package local

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docspub/platform/libs/gittest"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/waittest"
)

// BenchmarkCrossTenant is `make bench-tenants`: does one organization's
// growth slow another's requests? On the local platform (the embedded
// MongoDB-protocol server, as `make run`), the other user's organization
// holds one small space of ~20 pages; its list of spaces and its search
// are loaded (32 connections) before and after the demo organization grows
// to BENCH_TENANT_SPACES spaces (default 10,000, created at 16 connections)
// and BENCH_TENANT_PAGES pages (default 100,000: Git imports of 2,000
// pages each). It prints each p50 and requests/s before and after with the
// ratio, the creation rate of spaces at the start and at the end, and the
// grown organization's own first page of spaces.
//
//	go test -run '^$' -bench CrossTenant -benchtime 1x -timeout 60m ./deployments/local/
func BenchmarkCrossTenant(b *testing.B) {
	spaces, pages := envInt("BENCH_TENANT_SPACES", 10_000), envInt("BENCH_TENANT_PAGES", 100_000)
	if os.Getenv("BENCH_TENANT_PAGES") == "0" {
		pages = 0
	}
	seconds := time.Duration(envInt("BENCH_HTTP_SECONDS", 3)) * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	p, err := Start(ctx, Config{Addr: "127.0.0.1:0", DataDir: b.TempDir(), LogLevel: "error", RateLimit: 0,
		OutboundAllowPrivate: true}, logx.Discard())
	cancel()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(p.Close)
	srv := gittest.NewServer(b, "", "")

	// The small tenant: one space of the GitBook fixture.
	small := client{base: p.URL, token: p.Credentials.OtherOrgToken}
	var orgs struct{ Items []struct{ ID string } }
	if r := small.raw("GET", "/v1/orgs", nil); json.Unmarshal(r.Body, &orgs) != nil || len(orgs.Items) == 0 {
		b.Fatalf("the other user's organizations: %d %s", r.Status, r.Body)
	}
	smallOrg := "/v1/orgs/" + orgs.Items[0].ID
	repo, _ := handbookRepo(10)
	srv.NewRepo(b, "small", "main", repo)
	importSpaces(b, small, orgs.Items[0].ID, srv.RepoURL("small"), 1)

	smallAuth := "Bearer " + p.Credentials.OtherOrgToken
	targets := []struct{ name, url string }{
		{"another organization's `GET /v1/orgs/{id}/spaces`", p.URL + smallOrg + "/spaces"},
		{"another organization's `GET ORG/search?query=zebra`", p.URL + smallOrg + "/search?query=zebra"},
	}
	type figure struct {
		rps      float64
		p50, p99 time.Duration
	}
	measure := func(round int) []figure {
		var out []figure
		for i, tg := range targets {
			fetch(b, http.DefaultClient, target{url: tg.url, auth: smallAuth})
			stop := profileTarget(b, 10*round+i)
			rps, p50, p99 := load(b, target{url: tg.url, auth: smallAuth}, 32, seconds)
			stop()
			out = append(out, figure{rps, p50, p99})
		}
		return out
	}
	b.ResetTimer()
	before := measure(0)

	// The large tenant grows: spaces through the API at 16 connections,
	// then pages by Git imports of 2,000 at once.
	big := client{base: p.URL, token: p.Credentials.DemoAdminToken}
	bigOrg := p.Credentials.DemoOrgID
	rates := createSpaces(b, big, bigOrg, spaces, 16)
	grown := 0
	if imports := pages / 2000; imports > 0 {
		repo, _ := handbookRepo(1990)
		srv.NewRepo(b, "handbook-2000", "main", repo)
		start := time.Now()
		grown = importSpaces(b, big, bigOrg, srv.RepoURL("handbook-2000"), imports)
		b.Logf("imported %d pages in %d spaces in %s", grown, imports, time.Since(start).Round(time.Second))
	}
	after := measure(1)
	bigAuth := "Bearer " + p.Credentials.DemoAdminToken
	ownURL := p.URL + "/v1/orgs/" + bigOrg + "/spaces"
	fetch(b, http.DefaultClient, target{url: ownURL, auth: bigAuth})
	stopProfile := profileTarget(b, 20)
	ownRPS, ownP50, ownP99 := load(b, target{url: ownURL, auth: bigAuth}, 32, seconds)
	stopProfile()
	b.StopTimer()

	var out strings.Builder
	fmt.Fprintf(&out, "\nOne organization grows to %d spaces and %d pages; another holds one space. 32 connections, %s each.\n\n", spaces, grown, seconds)
	fmt.Fprintf(&out, "| target | before: requests/s, p50 | after: requests/s, p50, p99 | p50 after/before |\n|---|---|---|---|\n")
	for i, tg := range targets {
		fmt.Fprintf(&out, "| %s | %.0f, %s | %.0f, %s, %s | %.2f× |\n", tg.name, before[i].rps, ms(before[i].p50),
			after[i].rps, ms(after[i].p50), ms(after[i].p99), float64(after[i].p50)/float64(before[i].p50))
	}
	fmt.Fprintf(&out, "| the grown organization's own first page of spaces | | %.0f, %s, %s | |\n", ownRPS, ms(ownP50), ms(ownP99))
	fmt.Fprintf(&out, "\nCreating spaces at 16 connections: %s.\n", rates)
	fmt.Print(out.String())
}

// createSpaces creates n spaces in org from conns connections and
// describes the rate of the first and of the last tenth.
func createSpaces(b *testing.B, c client, org string, n, conns int) string {
	b.Helper()
	var next atomic.Int64
	done := make([]time.Time, n)
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, conns)
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				r := c.raw("POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": fmt.Sprintf("Space %05d", i)})
				if r.Status != 201 {
					errs <- fmt.Errorf("create space %d: %d %s", i, r.Status, r.Body)
					return
				}
				done[i] = time.Now()
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
	tenth := max(1, n/10)
	first := float64(tenth) / done[tenth-1].Sub(start).Seconds()
	last := float64(tenth) / done[n-1].Sub(done[n-1-tenth]).Seconds()
	return fmt.Sprintf("%d spaces in %s; the first %d at %.0f/s, the last %d at %.0f/s",
		n, time.Since(start).Round(time.Second), tenth, first, tenth, last)
}

// importSpaces creates n spaces in org, imports the repository at url into
// each at once, waits for every import and returns the pages imported.
func importSpaces(b *testing.B, c client, org, url string, n int) int {
	b.Helper()
	ids := make([]string, n)
	for i := range ids {
		ids[i] = benchSpace(b, c, org, fmt.Sprintf("Imported %d", i+1))
		if r := c.raw("POST", "/v1/spaces/"+ids[i]+"/git/import", map[string]any{"url": url, "ref": "refs/heads/main"}); r.Status != 204 {
			b.Fatalf("import: %d %s", r.Status, r.Body)
		}
	}
	pages := 0
	for _, sp := range ids {
		waittest.Until(b, "the import done", 30*time.Minute, func() bool {
			info := c.raw("GET", "/v1/spaces/"+sp+"/git/info", nil)
			if info.Status == 200 && strings.Contains(string(info.Body), `"failure"`) {
				b.Fatalf("import: %s", info.Body)
			}
			return info.Status == 200 && strings.Contains(string(info.Body), `"success"`)
		})
		pages += countPages(c, sp)
	}
	return pages
}

// ms formats a duration in milliseconds with two decimals.
func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }
