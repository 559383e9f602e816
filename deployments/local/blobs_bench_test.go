package local

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/docspub/platform/libs/logx"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/docspub/platform/libs/internaltoken"
)

// benchAPI sends the requests of the blob benchmarks: the public API with a
// bearer token, content's internal API with an internal token.
type benchAPI struct {
	b        testing.TB
	p        *Platform
	internal string // a token of a platform service for content
}

func newBenchAPI(b testing.TB, p *Platform) *benchAPI {
	b.Helper()
	tok := serviceToken(b, p, "integrations", "content", internaltoken.Principal{})
	return &benchAPI{b: b, p: p, internal: tok}
}

// send sends body (JSON unless it is []byte) and returns the answer's body.
func (a *benchAPI) send(method, u, token string, internal bool, body any) []byte {
	a.b.Helper()
	var rd io.Reader
	ct := "application/json"
	switch v := body.(type) {
	case nil:
	case []byte:
		rd, ct = bytes.NewReader(v), "application/octet-stream"
	default:
		raw, _ := json.Marshal(body)
		rd = bytes.NewReader(raw)
	}
	req, _ := http.NewRequest(method, u, rd)
	if internal {
		req.Header.Set(internaltoken.Header, a.internal)
	} else {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	req.Header.Set("Content-Type", ct)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		a.b.Fatal(err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 300 {
		a.b.Fatalf("%s %s: %d %s", method, u, res.StatusCode, out)
	}
	return out
}

// space creates a space of org (the token's) and returns its id and first revision.
func (a *benchAPI) space(org, token, title string) (string, string) {
	var sp struct{ ID, Revision string }
	if err := json.Unmarshal(a.send("POST", a.p.URL+"/v1/orgs/"+org+"/spaces", token, false, map[string]any{"title": title}), &sp); err != nil {
		a.b.Fatal(err)
	}
	return sp.ID, sp.Revision
}

// files stores files in a space (content's internal API) and makes a
// revision of one page showing them; it returns the revision.
func (a *benchAPI) files(space, parent string, data map[string][]byte) string {
	git := a.p.ContentURL + "/internal/v1/spaces/" + space + "/git"
	var files []map[string]any
	md := "Files.\n"
	for name, d := range data {
		var v struct {
			Blob string
			Size int64
		}
		if err := json.Unmarshal(a.send("POST", git+"/blobs?name="+url.QueryEscape(name)+"&contentType=image/png", "", true, d), &v); err != nil {
			a.b.Fatal(err)
		}
		files = append(files, map[string]any{"name": name, "contentType": "image/png", "size": v.Size, "blob": v.Blob})
	}
	revise := func(parent, md string) string {
		var rev struct{ Revision string }
		if err := json.Unmarshal(a.send("POST", git+"/revisions", "", true, map[string]any{"parent": parent,
			"pages": []map[string]any{{"kind": "document", "title": "Home", "slug": "home", "markdown": md, "pages": []any{}}},
			"files": files}), &rev); err != nil {
			a.b.Fatal(err)
		}
		return rev.Revision
	}
	rev := revise(parent, md)
	// Again, the page's images naming the files by the ids content gave
	// them (kept by name).
	var cur struct {
		Files []struct{ ID, Name string }
	}
	if err := json.Unmarshal(a.send("GET", git+"/content", "", true, nil), &cur); err != nil {
		a.b.Fatal(err)
	}
	md = ""
	for _, f := range cur.Files {
		md += "![" + f.Name + "](files/" + f.ID + ")\n"
	}
	return revise(rev, md)
}

// randomBytes are n bytes that do not compress.
func randomBytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, seed+1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

var benchFileLink = regexp.MustCompile(`src="(/sites/[^"]*/~files/[^"]+)"`)

// BenchmarkImageThroughReader reads a 25 KB image of a public published
// site through the gateway and the reader (no token), and the same bytes
// from Go's http.FileServer in the same process and run: p50 and p99 of
// one reader at a time, requests per second of 8 readers at once, and
// the ratios. Latency figures share two cores with the platform and any
// other work on the machine: read them as rough.
//
//	go test -run '^$' -bench ImageThroughReader -benchtime 2000x ./deployments/local/
func BenchmarkImageThroughReader(b *testing.B) {
	p := benchPlatform(b)
	img := randomBytes(1, 25<<10)
	imageURL := publishImage(b, p, img)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}

	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "diagram.png"), img, 0o644); err != nil {
		b.Fatal(err)
	}
	static := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer static.Close()
	staticURL := static.URL + "/diagram.png"

	get := func(u string) time.Duration {
		start := time.Now()
		res, err := hc.Get(u)
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || n != int64(len(img)) {
			b.Fatalf("GET %s: %d, %d bytes", u, res.StatusCode, n)
		}
		return time.Since(start)
	}
	for range 50 { // warm: revision and file cached, connections open
		get(imageURL)
		get(staticURL)
	}
	reader := make([]time.Duration, 0, b.N)
	files := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		reader = append(reader, get(imageURL))
		files = append(files, get(staticURL))
	}
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
	staticRate := rate(staticURL)
	readerRate := rate(imageURL)
	b.StopTimer()
	b.ReportMetric(float64(percentile(reader, 50).Microseconds()), "reader-p50-µs")
	b.ReportMetric(float64(percentile(reader, 99).Microseconds()), "reader-p99-µs")
	b.ReportMetric(float64(percentile(files, 50).Microseconds()), "fileserver-p50-µs")
	b.ReportMetric(float64(percentile(files, 99).Microseconds()), "fileserver-p99-µs")
	b.ReportMetric(readerRate, "reader-req/s")
	b.ReportMetric(staticRate, "fileserver-req/s")
	b.ReportMetric(readerRate/staticRate, "throughput-ratio")
}

// BenchmarkFileReadWithOtherData reads a 25 KB file through the API
// (download, with a member's token, through the gateway) with 10 MB of
// other organizations' files stored, then with BENCH_OTHER_MB (default
// 200) MB: p50 of each and their ratio (goal: within 20 %).
//
//	go test -run '^$' -bench FileReadWithOtherData -benchtime 500x -timeout 30m ./deployments/local/
func BenchmarkFileReadWithOtherData(b *testing.B) {
	p := benchPlatform(b)
	a := newBenchAPI(b, p)
	sp, first := a.space(p.Credentials.DemoOrgID, p.Credentials.DemoAdminToken, "Reads")
	rev := a.files(sp, first, map[string][]byte{"small.png": randomBytes(2, 25<<10)})
	var fl struct {
		Items []struct{ ID string } `json:"items"`
	}
	if err := json.Unmarshal(a.send("GET", p.URL+"/v1/spaces/"+sp+"/content/files", p.Credentials.DemoAdminToken, false, nil), &fl); err != nil || len(fl.Items) != 1 {
		b.Fatalf("files: %v %v", fl, err)
	}
	download := p.URL + "/v1/spaces/" + sp + "/revisions/" + rev + "/files/" + fl.Items[0].ID + "/download"

	var orgs struct {
		Items []struct{ ID string } `json:"items"`
	}
	if err := json.Unmarshal(a.send("GET", p.URL+"/v1/orgs", p.Credentials.OtherOrgToken, false, nil), &orgs); err != nil || len(orgs.Items) == 0 {
		b.Fatalf("other org: %v", err)
	}
	other := orgs.Items[0].ID
	stored := 0
	// store adds other organizations' files up to mb megabytes, 1 MB each,
	// 10 to a revision.
	store := func(mb int) {
		for stored < mb {
			osp, orev := a.space(other, p.Credentials.OtherOrgToken, fmt.Sprintf("Other %d", stored))
			batch := map[string][]byte{}
			for i := 0; i < 10 && stored < mb; i++ {
				batch[fmt.Sprintf("f%d.bin", stored)] = randomBytes(uint64(100+stored), 1<<20)
				stored++
			}
			a.files(osp, orev, batch)
		}
	}
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	read := func() time.Duration {
		req, _ := http.NewRequest("GET", download, nil)
		req.Header.Set("Authorization", "Bearer "+p.Credentials.DemoReaderToken)
		start := time.Now()
		res, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || n != 25<<10 {
			b.Fatalf("download: %d, %d bytes", res.StatusCode, n)
		}
		return time.Since(start)
	}
	// The space's own read (no file): what the gate and the API cost
	// whatever the files, beside the download.
	readSpace := func() time.Duration {
		req, _ := http.NewRequest("GET", p.URL+"/v1/spaces/"+sp, nil)
		req.Header.Set("Authorization", "Bearer "+p.Credentials.DemoReaderToken)
		start := time.Now()
		res, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			b.Fatalf("GET space: %d", res.StatusCode)
		}
		return time.Since(start)
	}
	measure := func() (time.Duration, time.Duration) {
		for range 20 {
			read()
			readSpace()
		}
		d := make([]time.Duration, 0, b.N)
		s := make([]time.Duration, 0, b.N)
		for range b.N {
			d = append(d, read())
			s = append(s, readSpace())
		}
		return percentile(d, 50), percentile(s, 50)
	}
	large := 200
	if v, err := strconv.Atoi(os.Getenv("BENCH_OTHER_MB")); err == nil && v > 10 {
		large = v
	}
	b.ResetTimer()
	store(10)
	small, smallSpace := measure()
	b.StopTimer()
	store(large)
	b.StartTimer()
	big, bigSpace := measure()
	b.StopTimer()
	b.ReportMetric(float64(small.Microseconds()), "p50-10MB-µs")
	b.ReportMetric(float64(big.Microseconds()), fmt.Sprintf("p50-%dMB-µs", large))
	b.ReportMetric(float64(big)/float64(small), "ratio")
	b.ReportMetric(float64(smallSpace.Microseconds()), "space-p50-10MB-µs")
	b.ReportMetric(float64(bigSpace.Microseconds()), fmt.Sprintf("space-p50-%dMB-µs", large))
}

// publishImage publishes a public site whose home page shows img and
// returns the image's URL through the gateway.
func publishImage(b testing.TB, p *Platform, img []byte) string {
	b.Helper()
	a := newBenchAPI(b, p)
	sp, first := a.space(p.Credentials.DemoOrgID, p.Credentials.DemoAdminToken, "Images")
	a.files(sp, first, map[string][]byte{"diagram.png": img})
	var st struct{ ID string }
	org := p.URL + "/v1/orgs/" + p.Credentials.DemoOrgID
	if err := json.Unmarshal(a.send("POST", org+"/sites", p.Credentials.DemoAdminToken, false,
		map[string]any{"title": "Images", "spaces": []string{sp}}), &st); err != nil {
		b.Fatal(err)
	}
	var site struct {
		URLs struct{ Published string }
	}
	if err := json.Unmarshal(a.send("POST", org+"/sites/"+st.ID+"/publish", p.Credentials.DemoAdminToken, false, nil), &site); err != nil {
		b.Fatal(err)
	}
	home := a.send("GET", site.URLs.Published, "", false, nil)
	m := benchFileLink.FindSubmatch(home)
	if m == nil {
		b.Fatalf("no image on the published page: %s", home)
	}
	return p.URL + string(m[1])
}

// A published image read through the gateway twice is revalidated with a
// 304 (no body), and a Range of it is a 206: the gateway passes the
// headers both ways.
func TestPublishedImageLikeAStaticFile(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, err := Start(ctx, Config{Addr: "127.0.0.1:0", DataDir: t.TempDir(), RateLimit: 0, LogLevel: "warn"}, logx.ForTest(t))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	img := randomBytes(3, 25<<10)
	u := publishImage(t, p, img)
	get := func(h ...string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest("GET", u, nil)
		for i := 0; i+1 < len(h); i += 2 {
			req.Header.Set(h[i], h[i+1])
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, b
	}
	first, body := get()
	etag := first.Header.Get("ETag")
	if first.StatusCode != 200 || !bytes.Equal(body, img) || etag == "" {
		t.Fatalf("first read: %d, %d bytes, ETag %q", first.StatusCode, len(body), etag)
	}
	if got := first.Header.Get("Cache-Control"); got != "public, max-age=31536000, immutable" {
		t.Errorf("Cache-Control = %q", got)
	}
	again, body := get("If-None-Match", etag)
	if again.StatusCode != http.StatusNotModified || len(body) != 0 {
		t.Errorf("revalidation: %d with %d bytes, want 304 and none", again.StatusCode, len(body))
	}
	part, body := get("Range", "bytes=100-199")
	if part.StatusCode != http.StatusPartialContent || !bytes.Equal(body, img[100:200]) {
		t.Errorf("Range: %d with %d bytes, want 206 and bytes 100-199", part.StatusCode, len(body))
	}
}
