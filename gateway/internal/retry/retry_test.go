package retry_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/docspub/platform/gateway/internal/retry"
)

// deadURL is the URL of a port that refuses connections.
func deadURL(t *testing.T) *url.URL {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return &url.URL{Scheme: "http", Host: addr}
}

func TestTransport(t *testing.T) {
	var hits atomic.Int64
	live := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		b, _ := io.ReadAll(r.Body)
		if r.URL.Path == "/fails" {
			w.WriteHeader(http.StatusInternalServerError)
		}
		_, _ = w.Write([]byte(r.Method + " " + string(b)))
	}))
	t.Cleanup(live.Close)
	liveURL, _ := url.Parse(live.URL)
	dead := deadURL(t)
	next := &http.Transport{}
	t.Cleanup(next.CloseIdleConnections)

	tests := []struct {
		name     string
		method   string
		to       *url.URL
		path     string
		body     string
		resolve  bool
		wantErr  bool
		wantBody string
		wantHits int64
	}{
		{name: "refused read goes to another instance", method: "GET", to: dead, resolve: true, wantBody: "GET ", wantHits: 1},
		{name: "refused write goes whole to another instance", method: "POST", to: dead, body: "the body", resolve: true, wantBody: "POST the body", wantHits: 1},
		{name: "not to be sent again", method: "GET", to: dead, wantErr: true},
		{name: "an answer is never sent again", method: "GET", to: liveURL, path: "/fails", resolve: true, wantBody: "GET ", wantHits: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var resolved atomic.Int64
			tr := retry.Transport{Next: next, Resolve: func(context.Context) (*url.URL, bool, error) {
				resolved.Add(1)
				return liveURL, tc.resolve, nil
			}}
			before := hits.Load()
			u := *tc.to
			u.Path = tc.path
			req, err := http.NewRequest(tc.method, u.String(), strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if tc.body == "" {
				req.Body = http.NoBody
			}
			resp, err := tr.RoundTrip(req)
			if tc.wantErr {
				if err == nil {
					resp.Body.Close()
					t.Fatal("RoundTrip succeeded, want the first attempt's error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(b) != tc.wantBody {
				t.Errorf("body %q, want %q", b, tc.wantBody)
			}
			if got := hits.Load() - before; got != tc.wantHits {
				t.Errorf("the live instance got %d requests, want %d", got, tc.wantHits)
			}
			if tc.to == liveURL && resolved.Load() != 0 {
				t.Errorf("resolved again %d times after an answer", resolved.Load())
			}
		})
	}
}
