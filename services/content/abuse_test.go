package content_test

// The abuse suite of issue 13 ("No tenant can hurt another"): each test
// plays a hostile tenant with ordinary API calls on its own data, through
// the real service (FerretDB, kfake, HTTP), and shows a 4xx or a bounded
// cost; the flood tests measure, in the same test, that another
// organization's requests keep their latency. The PDF and import floods run
// alone in a process of their own to measure its peak memory
// (abuse_alone_test.go).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docspub/platform/libs/blob"
	"github.com/docspub/platform/libs/blob/blobtest"
	"github.com/docspub/platform/libs/kafkax"

	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/kafkatest"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/mongotest"
	libservice "github.com/docspub/platform/libs/service"
	"github.com/docspub/platform/libs/waittest"
	"github.com/docspub/platform/services/content"
	"github.com/docspub/platform/services/content/internal/contenttest"
	"github.com/docspub/platform/services/content/internal/limits"
	"github.com/docspub/platform/services/content/internal/searchmongo"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// clock is the service's clock, which tests step forward.
type clock struct {
	mu  sync.Mutex
	off time.Duration
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.off)
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.off += d
}

// service is a running content service with its own database and Kafka.
type service struct {
	t       *testing.T
	app     *content.App
	url     string
	brokers []string
	clock   *clock
	signer  *internaltoken.Signer
	blobURL string
}

// startService starts content in-process (relay, purge job every
// purgeEvery) behind an HTTP server.
func startService(t *testing.T, purgeEvery time.Duration) *service {
	t.Helper()
	return startServiceOn(t, purgeEvery, blobtest.Dir(t))
}

// startServiceOn is startService with its file bytes at blobURL.
func startServiceOn(t *testing.T, purgeEvery time.Duration, blobURL string) *service {
	t.Helper()
	k := kafkatest.Start(t)
	c := &clock{}
	cfg := content.Config{Base: libservice.Base{MongoURI: mongotest.URI(t), Kafka: kafkax.Config{Brokers: k.Brokers}, InternalTokenSecret: secret, LogLevel: "error"},
		URLs: libservice.URLs{PublicURL: "http://gw.test", AppURL: "http://gw.test/app"},
		Addr: "127.0.0.1:0", Database: mongotest.DatabaseName(), PurgeInterval: purgeEvery, OutboundAllowPrivate: true, BlobURL: blobURL}
	if strings.HasPrefix(blobURL, "s3://") {
		cfg.BlobAccessKeyID, cfg.BlobSecretAccessKey = blobtest.Credentials.AccessKeyID, blobtest.Credentials.SecretAccessKey
	}
	ctx, cancel := context.WithCancel(context.Background())
	app, err := content.New(ctx, cfg, logx.ForTest(t), content.WithClock(c.Now), content.WithMigrations(false))
	if err != nil {
		t.Fatal(err)
	}
	app.RunBackground(ctx)
	srv := httptest.NewServer(app.Handler())
	t.Cleanup(func() {
		srv.Close()
		cancel()
		_ = app.Database().Drop(context.Background())
		_ = app.Close(context.Background())
	})
	signer, err := internaltoken.NewSigner("gateway", secret, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return &service{t: t, app: app, url: srv.URL, brokers: k.Brokers, clock: c, signer: signer, blobURL: cfg.BlobURL}
}

// db is the service's database.
func (s *service) db() *mongo.Database { return s.app.Database() }

// caller is a user of one organization with a role.
type caller struct {
	s   *service
	org string
	tok string
}

func (s *service) as(user, org, role string) *caller {
	tok, err := s.signer.Mint("content", internaltoken.Principal{UserID: user, Roles: map[string]string{org: role}})
	if err != nil {
		s.t.Fatal(err)
	}
	return &caller{s: s, org: org, tok: tok}
}

// reply is an answer.
type reply struct {
	status int
	header http.Header
	body   []byte
	took   time.Duration
}

func (r reply) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("answer %d is not a JSON object: %.200s", r.status, r.body)
	}
	return m
}

// do sends a request (body marshalled to JSON unless nil) with ctx.
func (c *caller) do(ctx context.Context, method, path string, body any) (reply, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return reply{}, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.s.url+path, rd)
	if err != nil {
		return reply{}, err
	}
	req.Header.Set(internaltoken.Header, c.tok)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	t0 := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return reply{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return reply{status: resp.StatusCode, header: resp.Header, body: b, took: time.Since(t0)}, err
}

// must sends a request that must answer status.
func (c *caller) must(status int, method, path string, body any) reply {
	c.s.t.Helper()
	r, err := c.do(context.Background(), method, path, body)
	if err != nil {
		c.s.t.Fatalf("%s %s: %v", method, path, err)
	}
	if r.status != status {
		c.s.t.Fatalf("%s %s: %d, want %d: %.300s", method, path, r.status, status, r.body)
	}
	return r
}

func str(t testing.TB, m map[string]any, key string) string {
	t.Helper()
	s, ok := m[key].(string)
	if !ok {
		t.Fatalf("no string %q in %v", key, m)
	}
	return s
}

// space creates a space of the caller's organization and returns its path.
func (c *caller) space(title string) string {
	c.s.t.Helper()
	sp := c.must(201, "POST", "/v1/orgs/"+c.org+"/spaces", map[string]any{"title": title}).json(c.s.t)
	return "/v1/spaces/" + str(c.s.t, sp, "id")
}

// changeRequest opens a change request of a space and returns its path.
func (c *caller) changeRequest(space string) string {
	c.s.t.Helper()
	cr := c.must(201, "POST", space+"/change-requests", map[string]any{"subject": "import"}).json(c.s.t)
	return space + "/change-requests/" + str(c.s.t, cr, "id")
}

// importSite imports a website into a change request.
func (c *caller) importSite(cr, url string) reply {
	c.s.t.Helper()
	r, err := c.do(context.Background(), "POST", cr+"/content/import", map[string]any{"source": "website", "url": url})
	if err != nil {
		c.s.t.Fatal(err)
	}
	return r
}

// pdf asks for a change request's PDF and downloads it.
func (c *caller) pdf(ctx context.Context, cr string) (reply, error) {
	r, err := c.do(ctx, "GET", cr+"/pdf", nil)
	if err != nil || r.status != 200 {
		return r, err
	}
	var u struct{ URL string }
	if err := json.Unmarshal(r.body, &u); err != nil {
		return r, err
	}
	return c.do(ctx, "GET", strings.TrimPrefix(u.URL, "http://gw.test"), nil)
}

// site serves web pages (and images) by path.
func site(t *testing.T, pages map[string]string, files map[string][]byte) *httptest.Server {
	t.Helper()
	return contenttest.NewSite(t, pages, files, nil).Server
}

// latencies runs f n times in a row and returns how long each took.
func latencies(t *testing.T, n int, f func() reply) []time.Duration {
	t.Helper()
	out := make([]time.Duration, n)
	for i := range out {
		r := f()
		if r.status >= 300 {
			t.Fatalf("the other organization's request answered %d: %.300s", r.status, r.body)
		}
		out[i] = r.took
	}
	return out
}

// keptLatency fails when the median during a flood is more than three times
// the median alone (with a floor of slack for a loaded machine).
func keptLatency(t *testing.T, what string, alone, during []time.Duration, slack time.Duration) {
	t.Helper()
	a, d := contenttest.Median(alone), contenttest.Median(during)
	t.Logf("%s, another organization: median %s alone, %s during the flood (%.1fx)", what, a.Round(time.Millisecond),
		d.Round(time.Millisecond), float64(d)/float64(a))
	if d > max(3*a, a+slack) {
		t.Errorf("%s: the other organization's median went from %s to %s during the flood", what, a, d)
	}
}

// flood runs n requests at once and counts the answers by status.
func flood(n int, f func() (reply, error)) (map[int]int, []reply) {
	var mu sync.Mutex
	counts := map[int]int{}
	var replies []reply
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := f()
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				counts[-1]++
				return
			}
			counts[r.status]++
			replies = append(replies, r)
		}()
	}
	wg.Wait()
	return counts, replies
}

// TestAbuseReactionFlood: 200 updates of one comment, each adding 50 new
// reactions, made its comment.updated event pass the 900 KiB event cap and
// wedged the relay. Reactions are now capped per comment and per user (a
// 400 naming addedReactions), the events carry counts instead of reactors,
// every event is published, and another organization's comments keep their
// latency meanwhile.
func TestAbuseReactionFlood(t *testing.T) {
	s := startService(t, time.Hour)
	a, b := s.as("mallory", "orgA", "admin"), s.as("bob", "orgB", "admin")
	spA, spB := a.space("Noisy"), b.space("Quiet")
	target := str(t, a.must(200, "POST", spA+"/comments", map[string]any{"body": map[string]any{"markdown": "react"}}).json(t), "id")
	b.must(200, "POST", spB+"/comments", map[string]any{"body": map[string]any{"markdown": "hello"}})
	list := func() reply { return b.must(200, "GET", spB+"/comments", nil) }
	alone := latencies(t, 15, list)

	// 200 updates: every tenth adds 50 new emoji (as in the report), the
	// others add 20 of a set of 50 as another user each, until the comment
	// holds all the reactions it may.
	var ok, refused atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 200 {
			emoji := make([]string, 20)
			for j := range emoji {
				emoji[j] = fmt.Sprintf("s%d", (i+j)%limits.ReactionKinds)
			}
			if i%10 == 0 {
				emoji = make([]string, 50)
				for j := range emoji {
					emoji[j] = fmt.Sprintf("n%d-%d", i, j)
				}
			}
			r, err := s.as(fmt.Sprint("m", i), "orgA", "comment").do(context.Background(), "PUT", spA+"/comments/"+target,
				map[string]any{"addedReactions": emoji})
			switch {
			case err != nil:
				t.Error(err)
				return
			case r.status == 200:
				ok.Add(1)
			case r.status == 400 && strings.Contains(string(r.body), "addedReactions"):
				refused.Add(1)
			default:
				t.Errorf("reaction update: %d %.200s", r.status, r.body)
				return
			}
		}
	}()
	var during []time.Duration
	for flooding := true; flooding; {
		select {
		case <-done:
			flooding = false
		default:
			during = append(during, list().took)
		}
	}
	t.Logf("200 reaction updates: %d applied, %d refused", ok.Load(), refused.Load())
	if refused.Load() == 0 {
		t.Error("no reaction update was refused")
	}
	keptLatency(t, "listing comments", alone, during, 500*time.Millisecond)

	// Every event was small and left for Kafka: nothing stays pending.
	waittest.Until(t, "every comment event published", 30*time.Second, func() bool {
		n, err := s.db().Collection("comments").CountDocuments(context.Background(), bson.M{"_outbox.0": bson.M{"$exists": true}})
		return err == nil && n == 0
	})
	evs := kafkatest.ReadN(t, s.brokers, content.Topic, int(ok.Load())+4, 30*time.Second)
	largest := 0
	for _, ev := range evs {
		raw, _ := json.Marshal(ev)
		largest = max(largest, len(raw))
	}
	t.Logf("%d events, the largest %d bytes", len(evs), largest)
	if largest > 64<<10 {
		t.Errorf("an event of %d bytes", largest)
	}
	c := a.must(200, "GET", spA+"/comments/"+target, nil).json(t)
	kinds, total := 0, 0
	for _, r := range c["reactions"].([]any) {
		kinds++
		total += int(r.(map[string]any)["count"].(float64))
	}
	t.Logf("the comment holds %d reactions of %d emoji", total, kinds)
}

// TestAbuseRevisionFitsMongoDB: a revision stored every page inline, so a
// 6-page import made a 29 MB revision document that MongoDB (16 MiB per
// document) refuses. Page bodies now live in documents of their own: a 30 MB
// space is imported through the API, every document of the database stays
// under 16 MiB, and the API answers the same content.
func TestAbuseRevisionFitsMongoDB(t *testing.T) {
	s := startService(t, time.Hour)
	a := s.as("ann", "orgA", "admin")
	cr := a.changeRequest(a.space("Big"))
	page := func(n int) string {
		var b strings.Builder
		b.WriteString("<html><head><title>Page</title></head><body><main>")
		for i := 0; b.Len() < 1000000; i++ {
			fmt.Fprintf(&b, "<h2>Page %d section %d</h2><p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore %d.</p>\n", n, i, i)
		}
		b.WriteString("</main></body></html>")
		return b.String()
	}
	// Two sites of 17 big pages each, imported into the same change request.
	for half := range 2 {
		pages := map[string]string{}
		var links strings.Builder
		for i := range 17 {
			p := fmt.Sprintf("/p%d-%d", half, i)
			pages[p] = page(half*17 + i)
			fmt.Fprintf(&links, `<a href="%s">%s</a> `, p, p)
		}
		pages["/"] = "<html><body><main>" + links.String() + "</main></body></html>"
		srv := site(t, pages, nil)
		if r := a.importSite(cr, srv.URL+"/"); r.status != 201 {
			t.Fatalf("import: %d %.300s", r.status, r.body)
		}
	}
	// The API answers every page with its whole markdown.
	tree := a.must(200, "GET", cr+"/content/pages", nil)
	var pages struct {
		Pages []struct {
			Markdown string `json:"markdown"`
		} `json:"pages"`
	}
	if err := json.Unmarshal(tree.body, &pages); err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, p := range pages.Pages {
		total += len(p.Markdown)
	}
	t.Logf("imported %d pages, %.1f MB of markdown", len(pages.Pages), float64(total)/1e6)
	if total < 30e6 {
		t.Fatalf("%d bytes imported, want a 30 MB space", total)
	}
	// No document of any collection reaches MongoDB's limit.
	ctx := context.Background()
	largest, where := 0, ""
	for _, db := range []*mongo.Database{s.db(), s.db().Client().Database(s.db().Name() + searchmongo.DatabaseSuffix)} {
		names, err := db.ListCollectionNames(ctx, bson.M{})
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			cur, err := db.Collection(name).Find(ctx, bson.M{})
			if err != nil {
				t.Fatal(err)
			}
			for cur.Next(ctx) {
				if n := len(cur.Current); n > largest {
					largest, where = n, db.Name()+"."+name
				}
			}
			if err := cur.Err(); err != nil {
				t.Fatal(err)
			}
			_ = cur.Close(ctx)
		}
	}
	t.Logf("the largest document: %d KB in %s", largest>>10, where)
	if largest >= 16<<20 {
		t.Errorf("a document of %d bytes in %s: MongoDB refuses documents over 16 MiB", largest, where)
	}
}

// collected counts the runs of the purge job's collector so far.
func (s *service) collected() int64 { return s.app.Collections() }

// The blob tests: GridFS files were never deleted, so purged spaces,
// aborted imports and re-imports left them. Files (and page bodies) no
// revision refers to are now removed by the purge job once they are older
// than the grace period that protects an import in progress.

// blobService starts content with its purge job every second and an image site.
func blobService(t *testing.T) (*service, *caller, *httptest.Server, []byte, func() int64) {
	t.Helper()
	return blobServiceOn(t, blobtest.Dir(t))
}

// blobServiceOn is blobService with its file bytes at blobURL.
func blobServiceOn(t *testing.T, blobURL string) (*service, *caller, *httptest.Server, []byte, func() int64) {
	t.Helper()
	s := startServiceOn(t, time.Second, blobURL)
	logo := contenttest.BigPNG(t, 16, 16)
	srv := site(t, map[string]string{"/": `<html><body><p>Logo <img src="/logo.png"></p></body></html>`},
		map[string][]byte{"/logo.png": logo})
	store := blobtest.Open(t, s.blobURL)
	// files counts the blobs recorded when the blob store holds those and
	// no other; -1 while they differ (a write records its blob, then
	// stores the bytes).
	files := func() int64 {
		ctx := context.Background()
		n, err := s.db().Collection("blobs").CountDocuments(ctx, bson.M{})
		if err != nil {
			t.Fatal(err)
		}
		stored := int64(0)
		if err := store.List(ctx, "orgs/", func(blob.Object) error { stored++; return nil }); err != nil {
			t.Fatal(err)
		}
		if stored != n {
			return -1
		}
		return n
	}
	return s, s.as("ann", "orgA", "admin"), srv, logo, files
}

func TestAbuseBlobsOfReimports(t *testing.T) {
	s, a, srv, logo, files := blobService(t)
	cr := a.changeRequest(a.space("Reimported"))
	for range 2 {
		if r := a.importSite(cr, srv.URL+"/"); r.status != 201 {
			t.Fatalf("import: %d %.300s", r.status, r.body)
		}
	}
	if n := files(); n != 1 {
		t.Fatalf("%d files after importing the same image twice, want 1 (the same bytes stored once)", n)
	}
	s.clock.Add(2 * time.Hour)
	// A collection after the grace period keeps it: the revision refers to it.
	before := s.collected()
	waittest.Until(t, "a collection past the grace period", 20*time.Second, func() bool { return s.collected() > before })
	if n := files(); n != 1 {
		t.Fatalf("%d files after collecting, want the referenced one kept", n)
	}
	l := a.must(200, "GET", cr+"/content/files", nil).json(t)
	dl := str(t, l["items"].([]any)[0].(map[string]any), "downloadURL")
	if r := a.must(200, "GET", strings.TrimPrefix(dl, "http://gw.test"), nil); !bytes.Equal(r.body, logo) {
		t.Error("the kept file does not download")
	}
}

func TestAbuseBlobsOfAbortedImports(t *testing.T) {
	s, a, _, logo, files := blobService(t)
	cr := a.changeRequest(a.space("Aborted"))
	// The second page never answers; the client gives up once the first
	// page's image is stored.
	release := make(chan struct{})
	defer close(release)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html")
			_, _ = io.WriteString(w, `<html><body><p><img src="/logo.png"></p><a href="/stuck">next</a></body></html>`)
		case "/logo.png":
			_, _ = w.Write(logo)
		default:
			select {
			case <-r.Context().Done():
			case <-release:
			}
		}
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := a.do(ctx, "POST", cr+"/content/import", map[string]any{"source": "website", "url": srv.URL + "/"})
		errc <- err
	}()
	waittest.Until(t, "the image stored", 20*time.Second, func() bool { return files() == 1 })
	cancel()
	<-errc
	s.clock.Add(2 * time.Hour)
	waittest.Until(t, "the aborted import's file collected", 20*time.Second, func() bool { return files() == 0 })
}

// A purged space's files go from the blob store past the grace period, on
// a directory and on S3.
func TestAbuseBlobsOfPurgedSpaces(t *testing.T) {
	for _, backend := range []string{"file", "s3"} {
		t.Run(backend, func(t *testing.T) {
			url := blobtest.Dir(t)
			if backend == "s3" {
				url = blobtest.S3(t)
			}
			blobsOfPurgedSpaces(t, url)
		})
	}
}

func blobsOfPurgedSpaces(t *testing.T, blobURL string) {
	s, a, srv, _, files := blobServiceOn(t, blobURL)
	ctx := context.Background()
	sp := a.space("Purged")
	cr := a.changeRequest(sp)
	if r := a.importSite(cr, srv.URL+"/"); r.status != 201 {
		t.Fatalf("import: %d %.300s", r.status, r.body)
	}
	a.must(200, "POST", cr+"/merge", nil)
	copied := "/v1/spaces/" + str(t, a.must(201, "POST", sp+"/duplicate", nil).json(t), "id")
	bodies := func() int64 {
		n, err := s.db().Collection("page_bodies").CountDocuments(ctx, bson.M{})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	// The original goes; its copy still refers to the image and the page.
	a.must(205, "DELETE", sp, nil)
	s.clock.Add(8 * 24 * time.Hour)
	waittest.Until(t, "the original space purged", 20*time.Second, func() bool {
		r, err := a.do(ctx, "GET", sp, nil)
		return err == nil && r.status == 404
	})
	a.must(200, "GET", copied+"/content", nil)
	if n := files(); n != 1 {
		t.Fatalf("%d files after purging the original, want the copy's image kept", n)
	}
	// Then the copy goes, and with it the image and the page bodies.
	a.must(205, "DELETE", copied, nil)
	s.clock.Add(8 * 24 * time.Hour)
	waittest.Until(t, "the purged spaces' files and page bodies collected", 20*time.Second, func() bool {
		return files() == 0 && bodies() == 0
	})
}
