package internalclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/discovery"
	"github.com/docspub/platform/libs/internalclient"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/otelx"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

const secret = "0123456789abcdef0123456789abcdef"

// peer starts a service named "content" that verifies tokens for itself
// and answers with h; it returns a client of it signed by "sites".
func peer(t *testing.T, h func(w http.ResponseWriter, r *http.Request, p internaltoken.Principal)) *internalclient.Client {
	t.Helper()
	verify, err := internaltoken.NewSigner("content", secret, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := verify.Verify(r.Header.Get(internaltoken.Header))
		if err != nil {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		h(w, r, p)
	}))
	t.Cleanup(srv.Close)
	sign, err := internaltoken.NewSigner("sites", secret, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	return internalclient.New("content", discovery.Static{"content": srv.URL}, sign, 2*time.Second)
}

func reply(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// TestDoSendsTokenForThePeerAndDecodes: the peer verifies a token minted
// for it, naming the calling service (and the user when the call is for
// one), gets the JSON body and the answer is decoded.
func TestDoSendsTokenForThePeerAndDecodes(t *testing.T) {
	var got []internaltoken.Principal
	c := peer(t, func(w http.ResponseWriter, r *http.Request, p internaltoken.Principal) {
		got = append(got, p)
		var in map[string]string
		_ = json.NewDecoder(r.Body).Decode(&in)
		reply(w, 200, `{"echo":"`+in["q"]+`"}`)
	})
	var out struct{ Echo string }
	if err := c.Do(context.Background(), internalclient.Request{Method: "POST", Path: "/x", JSON: map[string]string{"q": "hi"}}, &out, 1024); err != nil {
		t.Fatal(err)
	}
	user := c.For("ada", map[string]string{"o1": "admin"})
	if err := c.Do(context.Background(), internalclient.Request{Method: "GET", Path: "/x", As: &user}, nil, 1024); err != nil {
		t.Fatal(err)
	}
	if out.Echo != "hi" || len(got) != 2 || got[0].Service != "sites" || got[0].UserID != "" ||
		got[1].UserID != "ada" || got[1].Service != "sites" || got[1].Role("o1") != "admin" {
		t.Errorf("answer %+v, principals %+v", out, got)
	}
}

// TestPeerFailuresAreOurs: each answer of the peer becomes our own error:
// the status kept for what the caller asked about, the peer's message
// never in what our client is shown (only in the error's text for the log).
func TestPeerFailuresAreOurs(t *testing.T) {
	cases := []struct {
		name   string
		status int
		want   int
	}{
		{"invalid", 400, 400},
		{"forbidden", 403, 403},
		{"not found", 404, 404},
		{"conflict", 409, 409},
		{"gone", 410, 410},
		{"too large", 413, 413},
		{"our token refused", 401, 503},
		{"throttled", 429, 503},
		{"failed", 500, 503},
		{"down", 503, 503},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := peer(t, func(w http.ResponseWriter, _ *http.Request, _ internaltoken.Principal) {
				reply(w, tc.status, `{"error":{"code":1,"message":"SECRET internal detail"}}`)
			})
			err := c.Do(context.Background(), internalclient.Request{Method: "GET", Path: "/x", What: "space"}, nil, 1024)
			body := apierr.ToBody(err)
			if body.Error.Code != tc.want || strings.Contains(body.Error.Message, "SECRET") {
				t.Errorf("client sees %+v, want %d without the peer's text", body, tc.want)
			}
			if internalclient.StatusOf(err) != tc.status || !strings.Contains(err.Error(), "SECRET") {
				t.Errorf("status %d, log text %q", internalclient.StatusOf(err), err)
			}
		})
	}
}

// TestUnreachableAndSlowPeersAre503: a peer discovery does not know, one
// that does not listen and one slower than the call's timeout are 503s;
// the caller's own cancellation is its own error.
func TestUnreachableAndSlowPeersAre503(t *testing.T) {
	sign, err := internaltoken.NewSigner("sites", secret, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]*internalclient.Client{
		"unknown":   internalclient.New("content", discovery.Static{}, sign, time.Second),
		"not there": internalclient.New("content", discovery.Static{"content": "http://127.0.0.1:1"}, sign, time.Second),
	} {
		if got := apierr.ToBody(c.Do(context.Background(), internalclient.Request{Method: "GET", Path: "/x"}, nil, 10)); got.Error.Code != 503 {
			t.Errorf("%s: %+v", name, got)
		}
	}
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	slow := peer(t, func(w http.ResponseWriter, r *http.Request, _ internaltoken.Principal) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	start := time.Now()
	err = slow.Do(context.Background(), internalclient.Request{Method: "GET", Path: "/x", Timeout: 100 * time.Millisecond}, nil, 10)
	if apierr.ToBody(err).Error.Code != 503 || time.Since(start) > 5*time.Second {
		t.Errorf("slow peer: %v after %s", err, time.Since(start))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := slow.Do(ctx, internalclient.Request{Method: "GET", Path: "/x"}, nil, 10); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled caller: %v", err)
	}
}

// TestAnswersAreBounded: an answer larger than the caller reads is a 503,
// whether its length is announced or not.
func TestAnswersAreBounded(t *testing.T) {
	big := `{"x":"` + strings.Repeat("a", 4096) + `"}`
	for _, chunked := range []bool{false, true} {
		c := peer(t, func(w http.ResponseWriter, _ *http.Request, _ internaltoken.Principal) {
			if chunked {
				w.WriteHeader(200)
				_, _ = io.WriteString(w, big[:10])
				w.(http.Flusher).Flush()
				_, _ = io.WriteString(w, big[10:])
				return
			}
			reply(w, 200, big)
		})
		var out map[string]string
		err := c.Do(context.Background(), internalclient.Request{Method: "GET", Path: "/x"}, &out, 1024)
		if apierr.ToBody(err).Error.Code != 503 || !errors.Is(err, internalclient.ErrTooLarge) {
			t.Errorf("chunked %v: %v", chunked, err)
		}
	}
}

// TestSendStreamsAndCarriesTrace: Send hands the body over as it comes, the
// call's timeout bounds it until Close, and the peer sees the caller's trace.
func TestSendStreamsAndCarriesTrace(t *testing.T) {
	_, shutdown := otelx.SetupInMemory("client")
	t.Cleanup(func() { _ = shutdown(context.Background()) })
	seen := make(chan trace.SpanContext, 1)
	c := peer(t, func(w http.ResponseWriter, r *http.Request, _ internaltoken.Principal) {
		seen <- trace.SpanContextFromContext(otel.GetTextMapPropagator().Extract(r.Context(), propagation.HeaderCarrier(r.Header)))
		w.Header().Set("ETag", `"e"`)
		w.WriteHeader(206)
		_, _ = io.WriteString(w, "bytes")
	})
	ctx, span := otel.Tracer("test").Start(context.Background(), "request")
	defer span.End()
	res, err := c.Send(ctx, internalclient.Request{Method: "GET", Path: "/f", Header: http.Header{"Range": {"bytes=0-4"}}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil || string(b) != "bytes" || res.StatusCode != 206 || res.Header.Get("ETag") != `"e"` {
		t.Errorf("%d %q %v", res.StatusCode, b, err)
	}
	if got := <-seen; got.TraceID() != span.SpanContext().TraceID() {
		t.Errorf("peer saw trace %s, want %s", got.TraceID(), span.SpanContext().TraceID())
	}
}
