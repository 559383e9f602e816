package views_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docspub/platform/gateway/internal/views"
	"github.com/docspub/platform/libs/discovery"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/waittest"
)

const secret = "0123456789abcdef0123456789abcdef-insights"

func signer(t *testing.T, service string) *internaltoken.Signer {
	t.Helper()
	s, err := internaltoken.NewSigner(service, secret, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestBatchesPerSite: events go in batches of at most views.Batch,
// each to its site's path, with a token for insights naming the gateway.
func TestBatchesPerSite(t *testing.T) {
	verify := signer(t, views.Service)
	var mu sync.Mutex
	batches := map[string][]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := verify.Verify(r.Header.Get(internaltoken.Header))
		if err != nil || p.Service != "gateway" || p.UserID != "" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		var body struct {
			Events []json.RawMessage `json:"events"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		mu.Lock()
		batches[r.URL.Path] = append(batches[r.URL.Path], len(body.Events))
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	rec := views.New(discovery.Static{views.Service: srv.URL}, signer(t, "gateway"), logx.Discard())
	n := 2*views.Batch + 50
	for range n {
		rec.Record(views.Event{Organization: "o1", Site: "s1", Body: map[string]any{"type": "page_view"}})
	}
	for range 3 {
		rec.Record(views.Event{Organization: "o1", Site: "s2", Body: map[string]any{"type": "page_view"}})
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = rec.Run(ctx) }()
	defer func() { cancel(); <-done }()
	total := func(path string) (sum, most int) {
		mu.Lock()
		defer mu.Unlock()
		for _, b := range batches[path] {
			sum += b
			most = max(most, b)
		}
		return sum, most
	}
	waittest.Until(t, "every event posted", 10*time.Second, func() bool {
		a, _ := total("/v1/orgs/o1/sites/s1/insights/events")
		b, _ := total("/v1/orgs/o1/sites/s2/insights/events")
		return a == n && b == 3
	})
	if _, most := total("/v1/orgs/o1/sites/s1/insights/events"); most > views.Batch {
		t.Errorf("a batch of %d events", most)
	}
	if d := rec.Dropped(); d != 0 {
		t.Errorf("dropped %d", d)
	}
}

// TestFullQueueDrops: Record never waits; past the queue's bound, events
// are dropped and counted.
func TestFullQueueDrops(t *testing.T) {
	rec := views.New(discovery.Static{}, signer(t, "gateway"), logx.Discard()) // not running: nothing drains
	start := time.Now()
	for range views.Queue + 25 {
		rec.Record(views.Event{Organization: "o1", Site: "s1", Body: map[string]any{}})
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("recording took %s", took)
	}
	if d := rec.Dropped(); d != 25 {
		t.Errorf("dropped %d, want 25", d)
	}
}

// TestBatchesUnderTheBodyLimit: large events (long URLs, claims) go in
// more batches, none over views.MaxBatchBytes (insights refuses a body
// over 1 MiB whole), every event posted once.
func TestBatchesUnderTheBodyLimit(t *testing.T) {
	var mu sync.Mutex
	var sizes []int
	got := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body struct {
			Events []json.RawMessage `json:"events"`
		}
		if err := json.Unmarshal(raw, &body); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		mu.Lock()
		sizes, got = append(sizes, len(raw)), got+len(body.Events)
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	rec := views.New(discovery.Static{views.Service: srv.URL}, signer(t, "gateway"), logx.Discard())
	claims := map[string]any{"team": strings.Repeat("c", 4000)}
	const n = 600 // about 3.7 MB in all
	for i := range n {
		rec.Record(views.Event{Organization: "o1", Site: "s1", Body: map[string]any{"type": "page_view",
			"url": fmt.Sprintf("https://docs.example.com/%d/%s", i, strings.Repeat("p", 2000)), "claims": claims}})
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = rec.Run(ctx) }()
	defer func() { cancel(); <-done }()
	waittest.Until(t, "every event posted", 10*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return got == n
	})
	mu.Lock()
	defer mu.Unlock()
	for _, s := range sizes {
		if s > views.MaxBatchBytes {
			t.Errorf("a batch of %d bytes", s)
		}
	}
	if len(sizes) < 4 || rec.Dropped() != 0 {
		t.Errorf("%d batches, %d dropped", len(sizes), rec.Dropped())
	}
}
