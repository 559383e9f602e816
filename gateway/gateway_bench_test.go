package gateway_test

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"testing"
	"time"
)

// BenchmarkGateway measures GET /v1/orgs/{organizationId} answered by an
// upstream directly and through the gateway (token cached in Redis, rate limit
// on), one request at a time over kept-alive connections. "direct", "gateway",
// "gateway-no-rate-limit", "gateway-failed-auth-limit-on" (rate limit off) and
// "gateway-uncached" (a new token each time) report their own p50/p99 latency (and ns/op,
// whose ratio is the gateway's cost); "added" interleaves both paths and reports the latency the
// gateway adds at p50 and p99 and the ratio of the medians.
func BenchmarkGateway(b *testing.B) {
	org, err := json.Marshal(map[string]any{
		"object": "organization", "id": "org1", "title": "Acme Docs", "hostname": "acme",
		"createdAt": "2025-01-01T00:00:00Z",
		"urls":      map[string]string{"location": "/v1/orgs/org1", "app": "https://app.example/o/org1"},
	})
	if err != nil {
		b.Fatal(err)
	}
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(org)
	})
	h := newHarness(b, options{identityAPI: api, env: map[string]string{"RATE_LIMIT": "1000000000"}})
	token, _ := h.identity.add(randomID("user"), map[string]string{"org1": "admin"})
	direct := h.identity.srv.URL + "/v1/orgs/org1"
	viaGateway := h.srv.URL + "/v1/orgs/org1"
	// The same without the rate limit, whose Lua script is the costliest step
	// on miniredis.
	unlimited := newHarness(b, options{identityAPI: api, env: map[string]string{"RATE_LIMIT": "0"}})
	unlimitedToken, _ := unlimited.identity.add(randomID("user"), map[string]string{"org1": "admin"})
	viaUnlimited := unlimited.srv.URL + "/v1/orgs/org1"

	// With the failed-auth limit on, as deployed (FAILED_AUTH_LIMIT=30).
	guarded := newHarness(b, options{identityAPI: api, env: map[string]string{"RATE_LIMIT": "0", "FAILED_AUTH_LIMIT": "30"}})
	guardedToken, _ := guarded.identity.add(randomID("user"), map[string]string{"org1": "admin"})
	viaGuarded := guarded.srv.URL + "/v1/orgs/org1"

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	b.Cleanup(client.CloseIdleConnections)

	// Warm up: resolve the tokens once, open the connections.
	send(b, client, viaGateway, token)
	send(b, client, viaUnlimited, unlimitedToken)
	send(b, client, viaGuarded, guardedToken)
	send(b, client, direct, "")
	if calls := h.identity.calls.Load() + unlimited.identity.calls.Load() + guarded.identity.calls.Load(); calls != 3 {
		b.Fatalf("identity calls = %d after warm-up, want 3", calls)
	}

	b.Run("direct", func(b *testing.B) {
		lat := make([]time.Duration, 0, b.N)
		for b.Loop() {
			lat = append(lat, send(b, client, direct, ""))
		}
		reportLatency(b, "", lat)
	})
	b.Run("gateway", func(b *testing.B) {
		lat := make([]time.Duration, 0, b.N)
		for b.Loop() {
			lat = append(lat, send(b, client, viaGateway, token))
		}
		reportLatency(b, "", lat)
	})
	b.Run("gateway-no-rate-limit", func(b *testing.B) {
		lat := make([]time.Duration, 0, b.N)
		for b.Loop() {
			lat = append(lat, send(b, client, viaUnlimited, unlimitedToken))
		}
		reportLatency(b, "", lat)
	})
	b.Run("added", func(b *testing.B) {
		var d, g []time.Duration
		for b.Loop() {
			d = append(d, send(b, client, direct, ""))
			g = append(g, send(b, client, viaGateway, token))
		}
		dp50, dp99 := reportLatency(b, "direct-", d)
		gp50, gp99 := reportLatency(b, "gateway-", g)
		b.ReportMetric(micros(gp50-dp50), "added-p50-µs")
		b.ReportMetric(micros(gp99-dp99), "added-p99-µs")
		if dp50 > 0 {
			b.ReportMetric(float64(gp50)/float64(dp50), "p50-ratio")
		}
	})
	b.Run("gateway-failed-auth-limit-on", func(b *testing.B) {
		lat := make([]time.Duration, 0, b.N)
		for b.Loop() {
			lat = append(lat, send(b, client, viaGuarded, guardedToken))
		}
		reportLatency(b, "", lat)
	})
	if calls := h.identity.calls.Load() + unlimited.identity.calls.Load() + guarded.identity.calls.Load(); calls != 3 {
		b.Errorf("identity calls = %d, want 3: the tokens should stay cached", calls)
	}
	// Every request a token never seen: resolved through identity and cached.
	b.Run("gateway-uncached", func(b *testing.B) {
		lat := make([]time.Duration, 0, b.N)
		for b.Loop() {
			fresh, _ := unlimited.identity.add(randomID("user"), map[string]string{"org1": "admin"})
			lat = append(lat, send(b, client, viaUnlimited, fresh))
		}
		reportLatency(b, "", lat)
	})
}

// reportLatency reports the p50 and p99 of lat, in microseconds.
func reportLatency(b *testing.B, prefix string, lat []time.Duration) (p50, p99 time.Duration) {
	b.Helper()
	slices.Sort(lat)
	p50, p99 = percentile(lat, 0.50), percentile(lat, 0.99)
	b.ReportMetric(micros(p50), prefix+"p50-µs")
	b.ReportMetric(micros(p99), prefix+"p99-µs")
	return p50, p99
}

func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[int(float64(len(sorted)-1)*p)]
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// send makes one GET and returns its latency; anything but 200 fails.
func send(b *testing.B, c *http.Client, url, token string) time.Duration {
	b.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		b.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	start := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	_, err = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	took := time.Since(start)
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Fatalf("GET %s: status %d, err %v", url, resp.StatusCode, err)
	}
	return took
}
