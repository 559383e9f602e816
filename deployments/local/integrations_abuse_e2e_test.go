package local

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docspub/platform/libs/gittest"
	"github.com/docspub/platform/libs/waittest"
)

// refChainSpec is issue 19's slow spec: n component schemas, each
// referring to the next one (about 80 bytes per link: 40,000 make 3 MB).
func refChainSpec(n int) string {
	var b strings.Builder
	b.WriteString(`{"openapi":"3.0.3","info":{"title":"Chain","version":"1"},"paths":{"/x":{"get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/S0"}}}}}}}},"components":{"schemas":{`)
	for i := range n {
		fmt.Fprintf(&b, `"S%d":{"type":"object","properties":{"next":{"$ref":"#/components/schemas/S%d"}}},`, i, i+1)
	}
	fmt.Fprintf(&b, `"S%d":{"type":"string"}}}}`, n)
	return b.String()
}

// nestedSummary is issue 19's SUMMARY.md: a list one level deeper on every
// line, size bytes long.
func nestedSummary(size int) []byte {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "%s* [P%d](p%d.md)\n", strings.Repeat("  ", i), i, i)
	}
	return []byte(b.String())
}

// TestIntegrationsAbuseIsBounded: issue 19's parser abuse through the
// gateway. One organization submits 3 MB OpenAPI specs with a 40,000-link
// $ref chain (each used to hold a job worker for minutes) and imports a
// repository with a 4 MB nested-list SUMMARY.md; each fails quickly with
// an error naming the limit, while another organization's small Git
// import, timed quiet and then during the abuse, stays within 2.5× its quiet
// time (medians; the machine is shared, so the figures are noisy).
func TestIntegrationsAbuseIsBounded(t *testing.T) {
	p, _ := startPlatformLogged(t, "warn", nil)
	admin := client{t, p.URL, p.Credentials.DemoAdminToken}
	other := client{t, p.URL, p.Credentials.OtherOrgToken}
	org := "/v1/orgs/" + p.Credentials.DemoOrgID
	otherOrg := "/v1/orgs/" + str(items(t, other.op("listOrganizationsForAuthenticatedUser", "GET", "/v1/orgs", nil))[0], "id")

	git := gittest.NewServer(t, "", "")
	git.NewRepo(t, "small", "main", map[string][]byte{
		"SUMMARY.md": []byte("# Contents\n\n* [Home](README.md)\n* [Guide](guide.md)\n  * [Install](install.md)\n"),
		"README.md":  []byte("# Home\n\nWelcome.\n"), "guide.md": []byte("# Guide\n\nRead.\n"), "install.md": []byte("# Install\n\nmake\n"),
	})
	git.NewRepo(t, "bomb", "main", map[string][]byte{"SUMMARY.md": nestedSummary(4 << 20), "README.md": []byte("# Home\n")})
	theirs := str(other.schema("Space", 201, "POST", otherOrg+"/spaces", map[string]any{"title": "Their docs"}).json(t), "id")
	importOnce := func() time.Duration {
		start := time.Now()
		other.status(204, "POST", "/v1/spaces/"+theirs+"/git/import", map[string]any{"url": git.RepoURL("small"), "ref": "refs/heads/main"})
		var info map[string]any
		waittest.Until(t, "their import", 2*time.Minute, func() bool {
			info = other.status(200, "GET", "/v1/spaces/"+theirs+"/git/info", nil).json(t)
			op, _ := info["operation"].(map[string]any)
			return op != nil && op["state"] != "running"
		})
		if st, e := opState(info); st != "success" {
			t.Fatalf("their import ended %s: %s", st, e)
		}
		return time.Since(start)
	}
	importOnce() // warm up

	// The abuse: ten slow specs (half the organization's pending bound),
	// replaced again and again (each replacement processes the spec anew),
	// and the SUMMARY.md bomb. Quiet and abused imports alternate, so that
	// both see the same load from the rest of the machine.
	chain := refChainSpec(40_000)
	specs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, chain) }))
	t.Cleanup(specs.Close)
	const slow = 10
	start := time.Now()
	for i := range slow {
		admin.status(201, "POST", org+"/openapi", map[string]any{"slug": fmt.Sprintf("chain-%d", i),
			"source": map[string]any{"url": fmt.Sprintf("%s/chain-%d.json", specs.URL, i)}})
	}
	bombSpace := str(admin.schema("Space", 201, "POST", org+"/spaces", map[string]any{"title": "Bomb"}).json(t), "id")
	admin.status(204, "POST", "/v1/spaces/"+bombSpace+"/git/import", map[string]any{"url": git.RepoURL("bomb"), "ref": "refs/heads/main"})
	var replaced atomic.Int64
	abuse := func() (stop func()) {
		done := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ; n++ {
				select {
				case <-done:
					return
				default:
				}
				replaced.Add(1)
				_, _ = admin.send("PUT", fmt.Sprintf("%s/openapi/chain-%d", org, n%slow),
					map[string]any{"source": map[string]any{"url": fmt.Sprintf("%s/chain-%d.json?n=%d", specs.URL, n%slow, n)}})
			}
		}()
		return func() { close(done); wg.Wait() }
	}
	var quiet, during []time.Duration
	for round := range 5 {
		if round > 0 {
			quiet = append(quiet, importOnce())
		}
		stop := abuse()
		during = append(during, importOnce())
		stop()
	}
	quiet = append(quiet, importOnce())

	// Each slow spec's last processing: from its replacement to its end.
	var slowest time.Duration
	waittest.Until(t, "the slow specs processed", 2*time.Minute, func() bool {
		slowest = 0
		for i := range slow {
			sp := admin.status(200, "GET", fmt.Sprintf("%s/openapi/chain-%d", org, i), nil).json(t)
			if sp["processingState"] != "complete" {
				return false
			}
			errs := fmt.Sprint(sp["lastProcessedErrors"])
			if sp["lastProcessErrorCode"] != "PARSE_ERROR" || !strings.Contains(errs, "chain of $refs is longer than 500") {
				t.Fatalf("slow spec %d ended %v: %s", i, sp["lastProcessErrorCode"], errs)
			}
			slowest = max(slowest, since(t, sp, "updatedAt", "lastProcessedAt"))
		}
		return true
	})
	info := gitDone(t, admin, bombSpace)
	if st, e := opState(info); st != "failure" || !strings.Contains(e, "SUMMARY.md is larger than") {
		t.Fatalf("the SUMMARY.md bomb's import ended %s: %q", st, e)
	}
	op, _ := info["operation"].(map[string]any)
	bomb := since(t, op, "startedAt", "endedAt")

	q, d := median(quiet), median(during)
	t.Logf("their import: quiet p50 %s %v; during the abuse p50 %s %v; %d replacements of the slow specs, the slowest processing %s; the SUMMARY.md bomb's import failed in %s (abuse began %s ago)",
		q, quiet, d, during, replaced.Load(), slowest, bomb, time.Since(start).Round(time.Millisecond))
	if slowest > 30*time.Second || bomb > 30*time.Second {
		t.Errorf("a slow spec took %s to fail, the SUMMARY.md bomb %s", slowest, bomb)
	}
	// Each import during the abuse against the quiet ones next to it (the
	// one before and the one after): the machine's other load drifts over
	// the test's seconds (the CI runs other packages beside it), and only
	// the neighbours share it. The bound is a fair share's, not
	// isolation's: the abusing organization runs one job of a kind at once
	// (JOB_TENANT_LIMIT), each followed by a rest as long as it ran in
	// every replica (JOB_TENANT_REST), and its requests beside it, so on
	// CI's two cores it holds at most about one of them, and an import that
	// uses both may take twice as long by fair sharing alone; 2.5 leaves
	// the machine's noise. (With each replica keeping its own rest, the
	// abuse's parses ran back to back, one replica's after the other's, and
	// 2.56 was seen; with the rest shared, 0.9 to 1.3 here, the other
	// organization's imports resting too.) What this catches is a worker held for minutes, or an
	// organization taking every worker: imports then wait for the abuse to
	// end (ten times and more).
	if r := ratioToNeighbours(during, quiet); r > 2.5 {
		t.Errorf("their import took %.1f times as long during the abuse as next to it (p50 %s during, %s quiet)", r, d, q)
	}
}

// ratioToNeighbours is the median of during[i] over the mean of the quiet
// imports next to it, quiet[i-1] and quiet[i] (the first has only the one
// after it): the rounds alternate during[0], quiet[0], during[1], ….
func ratioToNeighbours(during, quiet []time.Duration) float64 {
	ratios := make([]time.Duration, len(during))
	for i, d := range during {
		near := quiet[i]
		if i > 0 {
			near = (quiet[i-1] + quiet[i]) / 2
		}
		ratios[i] = time.Duration(float64(d) / float64(near) * float64(time.Second))
	}
	return median(ratios).Seconds()
}

// since is the time from m's field from to its field to (RFC 3339).
func since(t *testing.T, m map[string]any, from, to string) time.Duration {
	t.Helper()
	a, err1 := time.Parse(time.RFC3339Nano, str(m, from))
	b, err2 := time.Parse(time.RFC3339Nano, str(m, to))
	if err1 != nil || err2 != nil {
		t.Fatalf("%s %q, %s %q in %v", from, str(m, from), to, str(m, to), m)
	}
	return b.Sub(a)
}
