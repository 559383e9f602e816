package edge_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docspub/platform/gateway/internal/edge"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/waittest"
)

// serve serves h on the readers' edge (no page cache) until the test
// ends, and returns its address.
func serve(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	e := &edge.Edge{Handler: h, Log: logx.ForTest(t)}
	go func() { done <- e.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return ln.Addr().String()
}

// An answer of at most StreamAbove bytes keeps its Content-Length; a
// larger one, or one of unknown length, is streamed (chunked): the reader
// has its first bytes before the handler wrote the rest, and then the
// whole; a HEAD's keeps its length, whatever it is.
func TestLargeAnswersStream(t *testing.T) {
	release := make(chan struct{})
	addr := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		if r.URL.Query().Get("known") != "no" {
			w.Header().Set("Content-Length", strconv.Itoa(n))
		}
		w.WriteHeader(http.StatusOK)
		if r.Method != http.MethodGet {
			return
		}
		half := n / 2
		_, _ = w.Write(bytes.Repeat([]byte("x"), half))
		if r.URL.Query().Get("wait") == "yes" {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
		_, _ = w.Write(bytes.Repeat([]byte("y"), n-half))
	}))
	client := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(client.CloseIdleConnections) // before the edge stops: it lingers for open ones
	for _, c := range []struct {
		method, query string
		length        int64 // -1: streamed
		n             int
	}{
		{"GET", "n=1000", 1000, 1000},
		{"GET", "n=1048576", 1 << 20, 1 << 20},
		{"GET", "n=3000000&wait=yes", -1, 3_000_000},
		{"GET", "n=5000&known=no&wait=yes", -1, 5000},
		{"HEAD", "n=3000000", 3_000_000, 0},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		req, _ := http.NewRequestWithContext(ctx, c.method, "http://"+addr+"/sites/x?"+c.query, nil)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v (a streamed answer's first half not sent before its second was written?)", c.method, c.query, err)
		}
		first := make([]byte, c.n/2)
		_, err = io.ReadFull(resp.Body, first)
		if strings.Contains(c.query, "wait=yes") {
			release <- struct{}{}
		}
		rest, rerr := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		cancel()
		if got := len(first) + len(rest); err != nil || rerr != nil || resp.StatusCode != 200 || got != c.n || resp.ContentLength != c.length {
			t.Errorf("%s %s: %d, %d bytes (%v, %v), Content-Length %d; want %d bytes, %d",
				c.method, c.query, resp.StatusCode, got, err, rerr, resp.ContentLength, c.n, c.length)
		}
	}
}

// The edge refuses what readers do not send, with the API's error body,
// before the gateway's handler sees it: other methods (405, Allow), the
// API's paths however written (404), a body (413), headers over
// MaxHeaderBytes (431), no Host (400), a malformed request (400).
func TestRefusals(t *testing.T) {
	var reached atomic.Int64
	addr := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		_, _ = io.WriteString(w, "page")
	}))
	big := strings.Repeat("a", edge.MaxHeaderBytes)
	for _, c := range []struct {
		name, request string
		status        int
	}{
		{"a read", "GET /sites/x HTTP/1.1\r\nHost: h\r\n\r\n", 200},
		{"POST", "POST /sites/x HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n", 405},
		{"the API", "GET /v1/orgs HTTP/1.1\r\nHost: h\r\n\r\n", 404},
		{"the API, escaped", "GET /%761/orgs HTTP/1.1\r\nHost: h\r\n\r\n", 404},
		{"the API, behind a dot segment", "GET /v1/../sites/x HTTP/1.1\r\nHost: h\r\n\r\n", 404},
		{"a body", "GET /sites/x HTTP/1.1\r\nHost: h\r\nContent-Length: 10000\r\n\r\n" + strings.Repeat("b", 10000), 413},
		{"headers too large", "GET /sites/x HTTP/1.1\r\nHost: h\r\nX-Big: " + big + "\r\n\r\n", 431},
		{"no Host", "GET /sites/x HTTP/1.1\r\n\r\n", 400},
		{"malformed", "GET /sites/x HTTP/1.1\r\nHost h\r\n\r\n", 400},
	} {
		before := reached.Load()
		status, header, body := rawRequest(t, addr, c.request)
		if status != c.status {
			t.Errorf("%s: %d %s; want %d", c.name, status, body, c.status)
			continue
		}
		if status == 200 {
			if reached.Load() != before+1 {
				t.Errorf("%s: the handler was not reached", c.name)
			}
			continue
		}
		if reached.Load() != before || !strings.HasPrefix(body, `{"error":{"code":`+strconv.Itoa(c.status)) ||
			!strings.HasPrefix(header.Get("Content-Type"), "application/json") {
			t.Errorf("%s: reached the handler %d times, %q %q", c.name, reached.Load()-before, header.Get("Content-Type"), body)
		}
		if c.status == 405 && header.Get("Allow") != "GET, HEAD" {
			t.Errorf("%s: Allow %q", c.name, header.Get("Allow"))
		}
	}
}

// rawRequest writes request on a new connection and reads the answer.
func rawRequest(t *testing.T, addr, request string) (int, http.Header, string) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	go func() { _, _ = io.WriteString(conn, request) }()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("%.60q: %v", request, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(body)
}

// Told to stop, the edge keeps serving a while: a request on a
// connection open before then is answered, with Connection: close; then
// Serve returns once that connection is gone.
func TestLingersThenDrains(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	e := &edge.Edge{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "page")
	}), Log: logx.ForTest(t)}
	go func() { done <- e.Serve(ctx, ln) }()
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	br := bufio.NewReader(conn)
	get := func() *http.Response {
		t.Helper()
		if _, err := io.WriteString(conn, "GET /sites/x HTTP/1.1\r\nHost: h\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		return resp
	}
	if resp := get(); resp.StatusCode != 200 || resp.Close {
		t.Fatalf("before: %d, close %v", resp.StatusCode, resp.Close)
	}
	cancel()
	// Answered (the connection still served) until an answer closes it.
	waittest.Until(t, "an answer closing the connection", 5*time.Second, func() bool {
		resp := get()
		if resp.StatusCode != 200 {
			t.Fatalf("lingering: %d", resp.StatusCode)
		}
		return resp.Close
	})
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve still running 5 s after its last connection closed")
	}
}
