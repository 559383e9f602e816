package pagecache

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/docspub/platform/libs/internalapi/readerapi"
)

func page(t *testing.T, target string, header map[string]string) *http.Request {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, target, nil)
	for k, v := range header {
		r.Header.Set(k, v)
	}
	return r
}

// TestFillBeforePurgeNotKept: an answer whose fill started before a purge
// may predate the change the purge stands for: it is not kept.
func TestFillBeforePurgeNotKept(t *testing.T) {
	c := New(1<<20, time.Minute)
	tags := []string{readerapi.OrgTag("o1")}
	k, mark, e, ok := c.Lookup(page(t, "http://gw/sites/o1/s1/p", nil))
	if !ok || e != nil {
		t.Fatalf("first lookup: %v %v", ok, e)
	}
	c.Purge(readerapi.OrgTag("o2")) // any purge
	c.Keep(k, mark, 200, http.Header{}, []byte("old"), nil, tags)
	if _, _, e, _ := c.Lookup(page(t, "http://gw/sites/o1/s1/p", nil)); e != nil {
		t.Fatal("an answer filled before a purge was kept")
	}
	k, mark, _, _ = c.Lookup(page(t, "http://gw/sites/o1/s1/p", nil))
	c.Keep(k, mark, 200, http.Header{"Set-Cookie": {"a=b"}, "X-Internal-Reader-Tags": {"org:o1"}, "Etag": {`"x"`}}, []byte("new"), nil, tags)
	_, _, e, _ = c.Lookup(page(t, "http://gw/sites/o1/s1/p", nil))
	if e == nil || string(e.Body) != "new" || e.Header.Get("Set-Cookie") != "" || e.Header.Get("X-Internal-Reader-Tags") != "" ||
		e.Header.Get("ETag") != `"x"` {
		t.Fatalf("kept: %+v", e)
	}
	c.Purge(readerapi.SpaceTag("sp9"))
	if _, _, e, _ := c.Lookup(page(t, "http://gw/sites/o1/s1/p", nil)); e == nil {
		t.Error("a purge of other tags dropped the answer")
	}
	c.Purge(readerapi.OrgTag("o1"))
	if _, _, e, _ := c.Lookup(page(t, "http://gw/sites/o1/s1/p", nil)); e != nil {
		t.Error("a purge of its tag left the answer")
	}
}

// TestEligible: only requests every reader sends alike are looked up.
func TestEligible(t *testing.T) {
	for _, tc := range []struct {
		method, target string
		header         http.Header
		want           bool
	}{
		{"GET", "/sites/o/s/p", nil, true},
		{"HEAD", "/sites/o/s/p", nil, true},
		{"GET", "/sites/o/s/p", http.Header{"Cookie": {"docspub_vid=1; docspub_sid=2"}}, true},
		{"GET", "/sites/o/s/p", http.Header{"Cookie": {"docspub_vid=1", "", "docspub_sid=2;"}}, true},
		{"GET", "/sites/o/s/p?shareKey=k", nil, false},
		{"GET", "/sites/o/s/p", http.Header{"Cookie": {"docspub_share=k"}}, false},
		{"GET", "/sites/o/s/p", http.Header{"Cookie": {"docspub_vid=1; docspub_visitor=jwt"}}, false},
		// Every Cookie line counts: an empty first line hides nothing.
		{"GET", "/sites/o/s/p", http.Header{"Cookie": {"", "docspub_visitor=jwt"}}, false},
		{"GET", "/sites/o/s/p", http.Header{"Cookie": {" ; ", "docspub_vid=1", "docspub_unsigned=x"}}, false},
		// A name that does not parse as a cookie is not insights' either.
		{"GET", "/sites/o/s/p", http.Header{"Cookie": {"docspub_visitor"}}, false},
		{"GET", "/sites/o/s/p", http.Header{"Cookie": {"docspub_vid=1; bad name=x"}}, false},
		{"GET", "/sites/o/s/p", http.Header{"Range": {"bytes=0-1"}}, false},
		{"GET", "/sites/o/s/p", http.Header{"Range": {"", "bytes=0-1"}}, false},
		{"POST", "/sites/o/s/p", nil, false},
	} {
		r := httptest.NewRequest(tc.method, tc.target, nil)
		for k, vs := range tc.header {
			for _, v := range vs {
				r.Header.Add(k, v)
			}
		}
		if got := Eligible(r); got != tc.want {
			t.Errorf("%s %s %v: %v, want %v", tc.method, tc.target, tc.header, got, tc.want)
		}
	}
}

// TestKeepable: only a public 200 without cookies, varying by nothing but
// the encoding, of known length and with tags, is kept.
func TestKeepable(t *testing.T) {
	ok := func() *http.Response {
		return &http.Response{StatusCode: 200, ContentLength: 10, Header: http.Header{
			"Cache-Control": {"public, max-age=60"}, "Vary": {"Accept-Encoding"}, readerapi.TagsHeader: {"org:o1 site:s1"},
			readerapi.ImpersonalHeader: {readerapi.Impersonal}}}
	}
	keepable := func(r *http.Response) ([]string, bool) {
		return Keepable(r, r.Header.Get(readerapi.TagsHeader), r.Header.Get(readerapi.ImpersonalHeader))
	}
	if tags, keep := keepable(ok()); !keep || !slices.Equal(tags, []string{"org:o1", "site:s1"}) {
		t.Fatalf("a public page: %v %v", tags, keep)
	}
	for name, change := range map[string]func(*http.Response){
		"404":        func(r *http.Response) { r.StatusCode = 404 },
		"private":    func(r *http.Response) { r.Header.Set("Cache-Control", "private, no-cache") },
		"cookie":     func(r *http.Response) { r.Header.Set("Set-Cookie", "docspub_share=k") },
		"vary":       func(r *http.Response) { r.Header.Add("Vary", "Cookie") },
		"no length":  func(r *http.Response) { r.ContentLength = -1 },
		"no tags":    func(r *http.Response) { r.Header.Del(readerapi.TagsHeader) },
		"blank tags": func(r *http.Response) { r.Header.Set(readerapi.TagsHeader, " ") },
		// sites built it from something of the reader's (a cookie, claims).
		"personal":       func(r *http.Response) { r.Header.Del(readerapi.ImpersonalHeader) },
		"not impersonal": func(r *http.Response) { r.Header.Set(readerapi.ImpersonalHeader, "0") },
	} {
		r := ok()
		change(r)
		if _, keep := keepable(r); keep {
			t.Errorf("%s: kept", name)
		}
	}
}

// TestWriteTags: a write's path names the organization or space it changes.
func TestWriteTags(t *testing.T) {
	for path, want := range map[string][]string{
		"/v1/orgs/o1/sites/s1":                   {"org:o1"},
		"/v1/orgs/o1":                            {"org:o1"},
		"/v1/spaces/sp1/change-requests/c/merge": {"space:sp1"},
		"/v1/collections/c1":                     nil,
		"/v1/orgs/":                              nil,
		"/sites/o1":                              nil,
	} {
		if got := WriteTags(path); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", path, got, want)
		}
	}
}

// TestKeptViewHasNoClaims: the read kept with an answer carries no
// claims, whatever the answer that filled it had: every reader answered
// from the cache is recorded as themselves.
func TestKeptViewHasNoClaims(t *testing.T) {
	c := New(1<<20, time.Minute)
	k, mark, _, _ := c.Lookup(page(t, "http://gw/sites/o1/s1/p", nil))
	v := &readerapi.View{Type: "page_view", Organization: "o1", Site: "s1", Claims: map[string]any{"sub": "someone"}}
	c.Keep(k, mark, 200, http.Header{}, []byte("page"), v, []string{readerapi.OrgTag("o1")})
	_, _, e, _ := c.Lookup(page(t, "http://gw/sites/o1/s1/p", nil))
	if e == nil || e.View == nil || e.View.Claims != nil || e.View.Type != "page_view" {
		t.Fatalf("kept view: %+v", e)
	}
	if v.Claims == nil {
		t.Error("Keep changed the caller's view")
	}
}
