package reader_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docspub/platform/gateway/internal/pagecache"
	"github.com/docspub/platform/gateway/internal/proxy"
	"github.com/docspub/platform/gateway/internal/reader"
	"github.com/docspub/platform/gateway/internal/views"
	"github.com/docspub/platform/libs/discovery"
	"github.com/docspub/platform/libs/internalapi/readerapi"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/logx"
	"github.com/gin-gonic/gin"
)

const secret = "test-secret-test-secret-test-secret-0123"

// newGateway serves rd.Read at every path, as the gateway's NoRoute, in
// front of a sites that answers each page the same way for every reader
// and counts its requests.
func newGateway(t *testing.T, pages *pagecache.Cache) (url string, hits *atomic.Int64) {
	t.Helper()
	hits = new(atomic.Int64)
	sites := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Cache-Control", "public, max-age=60")
		w.Header().Set(readerapi.TagsHeader, readerapi.OrgTag("o1"))
		w.Header().Set(readerapi.ImpersonalHeader, readerapi.Impersonal)
		_, _ = io.WriteString(w, "page at "+r.URL.Path)
	}))
	t.Cleanup(sites.Close)
	resolver := discovery.Static{"sites": sites.URL}
	signer, err := internaltoken.NewSigner("gateway", secret, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	p := proxy.New(proxy.Config{Service: "gateway", Resolver: resolver, Signer: signer,
		ReaderTokenReuse: 15 * time.Second, UpstreamTimeout: 5 * time.Second, Log: logx.Discard()})
	rd := &reader.Reader{Service: "gateway", Pages: pages, Views: views.New(resolver, signer, logx.Discard()), Proxy: p}
	gin.SetMode(gin.ReleaseMode)
	e := gin.New()
	e.NoRoute(rd.Read)
	gw := httptest.NewServer(e)
	t.Cleanup(gw.Close)
	return gw.URL, hits
}

func do(t *testing.T, method, url string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

// A reader's page goes to sites below ReaderPrefix once; its answer, the
// same for every reader, is kept and served again without sites.
func TestReadKeepsAnswers(t *testing.T) {
	url, hits := newGateway(t, pagecache.New(1<<20, time.Minute))
	for i := range 3 {
		if status, body := do(t, http.MethodGet, url+"/guide/intro"); status != http.StatusOK || body != "page at "+proxy.ReaderPrefix+"/guide/intro" {
			t.Fatalf("read %d: %d %q", i, status, body)
		}
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("sites answered %d times, want once", n)
	}
}

// Without a page cache every read goes to sites.
func TestReadWithoutCache(t *testing.T) {
	url, hits := newGateway(t, nil)
	for range 2 {
		if status, _ := do(t, http.MethodGet, url+"/guide/intro"); status != http.StatusOK {
			t.Fatalf("read: %d", status)
		}
	}
	if n := hits.Load(); n != 2 {
		t.Errorf("sites answered %d times, want 2", n)
	}
}

// /v1 itself is the API's (404); a reader may only read (405), and
// neither reaches sites.
func TestReadRefuses(t *testing.T) {
	url, hits := newGateway(t, pagecache.New(1<<20, time.Minute))
	if status, body := do(t, http.MethodGet, url+"/v1"); status != http.StatusNotFound || !strings.Contains(body, `"error"`) {
		t.Errorf("GET /v1: %d %s", status, body)
	}
	if status, _ := do(t, http.MethodPost, url+"/guide/intro"); status != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", status)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("sites answered %d times, want none", n)
	}
}
