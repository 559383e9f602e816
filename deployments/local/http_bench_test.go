package local

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/docspub/platform/libs/gittest"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/waittest"
)

// BenchmarkHTTPTable is `make bench-http`: it starts the local platform
// in-process, imports a GitBook-like repository of about 190 pages (the
// GitBook fixture and generated pages), publishes it, and loads each
// target with 32 connections for a few seconds, one after the other, in
// one run: the static baselines, nginx serving the published page's HTML
// as a file and its .gz copy through gzip_static (when an nginx binary is
// in PATH; without one these rows are left out, and the log says so) and
// Go's http.FileServer serving the same file, and Go's floor for the coded
// rows (a bare net/http handler answering the page's gzip bytes from
// memory: what the gateway's stack adds is the distance from it, and the
// same answer through fasthttp alone: what another server reaches), then
// the gateway's /healthz,
// the published page without a token (no Accept-Encoding, gzip, and
// "gzip, br": answered from the gateway's page cache in that coding), and
// API reads with a bearer token. It prints requests/s (and their share of
// nginx's plain row, or of its gzip row for a coded answer), the median
// and 99th percentile latency of each, and this process's CPU time per
// request (cpuTime: comparable between runs on a busy machine, where
// requests/s are not; nginx's own CPU is not in it). A page row ends when
// insights counted every view it served (the site's eventsCount): it
// prints how long after its last answer, and its CPU per request includes
// that counting. The load comes from
// wrk (apt-get install wrk: loadWrk) when it is in PATH, else from Go
// clients in this process, which share the two cores and take more of
// them (BENCH_LOAD=go picks these; see deployments/docs/benchmarks/http.md). Last, search over an
// organization of 10,000 pages (five Git imports of 2,000, about 30 s of
// setup) at 32 connections and at 1.
//
//	go test -run '^$' -bench HTTPTable -benchtime 1x ./deployments/local/
//
// BENCH_HTTP_SECONDS sets each target's duration (default 3);
// BENCH_HTTP_ONLY keeps the targets whose name contains it (and the
// baselines), to profile one; BENCH_HTTP_PROFILE=<folder> writes a CPU
// profile of each target's load there (target-<i>.cpu), and the blocking
// and mutex waits so far (target-<i>.block, .mutex), which find what a
// load waits for while the cores are not busy.
func BenchmarkHTTPTable(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	p, err := Start(ctx, Config{Addr: "127.0.0.1:0", ReaderAddr: "127.0.0.1:0", DataDir: b.TempDir(), LogLevel: "error", RateLimit: 0,
		OutboundAllowPrivate: true}, logx.Discard())
	cancel()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(p.Close)
	admin := client{base: p.URL, token: p.Credentials.DemoAdminToken}
	orgID := p.Credentials.DemoOrgID
	org := "/v1/orgs/" + orgID
	srv := gittest.NewServer(b, "", "")
	h := publishHandbook(b, admin, orgID, srv, 183)
	space, page, pages, n := h.space, h.page, h.pages, h.generated

	// The static baselines: the same page's HTML as a file, from nginx
	// (as is, and its .gz copy through gzip_static) when there is one, and
	// from Go's http.FileServer.
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true}}
	html := fetch(b, hc, target{url: page})
	// The same page on the gateway's readers' listener (READER_ADDR),
	// under the published URL's host, as a front proxy routes it.
	pageURL, err := url.Parse(page)
	if err != nil {
		b.Fatal(err)
	}
	pageHost, edgePage := pageURL.Host, p.ReaderURL+pageURL.RequestURI()
	if got := fetch(b, hc, target{url: edgePage, host: pageHost}); !bytes.Equal(got, html) {
		b.Fatalf("the readers' listener answers the page otherwise (%d bytes, not %d)", len(got), len(html))
	}
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "page.html"), html, 0o644); err != nil {
		b.Fatal(err)
	}
	static := httptest.NewServer(http.FileServer(http.Dir(dir)))
	b.Cleanup(static.Close)
	// Go's floor for the coded rows: net/http alone answering the page's
	// gzip bytes from memory, what the page cache keeps, with no router,
	// middleware or view behind it.
	gz := fetch(b, hc, target{url: page, accept: "gzip", coding: "gzip"})
	bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		h := w.Header()
		h["Content-Type"] = []string{"text/html; charset=utf-8"}
		h["Content-Encoding"] = []string{"gzip"}
		h["Content-Length"] = []string{strconv.Itoa(len(gz))}
		_, _ = w.Write(gz)
	}))
	b.Cleanup(bare.Close)
	fast := startFastHTTP(b, gz)

	bearer := "Bearer " + p.Credentials.DemoAdminToken
	var targets []target
	nginx, skipped := startNginx(b, html)
	if skipped != "" {
		b.Log(skipped)
	} else {
		targets = append(targets,
			target{name: "nginx, the page's HTML as a file", url: nginx, base: true},
			target{name: "nginx gzip_static, its .gz (Accept-Encoding: gzip)", url: nginx, accept: "gzip", coding: "gzip", base: true})
	}
	targets = append(targets,
		target{name: "Go http.FileServer, the page's HTML as a file", url: static.URL + "/page.html", base: true},
		target{name: "Go net/http alone, the page's gzip from memory (Accept-Encoding: gzip)", url: bare.URL, accept: "gzip", coding: "gzip", base: true},
		target{name: "fasthttp alone, the page's gzip from memory (Accept-Encoding: gzip)", url: fast, accept: "gzip", coding: "gzip", base: true},
		target{name: "gateway /healthz", url: p.URL + "/healthz"},
		target{name: "published page, no token", url: page},
		target{name: "published page, no token, Accept-Encoding: gzip", url: page, accept: "gzip", coding: "gzip"},
		target{name: "published page, no token, Accept-Encoding: gzip, br", url: page, accept: "gzip, br", coding: "br"},
		target{name: "published page on the readers' listener", url: edgePage, host: pageHost},
		target{name: "published page on the readers' listener, Accept-Encoding: gzip", url: edgePage, host: pageHost, accept: "gzip", coding: "gzip"},
		target{name: "published page on the readers' listener, Accept-Encoding: gzip, br", url: edgePage, host: pageHost, accept: "gzip, br", coding: "br"},
		target{name: "GET /v1/orgs/{id}", url: p.URL + org, auth: bearer},
		target{name: "GET /v1/spaces/{id}", url: p.URL + "/v1/spaces/" + space, auth: bearer},
		target{name: "GET /v1/orgs/{id}/spaces", url: p.URL + org + "/spaces", auth: bearer},
		target{name: "GET /v1/orgs/{id}/search?query=zebra", url: p.URL + org + "/search?query=zebra", auth: bearer},
	)
	// The reader's search, answered from the gateway's page cache when
	// asked again within its TTL, and past it (a parameter sites does not
	// read makes the request one the cache never looks up): the search
	// itself, every time.
	search := strings.TrimSuffix(page, "/getting-started/quickstart") + "/~search?q="
	for _, q := range []string{"zebra", "visitor+authentication"} {
		for _, past := range []string{"", ", past the gateway's cache"} {
			u := search + q
			if past != "" {
				u += "&bench=uncached"
			}
			name := "reader search `~search?q=" + q + "`, no token" + past
			targets = append(targets, target{name: name, url: u}, target{name: name + ", 1 connection", url: u, conns: 1})
		}
	}
	only := os.Getenv("BENCH_HTTP_ONLY")
	had := 0 // pages of the other user's organization
	if name := "GET /v1/orgs/{id}/search?query=zebra over 10,000 pages"; strings.Contains(name+", 1 connection", only) {
		idle := idleUse()
		var other, url string
		other, url, had = search10k(b, p, srv)
		// The imports' indexing and events done first: CPU per request
		// counts the whole process.
		if quiet, used := waitQuiet(idle, 3*time.Minute); !quiet {
			b.Logf("still using %.2f of a core 3 minutes after the imports", used)
		}
		targets = append(targets, target{name: name, url: url, auth: other},
			target{name: name + ", 1 connection", url: url, auth: other, conns: 1})
	}
	seconds := 3
	if s := os.Getenv("BENCH_HTTP_SECONDS"); s != "" {
		_, _ = fmt.Sscan(s, &seconds)
	}
	b.ResetTimer()
	var out strings.Builder
	fmt.Fprintf(&out, "\n%d pages (%d generated), %d-byte page, 32 connections, %d s each\n\n", pages, n, len(html), seconds)
	fmt.Fprintf(&out, "| target | requests/s | p50 | p99 | CPU per request | views counted after the last answer |\n|---|---|---|---|---|---|\n")
	// Each row's share is of the first baseline that sends what it sends:
	// a plain answer of the first baseline's, a coded one of the first
	// baseline coded (nginx's gzip_static; Go's FileServer codes nothing).
	var plainBase, codedBase float64
	// Every answer of the page is a view insights counts: a page row
	// ends when the site's eventsCount has them all (the pipeline keeps
	// up at the row's rate, and the next row does not pay for its views).
	views := 2 // the page fetched for the baselines, plain and gzip
	for i, tg := range targets {
		if !tg.base && only != "" && !strings.Contains(tg.name, only) {
			continue
		}
		fetch(b, hc, tg) // warm (and check: 200, in the coding asked for)
		isPage := tg.url == page || tg.url == edgePage
		if isPage {
			views++
		}
		stopProfile := profileTarget(b, i)
		cpu0 := cpuTime()
		conns := 32
		if tg.conns > 0 {
			conns = tg.conns
		}
		rps, p50, p99, answered := load(b, tg, conns, time.Duration(seconds)*time.Second)
		stopProfile()
		counted := ""
		if isPage {
			views += answered
			counted = viewsCountedAfter(b, admin, org+"/sites/"+h.site, views)
		}
		// The process's CPU over the row, a page's counting included.
		perRequest := (cpuTime() - cpu0) / time.Duration(max(1, answered))
		note, base := "", &plainBase
		if tg.coding != "" {
			base = &codedBase
		}
		switch {
		case tg.base && *base == 0:
			*base = rps
		case *base > 0:
			of := "the file"
			if targets[0].base && strings.HasPrefix(targets[0].name, "nginx") {
				of = "nginx"
			}
			note = fmt.Sprintf(" (%.0f%% of %s)", 100*rps/(*base), of)
		case plainBase > 0:
			note = fmt.Sprintf(" (%.0f%% of the plain file)", 100*rps/plainBase)
		}
		fmt.Fprintf(&out, "| %s | %.0f%s | %.2f ms | %.2f ms | %d µs | %s |\n", tg.name, rps, note,
			float64(p50.Microseconds())/1000, float64(p99.Microseconds())/1000, perRequest.Microseconds(), counted)
	}
	// The cross-tenant figure, in the same run: the demo organization's
	// list and search (the table's) before and after the other user's
	// grows by BENCH_HTTP_TENANT_SPACES spaces and to
	// BENCH_HTTP_TENANT_PAGES pages (`make bench-scale`: 10,000 and
	// 100,000; 0 spaces leaves it out).
	if spaces := envInt("BENCH_HTTP_TENANT_SPACES", 0); spaces > 0 {
		other := client{base: p.URL, token: p.Credentials.OtherOrgToken}
		pages := max(0, envInt("BENCH_HTTP_TENANT_PAGES", 100_000)-had)
		out.WriteString(crossTenant(b, p.URL+org, bearer, other, firstOrg(b, other), srv, spaces, pages, time.Duration(seconds)*time.Second, 100))
	}
	b.StopTimer()
	fmt.Print(out.String())
}

// viewsCountedAfter polls site's eventsCount until it reaches want and
// says how long that took, or how many it held after a minute.
func viewsCountedAfter(b *testing.B, admin client, site string, want int) string {
	start := time.Now()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	got := int64(-1)
	for range tick.C {
		if got = eventsCounted(b, admin, site); got >= int64(want) {
			return fmt.Sprintf("%.1f s", time.Since(start).Seconds())
		}
		if time.Since(start) > time.Minute {
			break
		}
	}
	return fmt.Sprintf("%d of %d after a minute", got, want)
}

// handbook is a published GitBook space: the space, its site, the URL of
// one of its published pages, its pages and the generated ones.
type handbook struct {
	space, site, page string
	pages, generated  int
}

// publishHandbook imports a GitBook repository of extra generated pages
// and the fixture's (~190 with 183) into a new space of org, as GitBook
// lays it out, and publishes it on a new site.
func publishHandbook(b testing.TB, admin client, orgID string, srv *gittest.Server, extra int) handbook {
	b.Helper()
	org := "/v1/orgs/" + orgID
	repo, n := handbookRepo(extra)
	name := fmt.Sprintf("handbook-%d", extra)
	srv.NewRepo(b, name, "main", repo)
	h := handbook{space: benchSpace(b, admin, orgID, "Handbook"), generated: n}
	if r := admin.raw("POST", "/v1/spaces/"+h.space+"/git/import", map[string]any{"url": srv.RepoURL(name), "ref": "refs/heads/main"}); r.Status != 204 {
		b.Fatalf("import: %d %s", r.Status, r.Body)
	}
	waittest.Until(b, "the import done", 2*time.Minute, func() bool {
		info := admin.raw("GET", "/v1/spaces/"+h.space+"/git/info", nil)
		return info.Status == 200 && strings.Contains(string(info.Body), `"success"`)
	})
	h.pages = countPages(admin, h.space)
	var st struct{ ID string }
	if r := admin.raw("POST", org+"/sites", map[string]any{"title": "Handbook", "spaces": []string{h.space}}); json.Unmarshal(r.Body, &st) != nil || st.ID == "" {
		b.Fatalf("create site: %d %s", r.Status, r.Body)
	}
	var site struct{ URLs struct{ Published string } }
	if r := admin.raw("POST", org+"/sites/"+st.ID+"/publish", nil); json.Unmarshal(r.Body, &site) != nil || site.URLs.Published == "" {
		b.Fatalf("publish: %d %s", r.Status, r.Body)
	}
	h.site, h.page = st.ID, site.URLs.Published+"/getting-started/quickstart"
	return h
}

// search10k fills the organization of the platform's other user with
// 10,000 pages the way users bring them: five spaces, each a Git import of
// a GitBook repository of about 2,000 pages (the GitBook fixture and
// fullGuides generated guides; a revision holds at most 2,000), imported at once. It
// returns the bearer of that user and the URL of a search of the
// organization, and logs how long the imports took.
func search10k(b *testing.B, p *Platform, srv *gittest.Server) (auth, url string, pages int) {
	other := client{base: p.URL, token: p.Credentials.OtherOrgToken}
	org := firstOrg(b, other)
	repo, _ := handbookRepo(fullGuides)
	srv.NewRepo(b, "handbook-2000", "main", repo)
	start := time.Now()
	pages = importSpaces(b, other, org, srv.RepoURL("handbook-2000"), 5)
	b.Logf("imported %d documents in 5 spaces in %s", pages, time.Since(start).Round(time.Second))
	return "Bearer " + p.Credentials.OtherOrgToken, p.URL + "/v1/orgs/" + org + "/search?query=zebra", pages
}

// profileTarget starts a CPU profile of target i's load in
// $BENCH_HTTP_PROFILE/target-<i>.cpu when that variable names a folder;
// the function it returns stops it and writes the waits recorded since the
// first profiled target (target-<i>.block, target-<i>.mutex: Go's profiles
// of waits cannot be reset).
func profileTarget(b *testing.B, i int) func() {
	dir := os.Getenv("BENCH_HTTP_PROFILE")
	if dir == "" {
		return func() {}
	}
	f, err := os.Create(filepath.Join(dir, fmt.Sprintf("target-%d.cpu", i)))
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	runtime.SetBlockProfileRate(int(20 * time.Microsecond))
	runtime.SetMutexProfileFraction(5)
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
		for _, name := range []string{"block", "mutex"} {
			w, err := os.Create(filepath.Join(dir, fmt.Sprintf("target-%d.%s", i, name)))
			if err != nil {
				b.Fatal(err)
			}
			_ = pprof.Lookup(name).WriteTo(w, 0)
			_ = w.Close()
		}
		runtime.SetBlockProfileRate(0)
		runtime.SetMutexProfileFraction(0)
	}
}

// cpuTime is the CPU time the process used so far (user and system): a
// target's CPU per request, load generator and whole platform included,
// which other work on a shared machine slows but does not inflate as it
// does latencies.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// fullGuides is how many guides handbookRepo adds for a repository near a
// revision's 2,000 pages, the fixture's own pages and its groups counted
// (the importer refuses one page more).
const fullGuides = 1980

// handbookRepo is the GitBook fixture with extra generated pages (a section of
// guides listed in SUMMARY.md); it returns how many it generated.
func handbookRepo(extra int) (map[string][]byte, int) {
	files := gitbookRepo()
	var summary strings.Builder
	summary.Write(files["SUMMARY.md"])
	summary.WriteString("\n## Guides\n\n")
	for i := range extra {
		name := fmt.Sprintf("guides/guide-%03d.md", i)
		summary.WriteString(fmt.Sprintf("* [Guide %d](%s)\n", i, name))
		files[name] = []byte(fmt.Sprintf("---\ndescription: Guide number %d about zebras.\n---\n\n# Guide %d\n\n"+
			"Zebras graze in herds; this guide covers case %d.\n\n## Steps\n\n1. Find the herd.\n2. Count the stripes.\n"+
			"3. Read the [quickstart](../getting-started/quickstart.md).\n\n```go\nfmt.Println(\"zebra %d\")\n```\n\n"+
			"{%% hint style=\"info\" %%}\nStripes are unique to each zebra.\n{%% endhint %%}\n", i, i, i, i))
	}
	files["SUMMARY.md"] = []byte(summary.String())
	return files, extra
}

// target is a row of the table: what is loaded, with which
// Authorization and Accept-Encoding (none when empty), the
// Content-Encoding its answers must have, from how many connections (32
// when 0), and whether it is a baseline (kept whatever BENCH_HTTP_ONLY
// says).
type target struct {
	name, url, auth, accept, coding string
	// host is the Host header when it is not url's (the readers'
	// listener, reached as a front proxy reaches it).
	host  string
	conns int
	base  bool
}

// request is a GET of tg.
func (tg target) request() *http.Request {
	req, _ := http.NewRequest(http.MethodGet, tg.url, nil)
	if tg.host != "" {
		req.Host = tg.host
	}
	if tg.auth != "" {
		req.Header.Set("Authorization", tg.auth)
	}
	if tg.accept != "" {
		req.Header.Set("Accept-Encoding", tg.accept)
	}
	return req
}

// fetch GETs tg and fails unless it answers 200 in the coding tg asks
// for (a refill of the gateway's page cache included: it answers in the
// coding the cache's answers take).
func fetch(b *testing.B, hc *http.Client, tg target) []byte {
	b.Helper()
	res, err := hc.Do(tg.request())
	if err != nil {
		b.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	_ = res.Body.Close()
	if res.StatusCode != 200 {
		b.Fatalf("GET %s: %d %.300s", tg.url, res.StatusCode, body)
	}
	if got := res.Header.Get("Content-Encoding"); got != tg.coding {
		b.Fatalf("GET %s, Accept-Encoding %q: Content-Encoding %q, want %q", tg.url, tg.accept, got, tg.coding)
	}
	return body
}

// load sends GETs of tg from conns connections for d (through wrk when
// there is one: loadWrk) and returns the
// requests/s answered 200, the median and 99th percentile latency, and
// how many were answered 200.
func load(b *testing.B, tg target, conns int, d time.Duration) (rps float64, p50, p99 time.Duration, answered int) {
	b.Helper()
	if rps, p50, p99, answered, ok := loadWrk(b, tg, conns, d); ok {
		return rps, p50, p99, answered
	}
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns, DisableCompression: true}}
	defer hc.CloseIdleConnections()
	var (
		mu     sync.Mutex
		all    []time.Duration
		failed int
		wg     sync.WaitGroup
	)
	start := time.Now()
	deadline := start.Add(d)
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lat := make([]time.Duration, 0, 4096)
			bad := 0
			req := tg.request()
			for time.Now().Before(deadline) {
				t0 := time.Now()
				res, err := hc.Do(req)
				if err != nil {
					bad++
					continue
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != 200 {
					bad++
					continue
				}
				lat = append(lat, time.Since(t0))
			}
			mu.Lock()
			all, failed = append(all, lat...), failed+bad
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if failed > 0 {
		b.Logf("GET %s: %d requests failed", tg.url, failed)
	}
	if len(all) == 0 {
		b.Fatalf("GET %s: no request answered", tg.url)
	}
	return float64(len(all)) / elapsed.Seconds(), percentile(all, 50), percentile(all, 99), len(all)
}
