package local

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sort"
	"testing"
	"time"

	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/logx"
)

// BenchmarkGatewayOverhead sends authenticated GET /v1/orgs/{id} through the
// gateway (token resolution cached in Redis) and the same request straight to
// identity with an internal token, alternately, and reports medians, p99s, the
// ratio and the latency the gateway adds.
//
//	go test -run '^$' -bench GatewayOverhead -benchtime 2000x ./deployments/local/
func BenchmarkGatewayOverhead(b *testing.B) {
	p := benchPlatform(b)
	path := "/v1/orgs/" + p.Credentials.DemoOrgID

	signer, err := internaltoken.NewSigner("gateway", p.InternalTokenSecret, time.Hour)
	if err != nil {
		b.Fatal(err)
	}
	// The user id and roles the gateway would forward.
	me := get(b, p.URL+"/v1/user", "Authorization", "Bearer "+p.Credentials.DemoAdminToken)
	var user struct{ ID string }
	decode(b, me, &user)
	internal, err := signer.Mint("identity", internaltoken.Principal{UserID: user.ID, Roles: map[string]string{p.Credentials.DemoOrgID: "admin"}})
	if err != nil {
		b.Fatal(err)
	}

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	timed := func(url, header, value string) time.Duration {
		req, _ := http.NewRequest("GET", url, nil)
		req.Header.Set(header, value)
		start := time.Now()
		res, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			b.Fatalf("GET %s: %d", url, res.StatusCode)
		}
		return time.Since(start)
	}
	// Warm both paths (connections, token cache).
	for i := 0; i < 20; i++ {
		timed(p.URL+path, "Authorization", "Bearer "+p.Credentials.DemoAdminToken)
		timed(p.IdentityURL+path, internaltoken.Header, internal)
	}
	gw := make([]time.Duration, 0, b.N)
	direct := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		gw = append(gw, timed(p.URL+path, "Authorization", "Bearer "+p.Credentials.DemoAdminToken))
		direct = append(direct, timed(p.IdentityURL+path, internaltoken.Header, internal))
	}
	b.StopTimer()
	gp50, gp99 := percentile(gw, 50), percentile(gw, 99)
	dp50, dp99 := percentile(direct, 50), percentile(direct, 99)
	b.ReportMetric(float64(gp50.Microseconds()), "gateway-p50-µs")
	b.ReportMetric(float64(gp99.Microseconds()), "gateway-p99-µs")
	b.ReportMetric(float64(dp50.Microseconds()), "direct-p50-µs")
	b.ReportMetric(float64(dp99.Microseconds()), "direct-p99-µs")
	b.ReportMetric(float64(gp50)/float64(dp50), "ratio-p50")
	b.ReportMetric(float64((gp50 - dp50).Microseconds()), "added-p50-µs")
	b.ReportMetric(float64((gp99 - dp99).Microseconds()), "added-p99-µs")
}

// benchPlatform starts the platform for a benchmark, without rate limits.
func benchPlatform(b *testing.B) *Platform {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, err := Start(ctx, Config{Addr: "127.0.0.1:0", DataDir: b.TempDir(), RateLimit: 0}, logx.Discard())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(p.Close)
	return p
}

func percentile(d []time.Duration, p int) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[(len(s)-1)*p/100]
}

func get(b *testing.B, url, header, value string) []byte {
	b.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set(header, value)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		b.Fatalf("GET %s: %d %s", url, res.StatusCode, body)
	}
	return body
}

func decode(b *testing.B, body []byte, v any) {
	b.Helper()
	if err := json.Unmarshal(body, v); err != nil {
		b.Fatal(err)
	}
}
