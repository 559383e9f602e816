package readerhttp_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apitest"
	"github.com/docspub/platform/libs/discovery"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internalapi/sitesapi"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/sites/dnstest"
	"github.com/docspub/platform/services/sites/internal/contentclient"
	"github.com/docspub/platform/services/sites/internal/contentclient/contenttest"
	"github.com/docspub/platform/services/sites/internal/reader"
	"github.com/docspub/platform/services/sites/internal/readerhttp"
	"github.com/docspub/platform/services/sites/internal/section"
	"github.com/docspub/platform/services/sites/internal/sectionhttp"
	"github.com/docspub/platform/services/sites/internal/sectionmongo"
	"github.com/docspub/platform/services/sites/internal/sharelink"
	"github.com/docspub/platform/services/sites/internal/sharelinkhttp"
	"github.com/docspub/platform/services/sites/internal/sharelinkmongo"
	"github.com/docspub/platform/services/sites/internal/site"
	"github.com/docspub/platform/services/sites/internal/sitecontentclient"
	"github.com/docspub/platform/services/sites/internal/sitehttp"
	"github.com/docspub/platform/services/sites/internal/sitemongo"
	"github.com/docspub/platform/services/sites/internal/spaceviewmongo"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

// published is PUBLISHED_URL in these tests.
const published = "http://gw.test/sites"

// env is the sites service's real engine (API and reader) over the real
// stores on a fresh database, content stood in over HTTP.
type env struct {
	t       *testing.T
	api     *apitest.Client
	signer  *internaltoken.Signer
	engine  http.Handler
	content *contenttest.Content
	spaces  *spaceviewmongo.Store
	reader  *reader.Reader
	// changes are the reader's generations, which the stores' writes bump.
	changes *reader.Changes
	db      *mongo.Database
	// readerLog is what the reader logged.
	readerLog *syncBuffer
	// dns serves the TXT records that verify custom hostnames.
	dns   *dnstest.Server
	sites *site.Service
}

func newEnv(t *testing.T) *env {
	t.Helper()
	return newEnvWith(t, reader.Deps{})
}

// newEnvWith is newEnv with the reader's cache bounds (0: the defaults)
// and clock (nil: the real one) of opts.
func newEnvWith(t *testing.T, opts reader.Deps) *env {
	t.Helper()
	db := mongotest.Database(t)
	ctx := context.Background()
	var ix []mongox.Index
	for _, i := range [][]mongox.Index{sitemongo.Indexes(), sectionmongo.Indexes(), sharelinkmongo.Indexes(), spaceviewmongo.Indexes()} {
		ix = append(ix, i...)
	}
	if err := mongox.EnsureIndexes(ctx, db, ix...); err != nil {
		t.Fatal(err)
	}
	signer := apitest.Signer(t)
	ct := contenttest.New(t, apitest.Secret)
	mdb := mongox.NewDB(db)
	spaces := spaceviewmongo.NewStore(mdb)
	client := contentclient.New(discovery.Static{contentclient.Service: ct.URL}, signer)
	// The stores' writes reach the reader at once, as New wires them (sites.go).
	changes := reader.NewChanges()
	written := func(evs []kafkax.Event) { changes.Invalidate(evs...) }
	siteStore, sectionStore, linkStore := sitemongo.NewStore(mdb, written), sectionmongo.NewStore(mdb, written), sharelinkmongo.NewStore(mdb, written)
	keys := sharelink.NewKeys(linkStore)
	readerLog := &syncBuffer{}
	rd, err := reader.New(reader.Deps{Sites: siteStore, Sections: sectionStore, Spaces: spaces, ShareKeys: keys, Changes: changes,
		Content: client, PublishedURL: published, Log: slog.New(slog.NewTextHandler(readerLog, nil)),
		CacheEntries: opts.CacheEntries, CacheBytes: opts.CacheBytes, Now: opts.Now})
	if err != nil {
		t.Fatal(err)
	}
	dns := dnstest.Start(t)
	sites := site.New(site.Deps{Store: siteStore, Spaces: spaces, Content: sitecontentclient.New(client),
		URLs:      site.URLs{Public: "http://gw.test", App: "http://app.test", Published: published},
		Hostnames: site.HostnameConfig{Resolver: site.DNSResolver(dns.Addr), Reserved: []string{"docspub.test"}},
		Sections:  section.NewOutline(sectionStore, nil), ShareKeys: keys, Visitors: rd,
		OnDelete: []func(context.Context, string) error{sectionStore.DeleteSite, linkStore.DeleteSite}})
	sections := section.New(sectionStore, sites, nil)
	links := sharelink.New(linkStore, sites, sharelink.URLs{Published: published}, nil)
	// Content's changes reach the projection and the reader as the
	// service's consumer of content.events brings them (sites.go).
	ct.OnChange(func(view json.RawMessage, deleted bool) {
		if err := spaces.Put(ctx, view, deleted, time.Now()); err != nil {
			t.Errorf("project %s: %v", view, err)
		}
		var v struct{ ID string }
		_ = json.Unmarshal(view, &v)
		changes.SpaceChanged(v.ID)
	})

	e := httpx.NewEngine(logx.ForTest(t), "sites")
	v1 := e.Group("/v1", internaltoken.Require(signer), internaltoken.RequireUser)
	sitehttp.Register(v1, sites)
	sectionhttp.Register(v1, sections)
	sharelinkhttp.Register(v1, links)
	readerhttp.Register(e, rd, signer, logx.ForTest(t))
	sitehttp.RegisterGateway(e.Group("/internal/v1", internaltoken.Require(signer), internaltoken.RequireService(sitesapi.Gateway)), sites)
	return &env{t: t, api: apitest.New(t, e, signer), signer: signer, engine: e, content: ct,
		spaces: spaces, db: db, reader: rd, changes: changes, readerLog: readerLog, dns: dns, sites: sites}
}

// syncBuffer is a buffer written by several goroutines (the reader's log).
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

var users = map[string]map[string]string{
	"ada": {"acme": "admin"},
	"rex": {"acme": "read"},
	"eve": {"other": "admin"},
}

func as(user string) internaltoken.Principal {
	return internaltoken.Principal{UserID: user, Roles: users[user]}
}

// call sends an API request and checks its status.
func (e *env) call(user, method, path, body string, status int) map[string]any {
	e.t.Helper()
	r := e.api.Expect(e.t, as(user), method, path, body, status, "")
	var m map[string]any
	if len(r.Body) > 0 {
		_ = json.Unmarshal(r.Body, &m)
	}
	return m
}

func str(m map[string]any, path ...string) string {
	var v any = m
	for _, k := range path {
		mm, _ := v.(map[string]any)
		v = mm[k]
	}
	s, _ := v.(string)
	return s
}

// site creates and publishes a site of acme with the spaces.
func (e *env) site(body string) (id, url string) {
	e.t.Helper()
	s := e.call("ada", "POST", "/v1/orgs/acme/sites", body, 201)
	id = str(s, "id")
	s = e.call("ada", "POST", "/v1/orgs/acme/sites/"+id+"/publish", "", 200)
	return id, str(s, "urls", "published")
}

// page is a reader's answer.
type page struct {
	status  int
	header  http.Header
	body    string
	cookies []*http.Cookie
}

// read sends a reader's request as the gateway forwards it: rawURL is an
// absolute URL (its host is the reader's) or a path on gw.test.
func (e *env) read(rawURL string, cookies ...*http.Cookie) page {
	e.t.Helper()
	return e.readMethod(http.MethodGet, rawURL, cookies...)
}

func (e *env) readMethod(method, rawURL string, cookies ...*http.Cookie) page {
	e.t.Helper()
	return e.readWith(method, rawURL, nil, cookies...)
}

// readWith is readMethod with the reader's own headers.
func (e *env) readWith(method, rawURL string, headers map[string]string, cookies ...*http.Cookie) page {
	e.t.Helper()
	hd := http.Header{}
	for k, v := range headers {
		hd.Set(k, v)
	}
	return e.readLines(method, rawURL, hd, cookies...)
}

// readLines is readWith with headers of many lines each (as sent).
func (e *env) readLines(method, rawURL string, headers http.Header, cookies ...*http.Cookie) page {
	e.t.Helper()
	host, path := "gw.test", rawURL
	if rest, ok := strings.CutPrefix(rawURL, "http://"); ok {
		host, path, _ = strings.Cut(rest, "/")
		path = "/" + path
	}
	req := httptest.NewRequest(method, readerhttp.Prefix+path, nil)
	tok, err := e.signer.Mint(e.signer.Service(), internaltoken.Principal{Service: "gateway"})
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set(internaltoken.Header, tok)
	req.Header.Set("X-Forwarded-Host", host)
	req.Header.Set("X-Forwarded-For", "203.0.113.7")
	req.Header.Set("User-Agent", "reader-test")
	for k, vs := range headers {
		req.Header.Del(k)
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	for _, c := range cookies {
		req.AddCookie(c)
	}
	w := httptest.NewRecorder()
	e.engine.ServeHTTP(w, req)
	res := w.Result()
	b, _ := io.ReadAll(res.Body)
	return page{status: res.StatusCode, header: res.Header, body: string(b), cookies: res.Cookies()}
}

func (e *env) want(rawURL string, status int, cookies ...*http.Cookie) page {
	e.t.Helper()
	p := e.read(rawURL, cookies...)
	if p.status != status {
		e.t.Fatalf("GET %s = %d, want %d: %.400s", rawURL, p.status, status, p.body)
	}
	return p
}

func (p page) cookie(name string) *http.Cookie {
	for _, c := range p.cookies {
		if c.Name == name {
			return c
		}
	}
	return nil
}

var navLink = regexp.MustCompile(`<a href="([^"]+)"`)

// navLinks are the page links of a page's navigation.
func (p page) navLinks() []string {
	start := strings.Index(p.body, `<nav class="toc"`)
	if start < 0 {
		return nil
	}
	end := strings.Index(p.body[start:], "</nav>")
	var out []string
	for _, m := range navLink.FindAllStringSubmatch(p.body[start:start+end], -1) {
		out = append(out, m[1])
	}
	return out
}

var fileLink = regexp.MustCompile(`(?:href|src)="(/sites/[^"]*/~files/[^"]+)"`)

// fileURL finds the first file URL (a link's or an image's) of a page.
func fileURL(t *testing.T, body string) string {
	t.Helper()
	m := fileLink.FindStringSubmatch(body)
	if m == nil {
		t.Fatal("no file URL in the page")
	}
	return m[1]
}

// readGzip reads a page asking for gzip and returns it decompressed.
func (e *env) readGzip(path string) string {
	e.t.Helper()
	req := httptest.NewRequest(http.MethodGet, readerhttp.Prefix+strings.TrimPrefix(path, "http://gw.test"), nil)
	tok, err := e.signer.Mint(e.signer.Service(), internaltoken.Principal{Service: "gateway"})
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set(internaltoken.Header, tok)
	req.Header.Set("X-Forwarded-Host", "gw.test")
	req.Header.Set("Accept-Encoding", "br, gzip;q=0.8")
	w := httptest.NewRecorder()
	e.engine.ServeHTTP(w, req)
	if w.Header().Get("Content-Encoding") != "gzip" || !strings.Contains(w.Header().Get("Vary"), "Accept-Encoding") {
		e.t.Fatalf("GET %s with gzip: %d %v", path, w.Code, w.Header())
	}
	r, err := gzip.NewReader(w.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}
