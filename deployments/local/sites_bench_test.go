package local

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"
)

// BenchmarkPublishedView reads the published view of a site of 20 spaces
// through the gateway, alternately as a member of its organization (sites
// asks content once which spaces they may see) and as a visitor of the
// published site (served from sites' projection alone), and reports the
// medians and their ratio: the price of asking content.
//
//	go test -run '^$' -bench PublishedView -benchtime 200x ./deployments/local/
func BenchmarkPublishedView(b *testing.B) {
	p := benchPlatform(b)
	org := p.URL + "/v1/orgs/" + p.Credentials.DemoOrgID
	send := func(token, method, url string, body any) []byte {
		b.Helper()
		raw, _ := json.Marshal(body)
		req, _ := http.NewRequest(method, url, bytes.NewReader(raw))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		defer res.Body.Close()
		out, _ := io.ReadAll(res.Body)
		if res.StatusCode >= 300 {
			b.Fatalf("%s %s: %d %s", method, url, res.StatusCode, out)
		}
		return out
	}
	admin := p.Credentials.DemoAdminToken
	var spaces []string
	for i := range 20 {
		var sp struct{ ID string }
		decode(b, send(admin, "POST", org+"/spaces", map[string]any{"title": fmt.Sprintf("Space %d", i)}), &sp)
		spaces = append(spaces, sp.ID)
	}
	var st struct{ ID string }
	decode(b, send(admin, "POST", org+"/sites", map[string]any{"title": "Bench", "spaces": spaces}), &st)
	site := org + "/sites/" + st.ID
	send(admin, "POST", site+"/publish", nil)

	published := site + "/published"
	for range 10 { // warm both paths
		get(b, published, "Authorization", "Bearer "+p.Credentials.DemoReaderToken)
		get(b, published, "Authorization", "Bearer "+p.Credentials.OtherOrgToken)
	}
	timed := func(token string) time.Duration {
		start := time.Now()
		get(b, published, "Authorization", "Bearer "+token)
		return time.Since(start)
	}
	member := make([]time.Duration, 0, b.N)
	visitor := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		member = append(member, timed(p.Credentials.DemoReaderToken))
		visitor = append(visitor, timed(p.Credentials.OtherOrgToken))
	}
	b.StopTimer()
	mp50, vp50 := percentile(member, 50), percentile(visitor, 50)
	b.ReportMetric(float64(mp50.Microseconds()), "member-p50-µs")
	b.ReportMetric(float64(percentile(member, 99).Microseconds()), "member-p99-µs")
	b.ReportMetric(float64(vp50.Microseconds()), "visitor-p50-µs")
	b.ReportMetric(float64(percentile(visitor, 99).Microseconds()), "visitor-p99-µs")
	b.ReportMetric(float64(mp50)/float64(vp50), "ratio-p50")
}
