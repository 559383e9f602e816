// Package contenttest holds what content's tests share: a website to import
// from, the hostile inputs of issue 13 (a PNG of 100 million pixels, a page
// of deeply nested quotes), the process's peak resident memory, latency
// medians and the wait for work to stop once cancelled.
package contenttest

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Site is a website for imports: pages (HTML) and files (PNG images) by
// path, handlers for paths that answer otherwise; other paths are 404. It
// counts the requests it answers and stops when the test ends.
type Site struct {
	*httptest.Server
	Requests atomic.Int64
}

// NewSite starts a Site.
func NewSite(t testing.TB, pages map[string]string, files map[string][]byte, handlers map[string]http.HandlerFunc) *Site {
	t.Helper()
	s := &Site{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.Requests.Add(1)
		if h, ok := handlers[r.URL.Path]; ok {
			h(w, r)
			return
		}
		if b, ok := files[r.URL.Path]; ok {
			w.Header().Set("Content-Type", "image/png")
			_, _ = w.Write(b)
			return
		}
		p, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, p)
	}))
	t.Cleanup(s.Close)
	return s
}

// Stops fails unless the work reporting on errc ends with
// context.Canceled within 5 s of its cancellation.
func Stops(t testing.TB, what string, errc <-chan error) {
	t.Helper()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("%s: err %v, want context.Canceled", what, err)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("%s went on after its context was cancelled", what)
	}
}

// BigPNG is a valid RGBA PNG of w × h transparent black pixels, written row
// by row: 10000 × 10000 makes about 470 KB that decode to 400 MB.
func BigPNG(t testing.TB, w, h int) []byte {
	t.Helper()
	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		_ = binary.Write(&out, binary.BigEndian, uint32(len(data)))
		crc := crc32.NewIEEE()
		crc.Write([]byte(typ))
		crc.Write(data)
		out.WriteString(typ)
		out.Write(data)
		_ = binary.Write(&out, binary.BigEndian, crc.Sum32())
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = 8, 6 // 8 bits per channel, RGBA
	chunk("IHDR", ihdr)
	var idat bytes.Buffer
	z, _ := zlib.NewWriterLevel(&idat, zlib.BestSpeed)
	row := make([]byte, 4*w+1) // filter byte 0, then the pixels
	for range h {
		if _, err := z.Write(row); err != nil {
			t.Fatal(err)
		}
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	chunk("IDAT", idat.Bytes())
	chunk("IEND", nil)
	return out.Bytes()
}

// NestedQuotes is the page of the abuse report: 56 KB of <blockquote>
// nested 500 deep around 8,800 lines, which converted to 10 MB of markdown
// in 25 s of CPU (28 GB allocated) before the importer cut its nesting.
func NestedQuotes() string {
	var b strings.Builder
	b.WriteString("<html><head><title>Quotes</title></head><body>")
	for range 500 {
		b.WriteString("<blockquote>")
	}
	for range 8800 {
		b.WriteString("x<br>")
	}
	for range 500 {
		b.WriteString("</blockquote>")
	}
	b.WriteString("</body></html>")
	return b.String()
}

// PeakRSS is the process's peak resident memory in bytes (VmHWM of
// /proc/self/status); the test is skipped where there is no such file.
func PeakRSS(t testing.TB) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Skipf("no peak RSS here: %v", err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				t.Fatalf("VmHWM %q: %v", rest, err)
			}
			return kb << 10
		}
	}
	t.Skip("no VmHWM in /proc/self/status")
	return 0
}

// Median is the median of durations.
func Median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
