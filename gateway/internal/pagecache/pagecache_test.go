package pagecache

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
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
// of its tags may predate the change the purge stands for: it is not kept.
func TestFillBeforePurgeNotKept(t *testing.T) {
	c := New(1<<20, time.Minute)
	tags := []string{readerapi.OrgTag("o1")}
	k, mark, e, ok := c.Lookup(page(t, "http://gw/sites/o1/s1/p", nil))
	if !ok || e != nil {
		t.Fatalf("first lookup: %v %v", ok, e)
	}
	c.Purge(readerapi.OrgTag("o1"))
	c.Keep(k, mark, 200, http.Header{}, []byte("old"), nil, tags)
	if _, _, e, _ := c.Lookup(page(t, "http://gw/sites/o1/s1/p", nil)); e != nil {
		t.Fatal("an answer filled before a purge was kept")
	}
	k, mark, _, _ = c.Lookup(page(t, "http://gw/sites/o1/s1/p", nil))
	c.Keep(k, mark, 200, http.Header{"Set-Cookie": {"a=b"}, "X-Internal-Reader-Tags": {"org:o1"}, "Etag": {`"x"`}}, []byte("new"), nil, tags)
	_, _, e, _ = c.Lookup(page(t, "http://gw/sites/o1/s1/p", nil))
	if e == nil || string(e.Body) != "new" || e.Header.Get("Set-Cookie") != "" || e.Header.Get("X-Internal-Reader-Tags") != "" ||
		e.Choose("").ETag != `"x"` {
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

// TestOtherTagsPurgeKeepsAnswers: a purge of other tags, during a fill or
// after it, leaves the answer kept and served without another fill; a
// purge of any of its tags, or PurgeAll, drops it.
func TestOtherTagsPurgeKeepsAnswers(t *testing.T) {
	c := New(1<<20, time.Minute)
	const url = "http://gw/sites/o1/s1/p"
	tags := []string{readerapi.OrgTag("o1"), readerapi.SpaceTag("sp1")}
	fill := func(body string) {
		t.Helper()
		k, mark, _, _ := c.Lookup(page(t, url, nil))
		c.Purge(readerapi.OrgTag("o2"), readerapi.SpaceTag("sp2")) // another organization's write meanwhile
		c.Keep(k, mark, 200, http.Header{}, []byte(body), nil, tags)
	}
	kept := func() string {
		t.Helper()
		if _, _, e, _ := c.Lookup(page(t, url, nil)); e != nil {
			return string(e.Body)
		}
		return ""
	}
	fill("one")
	if got := kept(); got != "one" {
		t.Fatalf("a fill during another organization's purge: kept %q, want one", got)
	}
	c.Purge(readerapi.OrgTag("o2"))
	c.Purge(readerapi.SpaceTag("sp2"), readerapi.OrgTag("o3"))
	if got := kept(); got != "one" {
		t.Fatalf("after other tags' purges: kept %q, want one", got)
	}
	c.Purge(readerapi.SpaceTag("sp1"))
	if got := kept(); got != "" {
		t.Fatalf("after a purge of one of its tags: kept %q", got)
	}
	fill("two")
	c.PurgeAll()
	if got := kept(); got != "" {
		t.Fatalf("after PurgeAll: kept %q", got)
	}
	fill("three")
	if got := kept(); got != "three" {
		t.Fatalf("a fill after PurgeAll: kept %q, want three", got)
	}
}

// TestSearchesKeptByQuery: a reader's search is kept under its query, the
// same however q is escaped; another query, or the same one of another
// site or host, is another answer.
func TestSearchesKeptByQuery(t *testing.T) {
	c := New(1<<20, time.Minute)
	tags := []string{readerapi.OrgTag("o1")}
	k, mark, e, ok := c.Lookup(page(t, "http://gw/sites/o1/s1/~search?q=zebra+stripes", nil))
	if !ok || e != nil {
		t.Fatalf("first lookup: %v %v", ok, e)
	}
	c.Keep(k, mark, 200, http.Header{}, []byte("zebra stripes"), nil, tags)
	for target, want := range map[string]string{
		"http://gw/sites/o1/s1/~search?q=zebra+stripes":    "zebra stripes",
		"http://gw/sites/o1/s1/~search?q=zebra%20stripes":  "zebra stripes",
		"http://GW/sites/o1/s1/~search?q=%7Aebra+stripes":  "zebra stripes",
		"http://gw/sites/o1/s1/~search?q=zebra":            "",
		"http://gw/sites/o1/s1/~search?q=zebra+stripes+":   "",
		"http://gw/sites/o1/s2/~search?q=zebra+stripes":    "",
		"http://other/sites/o1/s1/~search?q=zebra+stripes": "",
		"http://gw/sites/o1/s1/~search":                    "",
	} {
		_, _, e, ok := c.Lookup(page(t, target, nil))
		got := ""
		if e != nil {
			got = string(e.Body)
		}
		if !ok || got != want {
			t.Errorf("%s: looked up %v, kept %q, want %q", target, ok, got, want)
		}
	}
	if _, _, _, ok := c.Lookup(page(t, "http://gw/sites/o1/s1/~search?q="+strings.Repeat("+", 2<<10), nil)); ok {
		t.Error("a search of 2 KiB is looked up: its key would outweigh its answer")
	}
	c.Purge(readerapi.OrgTag("o1"))
	if _, _, e, _ := c.Lookup(page(t, "http://gw/sites/o1/s1/~search?q=zebra+stripes", nil)); e != nil {
		t.Error("a purge of its organization left the search kept")
	}
}

// TestSearchesNeverPushPagesOut: searches are kept apart, in their own
// share of the bytes: a flood of made-up queries pushes out searches
// only, never a page.
func TestSearchesNeverPushPagesOut(t *testing.T) {
	c := New(64<<10, time.Minute)
	body := []byte(strings.Repeat("p", 900))
	if e := keep(t, c, "/sites/o1/s1/page", pageHeader(`"p"`, ""), body); e == nil {
		t.Fatal("the page was not kept")
	}
	for i := range 1_000 {
		keep(t, c, fmt.Sprintf("/sites/o1/s1/~search?q=made-up-%d", i), http.Header{}, body)
	}
	if _, _, e, _ := c.Lookup(page(t, "http://gw/sites/o1/s1/page", nil)); e == nil {
		t.Error("1,000 searches pushed the page out")
	}
	if _, _, e, _ := c.Lookup(page(t, "http://gw/sites/o1/s1/~search?q=made-up-999", nil)); e == nil {
		t.Error("the last search was not kept")
	}
	if n := c.searches.Len(); n*len(body) > (64<<10)/searchShare {
		t.Errorf("%d searches of %d bytes kept, past their share of %d bytes", n, len(body), (64<<10)/searchShare)
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
		// A reader's search: its lone q, nothing else in the query.
		{"GET", "/sites/o/s/~search?q=zebra", nil, true},
		{"GET", "/sites/o/s/~search?q=visitor+authentication", nil, true},
		{"GET", "/sites/o/s/~search?q=", nil, true},
		{"GET", "/sites/o/s/~search?q=zebra&shareKey=k", nil, false},
		{"GET", "/sites/o/s/~search?q=zebra&jwt_token=t", nil, false},
		{"GET", "/sites/o/s/~search?q=zebra&visitor.plan=pro", nil, false},
		{"GET", "/sites/o/s/~search?visitor.plan=pro", nil, false},
		{"GET", "/sites/o/s/~search?q=a&q=b", nil, false},
		{"GET", "/sites/o/s/~search?q=zebra;x=1", nil, false},
		{"GET", "/sites/o/s/~search?q=%zz", nil, false},
		{"GET", "/sites/o/s/~search?q=zebra", http.Header{"Cookie": {"docspub_visitor=jwt"}}, false},
		{"GET", "/sites/o/s/~search?q=zebra", http.Header{"Range": {"bytes=0-1"}}, false},
		{"GET", "/sites/o/s/p?q=zebra", nil, false},
		{"GET", "/sites/o/s/~searches?q=zebra", nil, false},
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

// TestAcceptedCodings: q-values in thousandths, q=0 refuses, "*" stands
// for the codings not named, a malformed q counts as 1.
func TestAcceptedCodings(t *testing.T) {
	for _, tc := range []struct {
		header string
		br, gz int
	}{
		{"", 0, 0},
		{"gzip", 0, 1000},
		{"br", 1000, 0},
		{"gzip, deflate, br, zstd", 1000, 1000},
		{"GZIP;Q=0.5 , Br ; q=0.25", 250, 500},
		{"gzip;q=0, br", 1000, 0},
		{"gzip;q=0.000,br;q=0.", 0, 0},
		{"br;q=0.001", 1, 0},
		{"identity", 0, 0},
		{"*", 1000, 1000},
		{"*;q=0.3, gzip", 300, 1000},
		{"br;q=0, *", 0, 1000},
		{"gzip;q=x", 0, 1000},
		{"gzip;q=1.0", 0, 1000},
		{"gzip;level=1;q=0", 0, 0},
		{"x-gzip, brotli", 0, 0},
	} {
		if br, gz := AcceptedCodings(tc.header); br != tc.br || gz != tc.gz {
			t.Errorf("%q: br %d gzip %d, want %d %d", tc.header, br, gz, tc.br, tc.gz)
		}
	}
}

// testPage is a page that codes well.
var testPage = []byte("<!doctype html><title>Guide</title>" + strings.Repeat("<p>Zebras graze in herds.</p>\n", 400))

func gzipBytes(t *testing.T, b []byte) []byte {
	t.Helper()
	gz, err := readerapi.Gzip(b)
	if err != nil {
		t.Fatal(err)
	}
	return gz
}

// decode is body in coding as is.
func decode(t *testing.T, coding string, body []byte) []byte {
	t.Helper()
	var r io.Reader
	switch coding {
	case "":
		return body
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	case "br":
		r = brotli.NewReader(bytes.NewReader(body))
	default:
		t.Fatalf("coding %q", coding)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("%s: %v", coding, err)
	}
	return b
}

// keep keeps an answer of sites for path and returns the entry kept.
func keep(t *testing.T, c *Cache, path string, header http.Header, body []byte) *Entry {
	t.Helper()
	k, mark, _, ok := c.Lookup(page(t, "http://gw"+path, nil))
	if !ok {
		t.Fatal("not eligible")
	}
	c.Keep(k, mark, 200, header, body, nil, []string{readerapi.OrgTag("o1")})
	_, _, e, _ := c.Lookup(page(t, "http://gw"+path, nil))
	return e
}

func pageHeader(etag string, coding string) http.Header {
	h := http.Header{"Content-Type": {"text/html; charset=utf-8"}, "Cache-Control": {"public, max-age=60"},
		"Vary": {"Accept-Encoding"}, "Etag": {etag}, "Content-Length": {"1"}}
	if coding != "" {
		h.Set("Content-Encoding", coding)
	}
	return h
}

// TestEncodings: a page is kept as is, gzipped and in brotli, whichever
// encoding sites sent it in; each decodes to the same bytes and has its
// own validator; the encoding a client gets follows its Accept-Encoding
// (brotli first, gzip, as is; q=0 refuses), and every answer of it says
// Vary: Accept-Encoding with its own length.
func TestEncodings(t *testing.T) {
	c := New(16<<20, time.Minute)
	for name, e := range map[string]*Entry{
		"from the page as is": keep(t, c, "/sites/o1/s1/plain", pageHeader(`"d1"`, ""), testPage),
		"from sites' gzip":    keep(t, c, "/sites/o1/s1/gzipped", pageHeader(`"d1-gzip"`, "gzip"), gzipBytes(t, testPage)),
	} {
		if e == nil || !bytes.Equal(e.Body, testPage) {
			t.Fatalf("%s: kept %+v", name, e)
		}
		for _, tc := range []struct{ accept, coding string }{
			{"", ""},
			{"identity", ""},
			{"gzip", "gzip"},
			{"br", "br"},
			{"gzip, deflate, br, zstd", "br"},
			{"br;q=0.5, gzip", "gzip"},
			{"br;q=0, gzip", "gzip"},
			{"br, gzip;q=0", "br"},
			{"gzip;q=0", ""},
			{"br;q=0, gzip;q=0", ""},
			{"*", "br"},
			{"deflate", ""},
		} {
			v := e.Choose(tc.accept)
			if v.Encoding != tc.coding {
				t.Errorf("%s, Accept-Encoding %q: %q, want %q", name, tc.accept, v.Encoding, tc.coding)
				continue
			}
			if got := decode(t, v.Encoding, v.Body); !bytes.Equal(got, testPage) {
				t.Errorf("%s, %q: decodes to %d bytes, not the page", name, tc.coding, len(got))
			}
			want := map[string]string{"": `"d1"`, "gzip": `"d1-gzip"`, "br": `"d1-br"`}[tc.coding]
			h := http.Header{}
			e.SetHeader(h, v, false)
			if v.ETag != want || h.Get("ETag") != want || h.Get("Vary") != "Accept-Encoding" ||
				h.Get("Content-Encoding") != tc.coding || h.Get("Content-Length") != strconv.Itoa(len(v.Body)) ||
				h.Get("Content-Type") != "text/html; charset=utf-8" || h.Get("Cache-Control") != "public, max-age=60" {
				t.Errorf("%s, %q: header %v", name, tc.coding, h)
			}
			if tc.coding != "" && len(v.Body) >= len(testPage) {
				t.Errorf("%s, %q: %d bytes, not smaller than the page", name, tc.coding, len(v.Body))
			}
			nm := http.Header{}
			e.SetHeader(nm, v, true)
			if nm.Get("Content-Type") != "" || nm.Get("Content-Length") != "" || nm.Get("ETag") != want {
				t.Errorf("%s, %q: 304 header %v", name, tc.coding, nm)
			}
		}
	}
	// Gzipped here, the page is the same bytes as sites gzips it.
	if e := keep(t, c, "/sites/o1/s1/plain", pageHeader(`"d1"`, ""), testPage); !bytes.Equal(e.Choose("gzip").Body, gzipBytes(t, testPage)) {
		t.Error("the gzipped page differs from sites' gzip of it")
	}
}

// TestEncodingsReusedAndBounded: a page kept again with the same body
// reuses the encodings kept before (no coding per fill); a different body
// is coded anew; a file (no Vary) is served as it came to everyone; a body
// that codes no smaller is served as is, still with Vary; a gzipped body
// that inflates past an entry's bound, or another coding, is not kept.
func TestEncodingsReusedAndBounded(t *testing.T) {
	c := New(16<<20, time.Minute)
	first := keep(t, c, "/p", pageHeader(`"d1"`, ""), testPage)
	again := keep(t, c, "/p", pageHeader(`"d1-gzip"`, "gzip"), first.Choose("gzip").Body)
	if again == first || &again.Choose("br").Body[0] != &first.Choose("br").Body[0] || &again.Body[0] != &first.Body[0] {
		t.Error("the same page kept again was coded again")
	}
	other := append([]byte("<!-- changed -->"), testPage...)
	changed := keep(t, c, "/p", pageHeader(`"d2"`, ""), other)
	if !bytes.Equal(decode(t, "br", changed.Choose("br").Body), other) || changed.Choose("br").ETag != `"d2-br"` {
		t.Error("a changed page kept the old encodings")
	}

	file := keep(t, c, "/f.png", http.Header{"Content-Type": {"image/png"}, "Cache-Control": {"public, immutable"}, "Etag": {`"f"`}}, testPage)
	for _, accept := range []string{"", "gzip", "br"} {
		v := file.Choose(accept)
		h := http.Header{}
		file.SetHeader(h, v, false)
		if v.Encoding != "" || h.Get("Vary") != "" || h.Get("ETag") != `"f"` || h.Get("Content-Encoding") != "" {
			t.Errorf("a file, Accept-Encoding %q: %q, header %v", accept, v.Encoding, h)
		}
	}

	tiny := keep(t, c, "/tiny", pageHeader(`"t"`, ""), []byte("<p>"))
	h := http.Header{}
	v := tiny.Choose("br, gzip")
	tiny.SetHeader(h, v, false)
	if v.Encoding != "" || h.Get("Vary") != "Accept-Encoding" || h.Get("Content-Length") != "3" {
		t.Errorf("a body that codes no smaller: %q, header %v", v.Encoding, h)
	}

	small := New(64*1024, time.Minute) // entries of at most 1 KiB
	if e := keep(t, small, "/big", pageHeader(`"b-gzip"`, "gzip"), gzipBytes(t, testPage)); e != nil {
		t.Error("a gzipped body that inflates past the bound was kept")
	}
	if e := keep(t, c, "/deflated", pageHeader(`"b"`, "deflate"), testPage); e != nil {
		t.Error("a deflated body was kept")
	}
}

// TestRefill: a key with nothing kept is never waited for; one kept and
// stale is refilled by the first caller while the others wait, until the
// refill is released (once, however often it is called); an answer its
// refill did not keep again is dropped, one it kept stays.
func TestRefill(t *testing.T) {
	c := New(1<<20, time.Minute)
	const url = "http://gw/sites/o1/s1/~search?q=zebra"
	k, mark, _, _ := c.Lookup(page(t, url, nil))
	if release, wait := c.Refill(k); release != nil || wait != nil {
		t.Fatal("a key with nothing kept is refilled or waited for")
	}
	c.Keep(k, mark, 200, http.Header{}, []byte("one"), nil, []string{readerapi.OrgTag("o1")})
	c.Purge(readerapi.OrgTag("o1"))
	release, wait := c.Refill(k)
	if release == nil || wait != nil {
		t.Fatal("the first caller of a stale answer does not refill it")
	}
	_, other := c.Refill(k)
	if other == nil {
		t.Fatal("a second caller during the refill does not wait")
	}
	select {
	case <-other:
		t.Fatal("the wait ended before the refill")
	default:
	}
	release()
	release()
	<-other
	// The refill did not keep it again: it is dropped, and its next
	// readers neither refill nor wait.
	if again, wait := c.Refill(k); again != nil || wait != nil {
		t.Error("an answer not kept again by its refill is still refilled or waited for")
		if again != nil {
			again()
		}
	}
	k, mark, _, _ = c.Lookup(page(t, url, nil))
	c.Keep(k, mark, 200, http.Header{}, []byte("two"), nil, []string{readerapi.OrgTag("o1")})
	c.Purge(readerapi.OrgTag("o1"))
	if release, _ = c.Refill(k); release == nil {
		t.Fatal("the first caller of a stale answer does not refill it")
	}
	k, mark, _, _ = c.Lookup(page(t, url, nil))
	c.Keep(k, mark, 200, http.Header{}, []byte("three"), nil, []string{readerapi.OrgTag("o1")})
	release()
	if _, _, e, _ := c.Lookup(page(t, url, nil)); e == nil || string(e.Body) != "three" {
		t.Errorf("the answer a refill kept: %v", e)
	}
}
