package hostnames_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docspub/platform/gateway/internal/hostnames"
	"github.com/docspub/platform/libs/discovery"
	"github.com/docspub/platform/libs/internalclient"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/logx"
)

// TestAllow: a hostname a site verified may have a certificate, others
// not; a name that cannot be a site's is refused without asking sites, and
// a decision is kept rather than asked again.
func TestAllow(t *testing.T) {
	var asked atomic.Int64
	sites := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		if r.URL.Path != "/internal/v1/hostnames/docs.example.com" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error":{"code":404,"message":"no site has this hostname"}}`))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"site1","organizationId":"org1"}`))
	}))
	t.Cleanup(sites.Close)
	signer, err := internaltoken.NewSigner("gateway", "test-secret-test-secret-test-secret-0123", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	d := hostnames.New(internalclient.New("sites", discovery.Static{"sites": sites.URL}, signer, hostnames.DecisionTimeout), logx.Discard())
	ctx := context.Background()

	tests := []struct {
		name, host string
		allowed    bool
		asks       int64
	}{
		{name: "verified", host: "docs.example.com", allowed: true, asks: 1},
		{name: "verified, kept", host: "docs.example.com.", allowed: true, asks: 0},
		{name: "unverified", host: "other.example.com", asks: 1},
		{name: "unverified, kept", host: "other.example.com", asks: 0},
		{name: "IP address", host: "192.0.2.1", asks: 0},
		{name: "one label", host: "localhost", asks: 0},
		{name: "upper case", host: "Docs.example.com", asks: 0},
		{name: "underscore", host: "a_b.example.com", asks: 0},
	}
	for _, tc := range tests {
		before := asked.Load()
		err := d.Allow(ctx, tc.host)
		if (err == nil) != tc.allowed {
			t.Errorf("%s: Allow(%q) = %v, want allowed %v", tc.name, tc.host, err, tc.allowed)
		}
		if got := asked.Load() - before; got != tc.asks {
			t.Errorf("%s: sites asked %d times, want %d", tc.name, got, tc.asks)
		}
	}
}
