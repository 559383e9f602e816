package purge_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/docspub/platform/gateway/internal/pagecache"
	"github.com/docspub/platform/gateway/internal/proxy"
	"github.com/docspub/platform/gateway/internal/purge"
	"github.com/docspub/platform/libs/internalapi/readerapi"
	"github.com/docspub/platform/libs/kafkax"
)

// keep fills the cache with an answer at target tagged with tags.
func keep(t *testing.T, c *pagecache.Cache, target string, tags ...string) {
	t.Helper()
	k, mark, _, ok := c.Lookup(httptest.NewRequest(http.MethodGet, target, nil))
	if !ok {
		t.Fatalf("%s: not cacheable", target)
	}
	c.Keep(k, mark, http.StatusOK, http.Header{}, []byte("page"), nil, tags)
	if !kept(c, target) {
		t.Fatalf("%s: not kept", target)
	}
}

func kept(c *pagecache.Cache, target string) bool {
	_, _, e, _ := c.Lookup(httptest.NewRequest(http.MethodGet, target, nil))
	return e != nil
}

// answered passes the service's answer of status to method path to p.
func answered(t *testing.T, p *purge.Purger, method, path string, status int) {
	t.Helper()
	in := httptest.NewRequest(method, path, nil)
	resp := &http.Response{StatusCode: status, Request: httptest.NewRequest(method, "http://service"+path, nil)}
	if err := p.Answered(in, resp, proxy.Internal{}); err != nil {
		t.Fatal(err)
	}
}

// A successful write through the API purges its organization's answers;
// a read or a failed write purges nothing.
func TestAnsweredPurgesAfterWrites(t *testing.T) {
	c := pagecache.New(1<<20, time.Minute)
	p := purge.New(c)
	const page = "http://gw/sites/o1/s1/p"
	keep(t, c, page, readerapi.OrgTag("o1"))
	answered(t, p, http.MethodGet, "/v1/orgs/o1/sites", http.StatusOK)
	answered(t, p, http.MethodPost, "/v1/orgs/o1/sites", http.StatusBadRequest)
	answered(t, p, http.MethodPost, "/v1/orgs/o2/sites", http.StatusCreated)
	if !kept(c, page) {
		t.Fatal("a read, a failed write or another organization's write purged the answer")
	}
	answered(t, p, http.MethodPatch, "/v1/orgs/o1/sites/s1", http.StatusOK)
	if kept(c, page) {
		t.Fatal("a successful write of the organization left its answer")
	}
	// Off: nothing to purge, nothing fails.
	answered(t, purge.New(nil), http.MethodPost, "/v1/orgs/o1/sites", http.StatusCreated)
}

// An event purges its organization's and its subject's answers; one of
// no organization purges nothing.
func TestOnEventPurges(t *testing.T) {
	c := pagecache.New(1<<20, time.Minute)
	p := purge.New(c)
	const org, space = "http://gw/sites/o1/s1/a", "http://gw/sites/o3/s1/b"
	keep(t, c, org, readerapi.OrgTag("o1"))
	keep(t, c, space, readerapi.OrgTag("o3"), readerapi.SpaceTag("sp1"))
	ctx := context.Background()
	if err := p.OnEvent(ctx, kafkax.Event{Subject: "sp1"}); err != nil || !kept(c, space) {
		t.Fatalf("an event of no organization: %v, purged: %v", err, !kept(c, space))
	}
	if err := p.OnEvent(ctx, kafkax.Event{Organization: "o1"}); err != nil || kept(c, org) || !kept(c, space) {
		t.Fatalf("o1's event: %v; o1's answer kept %v, o3's kept %v", err, kept(c, org), kept(c, space))
	}
	if err := p.OnEvent(ctx, kafkax.Event{Organization: "o2", Subject: "sp1"}); err != nil || kept(c, space) {
		t.Fatalf("sp1's event: %v; its answer kept %v", err, kept(c, space))
	}
}
