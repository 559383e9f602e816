package content_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docspub/platform/services/content/internal/contenttest"
	"github.com/docspub/platform/services/content/internal/limits"
)

// aloneEnv names the one abuse test a child process runs (TestAbuseAlone).
const aloneEnv = "CONTENT_ABUSE_ALONE"

// maxRSS bounds the service's peak memory during an abuse test.
const maxRSS = 300 << 20

// alone skips the test unless its process runs only it: the peak memory
// measured is then the test's.
func alone(t *testing.T) {
	t.Helper()
	if os.Getenv(aloneEnv) != t.Name() {
		t.Skip("runs alone in a process of its own, started by TestAbuseAlone")
	}
}

// TestAbuseAlone runs the PDF and import abuse tests, each alone in a child
// process (this test binary, told which test to run), so that each measures
// its own peak RSS.
func TestAbuseAlone(t *testing.T) {
	if os.Getenv(aloneEnv) != "" {
		t.Skip("a child runs one abuse test only")
	}
	for _, name := range []string{"TestAbusePDFOfHugeImage", "TestAbuseNestedQuotesImport"} {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run", "^"+name+"$", "-test.v", "-test.count=1", "-test.timeout=10m")
			cmd.Env = append(os.Environ(), aloneEnv+"="+name)
			out, err := cmd.CombinedOutput()
			for _, line := range strings.Split(string(out), "\n") {
				if strings.Contains(line, "abuse_alone_test.go") || strings.Contains(line, "abuse_test.go") {
					t.Log(strings.TrimSpace(line))
				}
			}
			if err != nil || !strings.Contains(string(out), "--- PASS: "+name) {
				t.Fatalf("%s failed (%v):\n%s", name, err, out)
			}
		})
	}
}

// checkRSS fails the test when the process's peak memory passed maxRSS.
func checkRSS(t *testing.T, when string) {
	t.Helper()
	peak := contenttest.PeakRSS(t)
	t.Logf("peak RSS %s: %d MB", when, peak>>20)
	if peak > maxRSS {
		t.Fatalf("peak RSS %d MB %s, more than %d MB", peak>>20, when, maxRSS>>20)
	}
}

// floodUntil repeats waves of n requests at once until stop is closed and
// counts the answers by status; sample429 is a 429 answer, if any.
func floodUntil(stop <-chan struct{}, n int, f func() (reply, error)) (counts map[int]int, sample429 reply) {
	counts = map[int]int{}
	for {
		select {
		case <-stop:
			return counts, sample429
		default:
		}
		c, rs := flood(n, f)
		for k, v := range c {
			counts[k] += v
		}
		for _, r := range rs {
			if r.status == 429 {
				sample429 = r
			}
		}
	}
}

// floodAndMeasure floods with waves of n requests at once while it
// measures m requests of another organization, one after the other.
func floodAndMeasure(t *testing.T, n int, flooding func() (reply, error), m int, other func() reply) (map[int]int, reply, []time.Duration) {
	t.Helper()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var counts map[int]int
	var sample reply
	wg.Add(1)
	go func() {
		defer wg.Done()
		counts, sample = floodUntil(stop, n, flooding)
	}()
	during := latencies(t, m, other)
	close(stop)
	wg.Wait()
	return counts, sample, during
}

// checkQuota fails unless the flood met its organization's quota: 429s with
// Retry-After, and nothing but successes and 429s.
func checkQuota(t *testing.T, counts map[int]int, sample reply, ok int) {
	t.Helper()
	t.Logf("the flood's answers by status: %v", counts)
	for status := range counts {
		if status != ok && status != 429 {
			t.Errorf("flood answers %d: %d times", status, counts[status])
		}
	}
	if counts[429] == 0 {
		t.Error("the flood was never refused with a 429")
	} else if sample.header.Get("Retry-After") == "" {
		t.Error("a 429 without Retry-After")
	}
}

// TestAbusePDFOfHugeImage: a 10000 × 10000 PNG (400 KB) imported into a
// change request, then printed, took content from 100 MB to 1.9 GB (and a
// 10 MB image can be far worse); rendering ignored its request's end. The
// PDF now prints a placeholder without decoding the image, renders are
// queued per organization (429 beyond), and another organization's PDFs
// keep their latency while one floods.
func TestAbusePDFOfHugeImage(t *testing.T) {
	alone(t)
	s := startService(t, time.Hour)
	ctx := context.Background()
	a, b := s.as("mallory", "orgA", "admin"), s.as("bob", "orgB", "admin")
	huge := contenttest.BigPNG(t, 10000, 10000)
	srv := site(t, map[string]string{
		"/":      `<html><head><title>Photo</title></head><body><p>The photo:</p><img src="/huge.png"></body></html>`,
		"/small": `<html><head><title>Notes</title></head><body><p>Short notes</p><img src="/logo.png"></body></html>`,
	}, map[string][]byte{"/huge.png": huge, "/logo.png": contenttest.BigPNG(t, 64, 64)})
	crA := a.changeRequest(a.space("Photos"))
	if r := a.importSite(crA, srv.URL+"/"); r.status != 201 {
		t.Fatalf("import: %d %.300s", r.status, r.body)
	}
	r, err := a.pdf(ctx, crA)
	if err != nil || r.status != 200 || r.header.Get("Content-Type") != "application/pdf" {
		t.Fatalf("PDF: %v %d %.300s", err, r.status, r.body)
	}
	t.Logf("PDF of a %d KB PNG of 10000 × 10000 pixels: %d KB in %s", len(huge)>>10, len(r.body)>>10, r.took.Round(time.Millisecond))
	checkRSS(t, "after printing it")

	crB := b.changeRequest(b.space("Notes"))
	if r := b.importSite(crB, srv.URL+"/small"); r.status != 201 {
		t.Fatalf("import: %d %.300s", r.status, r.body)
	}
	pdfB := func() reply {
		r, err := b.pdf(ctx, crB)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	aloneB := latencies(t, 5, pdfB)
	counts, sample, during := floodAndMeasure(t, 8, func() (reply, error) { return a.pdf(ctx, crA) }, 5, pdfB)
	checkQuota(t, counts, sample, 200)
	keptLatency(t, "a PDF", aloneB, during, time.Second)
	checkRSS(t, "after the flood")
}

// TestAbuseNestedQuotesImport: a 56 KB page of nested <blockquote> and
// <br> imported from a website converted to 10 MB of markdown with 25 s of
// CPU and 28 GB allocated. Nesting is now cut before conversion, imports
// are queued per organization (429 beyond), and another organization's
// imports keep their latency while one floods.
func TestAbuseNestedQuotesImport(t *testing.T) {
	alone(t)
	s := startService(t, time.Hour)
	a, b := s.as("mallory", "orgA", "admin"), s.as("bob", "orgB", "admin")
	page := contenttest.NestedQuotes()
	srv := site(t, map[string]string{
		"/":      page,
		"/small": `<html><head><title>Notes</title></head><body><h1>Notes</h1><p>Short notes.</p></body></html>`,
	}, nil)
	crA := a.changeRequest(a.space("Quotes"))
	r := a.importSite(crA, srv.URL+"/")
	if r.status != 201 {
		t.Fatalf("import: %d %.300s", r.status, r.body)
	}
	md := str(t, a.must(200, "GET", crA+"/content/page/"+pageID(t, a.must(200, "GET", crA+"/content/pages", nil).json(t), "home"), nil).json(t), "markdown")
	t.Logf("import of the %d KB nested-quote page: %d KB of markdown in %s", len(page)>>10, len(md)>>10, r.took.Round(time.Millisecond))
	if len(md) > limits.PageMarkdown {
		t.Errorf("%d bytes of markdown from a %d-byte page", len(md), len(page))
	}
	if r.took > 10*time.Second {
		t.Errorf("the import took %s", r.took)
	}
	checkRSS(t, "after importing it")

	crB := b.changeRequest(b.space("Notes"))
	importB := func() reply { return b.importSite(crB, srv.URL+"/small") }
	aloneB := latencies(t, 4, importB)
	counts, sample, during := floodAndMeasure(t, 8, func() (reply, error) {
		return a.do(context.Background(), "POST", crA+"/content/import", map[string]any{"source": "website", "url": srv.URL + "/"})
	}, 4, importB)
	checkQuota(t, counts, sample, 201)
	keptLatency(t, "an import", aloneB, during, time.Second)
	checkRSS(t, "after the flood")
}

// pageID returns the id of the page at path in a listing of pages (the
// API has a page by path on a space alone, not on a change request).
func pageID(t testing.TB, listing map[string]any, path string) string {
	t.Helper()
	pages, _ := listing["pages"].([]any)
	for len(pages) > 0 {
		p, _ := pages[0].(map[string]any)
		pages = pages[1:]
		if p["path"] == path {
			return str(t, p, "id")
		}
		children, _ := p["pages"].([]any)
		pages = append(pages, children...)
	}
	t.Fatalf("no page at %q in %v", path, listing)
	return ""
}
