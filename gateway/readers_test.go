package gateway_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/docspub/platform/libs/kafkatest"
)

// TestReadersListenerAllocatesLessThanNetHTTP: a page-cache hit on the
// readers' listener, its view recorded and posted to insights included,
// allocates less than Go's net/http alone needs to serve the same bytes
// (its request, header map, context and connection reader), counted over
// a few thousand requests on one connection by a client that allocates
// nothing.
func TestReadersListenerAllocatesLessThanNetHTTP(t *testing.T) {
	rs := newReaderSite(t)
	// insights takes the events and reads nothing of them.
	insights := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(insights.Close)
	k := kafkatest.Start(t)
	h := newHarness(t, options{env: map[string]string{"KAFKA_BROKERS": strings.Join(k.Brokers, ","), "READER_CACHE_TTL": "1m", "RATE_LIMIT": "0"},
		upstreams: map[string]string{"sites": rs.srv.URL, "insights": insights.URL}, readers: true})
	bg, stop := context.WithCancel(context.Background())
	h.gw.RunBackground(bg)
	t.Cleanup(func() { stop(); _ = h.gw.Close(context.Background()) })
	h.target = h.readers
	first, page := h.read(t, http.MethodGet, "/sites/o1/s1/page", nil)
	bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hd := w.Header()
		hd["Content-Type"] = first.Header["Content-Type"]
		hd["Content-Length"] = first.Header["Content-Length"]
		_, _ = io.WriteString(w, page)
	}))
	t.Cleanup(bare.Close)

	readers := strings.TrimPrefix(h.readers, "http://")
	// A returning reader: a view recorded, no cookie set.
	req := "GET /sites/o1/s1/page HTTP/1.1\r\nHost: " + readers + "\r\nCookie: docspub_vid=v1; docspub_sid=s1\r\n\r\n"
	hits := allocationsPerRequest(t, readers, req)
	alone := allocationsPerRequest(t, strings.TrimPrefix(bare.URL, "http://"), req)
	t.Logf("allocations a request: readers' listener, a page-cache hit %.1f; net/http alone %.1f", hits, alone)
	if hits >= alone {
		t.Errorf("a page-cache hit on the readers' listener allocates %.1f times; net/http alone %.1f", hits, alone)
	}
}

// allocationsPerRequest sends request to addr a few thousand times on
// one connection and returns the process's allocations per request.
func allocationsPerRequest(t *testing.T, addr, request string) float64 {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	buf, req := make([]byte, 1<<16), []byte(request)
	exchange := func() {
		if _, err := conn.Write(req); err != nil {
			t.Fatal(err)
		}
		readAnswer(t, conn, buf)
	}
	for range 200 {
		exchange()
	}
	const n = 4000
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range n {
		exchange()
	}
	runtime.ReadMemStats(&after)
	return float64(after.Mallocs-before.Mallocs) / n
}

// readAnswer reads one answer of 200 with a Content-Length from conn into
// buf, allocating nothing.
func readAnswer(t *testing.T, conn net.Conn, buf []byte) {
	n := 0
	for {
		m, err := conn.Read(buf[n:])
		if err != nil {
			t.Fatal(err)
		}
		n += m
		end := bytes.Index(buf[:n], []byte("\r\n\r\n"))
		if end < 0 {
			continue
		}
		head := buf[:end]
		if !bytes.HasPrefix(head, []byte("HTTP/1.1 200 ")) {
			t.Fatalf("answer %q", head)
		}
		i := bytes.Index(head, []byte("\r\nContent-Length: "))
		if i < 0 {
			t.Fatalf("answer without a length: %q", head)
		}
		v := head[i+len("\r\nContent-Length: "):]
		if j := bytes.IndexByte(v, '\r'); j >= 0 {
			v = v[:j]
		}
		length := 0
		for _, c := range v {
			length = length*10 + int(c-'0')
		}
		for n < end+4+length {
			if m, err = conn.Read(buf[n:]); err != nil {
				t.Fatal(err)
			}
			n += m
		}
		return
	}
}
