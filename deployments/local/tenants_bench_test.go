package local

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
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
// grown organization's own first page of spaces (from 1 connection).
//
//	go test -run '^$' -bench CrossTenant -benchtime 1x -timeout 60m ./deployments/local/
func BenchmarkCrossTenant(b *testing.B) {
	spaces, pages := envInt("BENCH_TENANT_SPACES", 10_000), envInt("BENCH_TENANT_PAGES", 100_000)
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
	smallID := firstOrg(b, small)
	smallOrg := "/v1/orgs/" + smallID
	repo, _ := handbookRepo(10)
	srv.NewRepo(b, "small", "main", repo)
	importSpaces(b, small, smallID, srv.RepoURL("small"), 1)

	smallAuth := "Bearer " + p.Credentials.OtherOrgToken
	b.ResetTimer()
	big := client{base: p.URL, token: p.Credentials.DemoAdminToken}
	fmt.Print(crossTenant(b, p.URL+smallOrg, smallAuth, big, p.Credentials.DemoOrgID, srv, spaces, pages, seconds, 0))
	b.StopTimer()
}

// crossTenant measures another organization's (small, with auth) list of
// spaces and search at 32 connections, grows org (big's user's) by spaces
// spaces and pages pages (grow), measures them again and the grown
// organization's own first page of spaces from 1 connection, and returns
// the rows as a Markdown table with their ratios. Its loads' profiles
// (profileTarget) are numbered from profiles on.
func crossTenant(b *testing.B, small, auth string, big client, org string, srv *gittest.Server, spaces, pages int, seconds time.Duration, profiles int) string {
	b.Helper()
	targets := []target{
		{name: "another organization's `GET /v1/orgs/{id}/spaces`", url: small + "/spaces", auth: auth},
		{name: "another organization's `GET ORG/search?query=zebra`", url: small + "/search?query=zebra", auth: auth},
	}
	type figure struct {
		rps      float64
		p50, p99 time.Duration
	}
	measure := func(round int) []figure {
		var out []figure
		for i, tg := range targets {
			fetch(b, http.DefaultClient, tg)
			stop := profileTarget(b, profiles+10*round+i)
			rps, p50, p99, _ := load(b, tg, 32, seconds)
			stop()
			out = append(out, figure{rps, p50, p99})
		}
		return out
	}
	before := measure(0)
	g := grow(b, big, org, srv, spaces, pages, idleUse(), profiles)
	after := measure(1)
	own := target{url: big.base + "/v1/orgs/" + org + "/spaces", auth: "Bearer " + big.token}
	fetch(b, http.DefaultClient, own)
	stopProfile := profileTarget(b, profiles+20)
	ownRPS, ownP50, ownP99, _ := load(b, own, 1, seconds)
	stopProfile()

	var out strings.Builder
	fmt.Fprintf(&out, "\nOne organization grows by %d spaces and %d pages; another keeps what it holds. 32 connections, %s each.\n\n", spaces, g.pages, seconds)
	fmt.Fprintf(&out, "| target | before: requests/s, p50 | after: requests/s, p50, p99 | p50 after/before |\n|---|---|---|---|\n")
	for i, tg := range targets {
		fmt.Fprintf(&out, "| %s | %.0f, %s | %.0f, %s, %s | %.2f× |\n", tg.name, before[i].rps, ms(before[i].p50),
			after[i].rps, ms(after[i].p50), ms(after[i].p99), float64(after[i].p50)/float64(before[i].p50))
	}
	fmt.Fprintf(&out, "| the grown organization's own first page of spaces, 1 connection | | %.0f, %s, %s | |\n", ownRPS, ms(ownP50), ms(ownP99))
	fmt.Fprintf(&out, "\n%s\n", g)
	return out.String()
}

// growth is what grow did: the rates of creating spaces, the pages
// imported, and how the platform settled after.
type growth struct {
	rates   string
	pages   int
	settled string
}

func (g growth) String() string {
	return fmt.Sprintf("Creating spaces at 16 connections: %s. Measured again once the platform was %s.", g.rates, g.settled)
}

// grow makes org (c's) larger by spaces spaces, created through the API at
// 16 connections, and about pages pages, Git imports of 2,000 pages each
// (8 at a time), then waits until the process is back to its use at rest
// (idle, idleUse's; BENCH_QUIET_SECONDS bounds the wait, default 300): it
// is the steady state, not the catch-up of the events, projections and
// search indexing the growth set going, that is measured after.
func grow(b *testing.B, c client, org string, srv *gittest.Server, spaces, pages int, idle float64, profiles int) growth {
	b.Helper()
	stopProfile := profileTarget(b, profiles+30)
	g := growth{rates: createSpaces(b, c, org, spaces, 16)}
	stopProfile()
	if imports := pages / 2000; imports > 0 {
		repo, _ := handbookRepo(fullGuides)
		srv.NewRepo(b, "grown-2000", "main", repo)
		start := time.Now()
		g.pages = importSpaces(b, c, org, srv.RepoURL("grown-2000"), imports)
		b.Logf("imported %d pages in %d spaces in %s", g.pages, imports, time.Since(start).Round(time.Second))
	}
	settle := time.Now()
	stopProfile = profileTarget(b, profiles+40)
	quiet, used := waitQuiet(idle, time.Duration(envInt("BENCH_QUIET_SECONDS", 300))*time.Second)
	stopProfile()
	g.settled = fmt.Sprintf("quiet (under %.2f of a core, its use at rest %.2f and a twentieth) %s after the growth",
		idle+1.0/20, idle, time.Since(settle).Round(time.Second))
	if !quiet {
		g.settled = fmt.Sprintf("still using %.2f of a core %s after the growth", used, time.Since(settle).Round(time.Second))
	}
	return g
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

// importSpaces creates n spaces in org and imports the repository at url
// into each, 8 at a time (an organization runs at most 10 Git operations
// at once), and returns the pages imported.
func importSpaces(b *testing.B, c client, org, url string, n int) int {
	b.Helper()
	var (
		next  atomic.Int64
		pages atomic.Int64
		wg    sync.WaitGroup
	)
	for range min(n, 8) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for int(next.Add(1)) <= n {
				sp := benchSpace(b, c, org, fmt.Sprintf("Imported %d", next.Load()))
				if r := c.raw("POST", "/v1/spaces/"+sp+"/git/import", map[string]any{"url": url, "ref": "refs/heads/main"}); r.Status != 204 {
					b.Errorf("import: %d %s", r.Status, r.Body)
					return
				}
				waittest.Until(b, "the import done", 30*time.Minute, func() bool {
					info := c.raw("GET", "/v1/spaces/"+sp+"/git/info", nil)
					return info.Status == 200 && (strings.Contains(string(info.Body), `"success"`) || strings.Contains(string(info.Body), `"failure"`))
				})
				if info := c.raw("GET", "/v1/spaces/"+sp+"/git/info", nil); !strings.Contains(string(info.Body), `"success"`) {
					b.Errorf("import: %s", info.Body)
					return
				}
				pages.Add(int64(countPages(c, sp)))
			}
		}()
	}
	wg.Wait()
	if b.Failed() {
		b.FailNow()
	}
	return int(pages.Load())
}

// idleUse is the share of a core the platform uses at rest: the least of
// three one-second windows (its idle sweeps and polls).
func idleUse() float64 {
	least := 1.0
	for range 3 {
		least = min(least, secondUse())
	}
	return least
}

// secondUse is the share of a core the process uses over the next second.
func secondUse() float64 {
	cpu0, t0 := cpuTime(), time.Now()
	time.Sleep(time.Second) // a window of measure, not a wait for an event
	return float64(cpuTime()-cpu0) / float64(time.Since(t0))
}

// waitQuiet polls the process's CPU time until a second passes in which
// the platform used under a twentieth of a core more than idle (its use at
// rest, idleUse), for at most limit; it reports whether it became quiet
// and the share of a core the last second used.
func waitQuiet(idle float64, limit time.Duration) (bool, float64) {
	deadline := time.Now().Add(limit)
	used := 1.0
	for time.Now().Before(deadline) {
		if used = secondUse(); used < idle+1.0/20 {
			return true, used
		}
	}
	return false, used
}

// firstOrg is the id of the first organization c's user belongs to.
func firstOrg(b *testing.B, c client) string {
	b.Helper()
	var orgs struct{ Items []struct{ ID string } }
	if r := c.raw("GET", "/v1/orgs", nil); json.Unmarshal(r.Body, &orgs) != nil || len(orgs.Items) == 0 {
		b.Fatalf("the user's organizations: %d %s", r.Status, r.Body)
	}
	return orgs.Items[0].ID
}

// ms formats a duration in milliseconds with two decimals.
func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }
