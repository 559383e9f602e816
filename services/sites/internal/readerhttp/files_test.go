package readerhttp_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/docspub/platform/services/sites/internal/contentclient"
	"github.com/docspub/platform/services/sites/internal/contentclient/contenttest"
)

var fileLinks = regexp.MustCompile(`(?:href|src)="(/sites/[^"]*/~files/[^"]+)"`)

// A published file is served like a static file: a strong ETag (its
// SHA-256), public immutable caching on a public site, a 304 without
// asking content when the reader revalidates, and a 206 for a Range, for
// a file the reader keeps (cut by the reader) and a large one (cut by
// content).
func TestFilesLikeStaticFiles(t *testing.T) {
	e := newEnv(t)
	small := []byte("\x89PNG small image bytes")
	large := bytes.Repeat([]byte("0123456789"), 200_000) // 2 MB: streamed, not kept
	e.content.AddSpace("sp1", "acme", "Handbook")
	e.content.MergeFiles("sp1", []contentclient.Page{contenttest.Doc("p1", "Welcome", "welcome",
		"![small](files/f1) and [large](files/f2)\n")}, map[string]contenttest.File{
		"f1": {Name: "small.png", ContentType: "image/png", Bytes: small},
		"f2": {Name: "large.bin", ContentType: "application/octet-stream", Bytes: large}})
	_, url := e.site(`{"title":"Acme","spaces":["sp1"]}`)
	home := e.want(url, 200)
	links := fileLinks.FindAllStringSubmatch(home.body, -1)
	if len(links) != 2 {
		t.Fatalf("file links %v", links)
	}
	for _, tc := range []struct {
		name string
		url  string
		data []byte
	}{{"kept", links[0][1], small}, {"streamed", links[1][1], large}} {
		t.Run(tc.name, func(t *testing.T) {
			sum := sha256.Sum256(tc.data)
			etag := `"` + hex.EncodeToString(sum[:]) + `"`
			first := e.want(tc.url, 200)
			if first.body != string(tc.data) || first.header.Get("ETag") != etag {
				t.Fatalf("first read: %d bytes, ETag %q; want %d, %s", len(first.body), first.header.Get("ETag"), len(tc.data), etag)
			}
			if got, want := first.header.Get("Cache-Control"), "public, max-age=31536000, immutable"; got != want {
				t.Errorf("Cache-Control = %q, want %q", got, want)
			}
			calls := e.content.Calls("file")
			again := e.readWith(http.MethodGet, tc.url, map[string]string{"If-None-Match": etag})
			if again.status != http.StatusNotModified || again.body != "" || again.header.Get("ETag") != etag {
				t.Errorf("revalidation = %d with %d bytes, ETag %q; want 304, none, %s", again.status, len(again.body), again.header.Get("ETag"), etag)
			}
			if n := e.content.Calls("file") - calls; n != 0 {
				t.Errorf("revalidation asked content %d times, want none", n)
			}
			part := e.readWith(http.MethodGet, tc.url, map[string]string{"Range": "bytes=5-14"})
			if part.status != http.StatusPartialContent || part.body != string(tc.data[5:15]) {
				t.Errorf("Range = %d %q, want 206 %q", part.status, part.body, tc.data[5:15])
			}
			if got, want := part.header.Get("Content-Range"), "bytes 5-14/"+strconv.Itoa(len(tc.data)); got != want {
				t.Errorf("Content-Range = %q, want %q", got, want)
			}
			// Thousands of ranges, overlapping or unordered ones: the whole
			// file, never more.
			for _, rg := range []string{"bytes=" + strings.Repeat("0-0,", 2999) + "0-0", "bytes=0-9,5-14", "bytes=20-29,0-9"} {
				p := e.readWith(http.MethodGet, tc.url, map[string]string{"Range": rg})
				if p.status != 200 || p.body != string(tc.data) {
					t.Errorf("Range of %d bytes = %d with %d bytes, want 200 with the file's %d", len(rg), p.status, len(p.body), len(tc.data))
				}
			}
			if tc.name == "kept" {
				two := e.readWith(http.MethodGet, tc.url, map[string]string{"Range": "bytes=0-3,10-13"})
				if two.status != http.StatusPartialContent || !strings.HasPrefix(two.header.Get("Content-Type"), "multipart/byteranges") ||
					!strings.Contains(two.body, string(tc.data[10:14])) || len(two.body) > len(tc.data)+2*200 {
					t.Errorf("2 ordered ranges = %d %q, %d bytes", two.status, two.header.Get("Content-Type"), len(two.body))
				}
			}
			if other := e.readWith(http.MethodGet, tc.url, map[string]string{"If-None-Match": `"stale"`}); other.status != 200 || len(other.body) != len(tc.data) {
				t.Errorf("another ETag = %d with %d bytes", other.status, len(other.body))
			}
		})
	}
}
