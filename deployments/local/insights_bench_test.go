package local

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/waittest"
	"github.com/segmentio/kafka-go"
)

// BenchmarkInsightsIngest posts batches of 100 events through the gateway
// of the local platform from 128 concurrent clients (a flood: many readers'
// browsers at once) and reports the events
// accepted per second, next to the same batches written straight to Kafka
// with kafka-go (acks from all in-sync replicas) from the same process, and
// their ratio. It reports how long after the last 204 the site's
// eventsCount equals every event accepted (rollup-lag-ms) and the rate the
// rollups took the flood in (rolled-up-events/s). Then it measures how
// long after the 204 an event shows in an
// aggregate (p50, p95 of 20 probes, while the rollup consumer catches up
// with the flood). b.N is the number of batches.
//
//	go test -run '^$' -bench InsightsIngest -benchtime 3000x -count 3 ./deployments/local/
func BenchmarkInsightsIngest(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	p, err := Start(ctx, Config{Addr: "127.0.0.1:0", DataDir: b.TempDir(), RateLimit: 0, LogLevel: "error"}, logx.Discard())
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	token := p.Credentials.DemoAdminToken
	org := "/v1/orgs/" + p.Credentials.DemoOrgID
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 128}}
	post := func(path string, body []byte) (int, []byte) {
		req, _ := http.NewRequest("POST", p.URL+path, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		res, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		defer res.Body.Close()
		out, _ := io.ReadAll(res.Body)
		return res.StatusCode, out
	}
	status, out := post(org+"/sites", []byte(`{"title":"Bench site"}`))
	if status != 201 {
		b.Fatalf("create site: %d %s", status, out)
	}
	var created struct{ ID string }
	decode(b, out, &created)
	site := org + "/sites/" + created.ID
	waittest.Until(b, "the site known to insights", 30*time.Second, func() bool {
		status, _ := post(site+"/insights/events", []byte(`{"events":[]}`))
		return status == 204
	})

	const perBatch, workers = 100, 128
	events := make([]map[string]any, perBatch)
	for i := range events {
		events[i] = testEvent{typ: "page_view", visitor: fmt.Sprintf("v%d", i%40), session: fmt.Sprintf("s%d", i%60),
			path: fmt.Sprintf("/guides/%d", i%25), ua: []string{chromeWindows, firefoxLinux, safariIPhone}[i%3]}.body()
		delete(events[i], "timestamp") // the server's time
	}
	body, _ := json.Marshal(map[string]any{"events": events})

	run := func(n int, send func() error) time.Duration {
		var wg sync.WaitGroup
		jobs := make(chan struct{})
		errs := make(chan error, workers)
		start := time.Now()
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range jobs {
					if err := send(); err != nil {
						select {
						case errs <- err:
						default:
						}
					}
				}
			}()
		}
		for range n {
			jobs <- struct{}{}
		}
		close(jobs)
		wg.Wait()
		select {
		case err := <-errs:
			b.Fatal(err)
		default:
		}
		return time.Since(start)
	}
	for range 50 { // warm connections, token cache, user agent cache
		post(site+"/insights/events", body)
	}

	b.ResetTimer()
	flood := time.Now()
	gw := run(b.N, func() error {
		if status, out := post(site+"/insights/events", body); status != 204 {
			return fmt.Errorf("ingest: %d %s", status, out)
		}
		return nil
	})
	b.StopTimer()

	// End-to-end lag (issue 22): how long after the last 204 the site's
	// eventsCount equals every event accepted, and the rate the rollups
	// took them in over the whole flood.
	accepted := (50 + b.N) * perBatch
	total, _ := json.Marshal(map[string]any{"range": "last24Hours", "select": []any{map[string]any{"column": "eventsCount"}}})
	want := []byte(fmt.Sprintf(`"values":[%d]`, accepted))
	lastAck := flood.Add(gw)
	waittest.Until(b, "eventsCount to reach the accepted events", 3*time.Minute, func() bool {
		status, out := post(site+"/insights/events/aggregate", total)
		return status == 200 && bytes.Contains(out, want)
	})
	caught := time.Now()
	b.ReportMetric(float64(caught.Sub(lastAck).Milliseconds()), "rollup-lag-ms")
	b.ReportMetric(float64(b.N*perBatch)/caught.Sub(flood).Seconds(), "rolled-up-events/s")

	w := &kafka.Writer{Addr: kafka.TCP(p.Kafka.Brokers...), Topic: "insights.bench", Balancer: &kafka.Hash{},
		RequiredAcks: kafka.RequireAll, AllowAutoTopicCreation: true, BatchTimeout: 5 * time.Millisecond}
	defer w.Close()
	_ = w.WriteMessages(ctx, kafka.Message{Key: []byte(created.ID), Value: body}) // creates the topic
	direct := run(b.N, func() error {
		return w.WriteMessages(ctx, kafka.Message{Key: []byte(created.ID), Value: body})
	})

	gwRate := float64(b.N*perBatch) / gw.Seconds()
	directRate := float64(b.N*perBatch) / direct.Seconds()
	b.ReportMetric(gwRate, "gateway-events/s")
	b.ReportMetric(directRate, "kafka-events/s")
	b.ReportMetric(gwRate/directRate, "ratio")

	// How soon an accepted event is counted: probes sent while the rollups
	// may still be catching up with the flood above.
	var lat []time.Duration
	for i := range 20 {
		path := fmt.Sprintf("/probe/%d", i)
		probe := testEvent{typ: "page_view", visitor: "probe", session: "probe", path: path, ua: chromeWindows, at: time.Now().UTC()}
		pb, _ := json.Marshal(batch([]testEvent{probe}))
		if status, out := post(site+"/insights/events", pb); status != 204 {
			b.Fatalf("probe: %d %s", status, out)
		}
		accepted := time.Now()
		q, _ := json.Marshal(map[string]any{"range": "last24Hours", "select": []any{map[string]any{"column": "eventsCount"}},
			"where": []any{map[string]any{"column": "urlPath", "values": []any{path}}}})
		waittest.Until(b, fmt.Sprintf("probe %d counted", i), time.Minute, func() bool {
			status, out := post(site+"/insights/events/aggregate", q)
			return status == 200 && bytes.Contains(out, []byte(`"values":[1]`))
		})
		lat = append(lat, time.Since(accepted))
	}
	b.ReportMetric(float64(percentile(lat, 50).Milliseconds()), "visible-p50-ms")
	b.ReportMetric(float64(percentile(lat, 95).Milliseconds()), "visible-p95-ms")
}
