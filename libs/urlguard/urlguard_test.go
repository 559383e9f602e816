package urlguard_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/urlguard"
)

func TestCheckURL(t *testing.T) {
	for _, tc := range []struct {
		url          string
		blocked      bool // by the default guard
		blockedAllow bool // with AllowPrivate
	}{
		{"https://example.com/spec.yaml", false, false},
		{"http://93.184.216.34/", false, false},
		{"http://[2606:2800:220:1:248:1893:25c8:1946]/", false, false},
		{"http://127.0.0.1:8080/", true, false},
		{"http://127.1.2.3/", true, false},
		{"http://[::1]/", true, false},
		{"http://[::ffff:127.0.0.1]/", true, false},
		{"http://10.0.0.1/", true, false},
		{"http://172.16.5.4/", true, false},
		{"http://192.168.1.1/", true, false},
		{"http://[fd00::1]/", true, false},
		{"http://169.254.169.254/latest/meta-data/", true, false}, // cloud metadata
		{"http://[fe80::1]/", true, false},
		{"http://0.0.0.0/", true, false},
		{"http://100.64.0.1/", true, false},
		{"http://224.0.0.1/", true, false},
		{"http://255.255.255.255/", true, false},
		{"ftp://example.com/", true, true},
		{"file:///etc/passwd", true, true},
		{"gopher://127.0.0.1/", true, true},
		{"/relative/path", true, true},
		{"http://", true, true},
	} {
		t.Run(tc.url, func(t *testing.T) {
			for _, g := range []struct {
				guard urlguard.Guard
				want  bool
			}{{urlguard.Guard{}, tc.blocked}, {urlguard.Guard{AllowPrivate: true}, tc.blockedAllow}} {
				_, err := g.guard.CheckURL(tc.url)
				if got := errors.Is(err, urlguard.ErrBlocked); got != g.want {
					t.Errorf("%+v.CheckURL(%q) = %v, want blocked %v", g.guard, tc.url, err, g.want)
				}
				if err != nil && !errors.Is(err, urlguard.ErrBlocked) {
					t.Errorf("CheckURL error %v does not wrap ErrBlocked", err)
				}
			}
		})
	}
}

// The client checks the resolved address when it connects, so a host name
// that resolves to loopback is refused like a literal address.
func TestClientRefusesLoopbackUnlessAllowed(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
			return
		}
		w.WriteHeader(http.StatusTeapot)
	}))
	t.Cleanup(srv.Close)
	port := srv.URL[strings.LastIndex(srv.URL, ":"):]
	other := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(other.Close)
	only := urlguard.Guard{Allow: []netip.AddrPort{netip.MustParseAddrPort(srv.Listener.Addr().String())}}

	for _, tc := range []struct {
		name    string
		guard   urlguard.Guard
		url     string
		blocked bool
	}{
		{"literal loopback", urlguard.Guard{}, srv.URL, true},
		{"name of loopback", urlguard.Guard{}, "http://localhost" + port, true},
		{"allowed literal", urlguard.Guard{AllowPrivate: true}, srv.URL, false},
		{"allowed name", urlguard.Guard{AllowPrivate: true}, "http://localhost" + port, false},
		{"redirect to another scheme", urlguard.Guard{AllowPrivate: true}, srv.URL + "/redirect", true},
		{"the one allowed address", only, srv.URL, false},
		{"the one allowed address by name", only, "http://localhost" + port, false},
		{"another port of an allowed address", only, other.URL, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, tc.url, nil)
			if err != nil {
				t.Fatal(err)
			}
			res, err := tc.guard.Client(5 * time.Second).Do(req)
			if err == nil {
				res.Body.Close()
			}
			if got := errors.Is(err, urlguard.ErrBlocked); got != tc.blocked {
				t.Fatalf("GET %s = %v, want blocked %v", tc.url, err, tc.blocked)
			}
			if !tc.blocked && res.StatusCode != http.StatusTeapot {
				t.Errorf("GET %s status = %d, want %d", tc.url, res.StatusCode, http.StatusTeapot)
			}
		})
	}
}

func TestFetch(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	ctx := context.Background()

	if _, err := (urlguard.Guard{}).Fetch(ctx, srv.URL, 5*time.Second); !errors.Is(err, urlguard.ErrBlocked) {
		t.Errorf("Fetch of loopback = %v, want ErrBlocked", err)
	}
	res, err := (urlguard.Guard{AllowPrivate: true}).Fetch(ctx, srv.URL, 5*time.Second)
	if err != nil {
		t.Fatalf("allowed Fetch: %v", err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNoContent {
		t.Errorf("allowed Fetch status = %d, want 204", res.StatusCode)
	}
}

// TestAllowanceEndsWithItsServer: an address allowed until a channel
// closes is reached while it is open, and guarded like any other once it
// is closed (whatever listens there next), by URL and at dial time.
func TestAllowanceEndsWithItsServer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTeapot)
	}))
	t.Cleanup(srv.Close)
	open := make(chan struct{})
	g := urlguard.Guard{Allow: []netip.AddrPort{netip.MustParseAddrPort(srv.Listener.Addr().String())}, AllowUntil: open}
	port := srv.URL[strings.LastIndex(srv.URL, ":"):]
	get := func(url string) error {
		t.Helper()
		if _, err := g.CheckURL(url); err != nil {
			return err
		}
		res, err := g.Client(5 * time.Second).Get(url)
		if err == nil {
			res.Body.Close()
		}
		return err
	}
	for _, url := range []string{srv.URL, "http://localhost" + port} {
		if err := get(url); err != nil {
			t.Fatalf("GET %s while allowed: %v", url, err)
		}
	}
	close(open)
	for _, url := range []string{srv.URL, "http://localhost" + port} {
		if err := get(url); !errors.Is(err, urlguard.ErrBlocked) {
			t.Errorf("GET %s after the allowance ended = %v, want blocked", url, err)
		}
	}
}
