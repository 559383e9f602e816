package local

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime/pprof"
	"strconv"
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
//
// With INSIGHTS_BENCH_RATE set it runs issue 22's shape instead (see
// sustained): that many events per second, all distinct, for
// INSIGHTS_BENCH_SECONDS (default 60), while INSIGHTS_BENCH_READERS
// (default 2) readers read a published page of the platform's docs in a
// loop, and b.N is ignored:
//
//	MEMGUARD_BYTES=7516192768 INSIGHTS_BENCH_RATE=100000 INSIGHTS_BENCH_SECONDS=60 go test -run '^$' -bench InsightsIngest -benchtime 1x -timeout 30m ./deployments/local/
//
// (kfake keeps the log in memory: 6,000,000 events take the heap over
// the 3 GiB guard of TestMain.)
//
// INSIGHTS_BENCH_PROFILE names a file for a CPU profile of the whole
// process (gateway, insights, rollups, embedded database) from the start
// of the flood until eventsCount caught up.
func BenchmarkInsightsIngest(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	cfg := Config{Addr: "127.0.0.1:0", DataDir: b.TempDir(), RateLimit: 0, LogLevel: "error"}
	if os.Getenv("INSIGHTS_BENCH_RATE") != "" {
		cfg.DocsRepo = "../.." // the platform's docs, published: the pages read during the flood
	}
	p, err := Start(ctx, cfg, logx.Discard())
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	token := p.Credentials.DemoAdminToken
	org := "/v1/orgs/" + p.Credentials.DemoOrgID
	// The clients stand for sites on other machines: a batch goes out in
	// one write (with net/http's 4 KiB buffer, in three, the last ones
	// through a 32 KiB buffer it allocates for each request).
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 128, WriteBufferSize: 64 << 10}}
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

	total, _ := json.Marshal(map[string]any{"range": "last24Hours", "select": []any{map[string]any{"column": "eventsCount"}}})
	if stop := profile(b); stop != nil {
		defer stop()
	}
	if rate, _ := strconv.Atoi(os.Getenv("INSIGHTS_BENCH_RATE")); rate > 0 {
		seconds, _ := strconv.Atoi(os.Getenv("INSIGHTS_BENCH_SECONDS"))
		if seconds <= 0 {
			seconds = 60
		}
		readers, err := strconv.Atoi(os.Getenv("INSIGHTS_BENCH_READERS"))
		if err != nil {
			readers = 2
		}
		// The readers ask as browsers do and read the coded bytes as they
		// come: inflating them is their machine's work, not the platform's
		// (Go's transparent gzip cost 5 % of this process's CPU).
		readerClient := &http.Client{Transport: &http.Transport{DisableCompression: true}}
		page := func() bool {
			req, _ := http.NewRequest("GET", p.Credentials.DocsURL+"/operations/configuration", nil)
			req.Header.Set("Accept-Encoding", "gzip, br")
			res, err := readerClient.Do(req)
			if err != nil {
				return false
			}
			defer res.Body.Close()
			_, _ = io.Copy(io.Discard, res.Body)
			return res.StatusCode == 200
		}
		if p.Credentials.DocsURL == "" {
			b.Fatal("the docs were not published: no page to read")
		}
		sustained(b, rate, time.Duration(seconds)*time.Second, 50*perBatch, workers, readers,
			func(body []byte) (int, []byte) { return post(site+"/insights/events", body) },
			func() (int, []byte) { return post(site+"/insights/events/aggregate", total) }, page)
		return
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
	want := []byte(fmt.Sprintf(`"values":[%d]`, accepted))
	lastAck := flood.Add(gw)
	waittest.Until(b, "eventsCount to reach the accepted events", 3*time.Minute, func() bool {
		status, out := post(site+"/insights/events/aggregate", total)
		return status == 200 && bytes.Contains(out, want)
	})
	caught := time.Now()
	b.ReportMetric(float64(caught.Sub(lastAck).Milliseconds()), "rollup-lag-ms")
	b.ReportMetric(float64(b.N*perBatch)/caught.Sub(flood).Seconds(), "rolled-up-events/s")
	if stopProfile != nil {
		stopProfile()
	}

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

// stopProfile ends the CPU profile profile started, once.
var stopProfile func()

// profile starts a CPU profile into INSIGHTS_BENCH_PROFILE when it is set
// and returns what stops it (nil when not profiling).
func profile(b *testing.B) func() {
	path := os.Getenv("INSIGHTS_BENCH_PROFILE")
	if path == "" {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	var once sync.Once
	stopProfile = func() {
		once.Do(func() {
			pprof.StopCPUProfile()
			_ = f.Close()
		})
	}
	return stopProfile
}

// sustained posts batches of 100 distinct events (each visitor has 4
// events, each session 2, timestamps a microsecond apart, 25 paths, 3 user
// agents) at rate events per second for d, paced (batch i is sent at
// i/(rate/100) s, by workers clients; a batch due while every client waits
// for an answer is sent late, so accepted/s shows when ingest falls
// behind), while readers each read a page (page: true when served) in
// a loop. Then it waits until count's eventsCount equals the events
// accepted (warm of them before) and reports the accepted and rolled-up
// rates, the lag after the last 204, the pages served meanwhile and the
// process's CPU time per accepted event from the first batch until then
// (cpu-µs/event: the clients', the readers' and the platform's; 20 is what
// 100,000 events/s on two cores leaves for each).
func sustained(b *testing.B, rate int, d time.Duration, warm, workers, readers int,
	post func([]byte) (int, []byte), count func() (int, []byte), page func() bool) {
	const perBatch = 100
	batches := int(int64(rate) * int64(d) / int64(time.Second) / perBatch)
	every := time.Second * perBatch / time.Duration(rate)
	// The senders stand for sites on other machines: a batch is built
	// with plain appends (fmt.Appendf was 4 % of the process's CPU).
	var uas [3]string
	for i, ua := range []string{chromeWindows, firefoxLinux, safariIPhone} {
		uas[i] = strconv.Quote(ua)
	}
	var bodies sync.Pool // of *[]byte, taken back once posted
	body := func(n int, at time.Time) *[]byte {
		buf, _ := bodies.Get().(*[]byte)
		if buf == nil {
			buf = new([]byte)
		}
		out := append((*buf)[:0], `{"events":[`...)
		for i := range perBatch {
			seq := n*perBatch + i
			if i > 0 {
				out = append(out, ',')
			}
			out = append(out, `{"type":"page_view","timestamp":"`...)
			out = at.Add(time.Duration(i)*time.Microsecond).UTC().AppendFormat(out, time.RFC3339Nano)
			out = append(out, `","session":{"visitorId":"v`...)
			out = strconv.AppendInt(out, int64(seq/4), 10)
			out = append(out, `","sessionId":"s`...)
			out = strconv.AppendInt(out, int64(seq/2), 10)
			out = append(out, `","cookies":{},"userAgent":`...)
			out = append(out, uas[seq%3]...)
			out = append(out, `,"language":"en","referrer":"https://www.example.com/blog?x=1","ip":"203.0.113.9"},`+
				`"location":{"url":"https://docs.example.com/guides/`...)
			out = strconv.AppendInt(out, int64(seq%25), 10)
			out = append(out, `?utm_source=news","siteSection":null,"siteSpace":null,`+
				`"siteShareKey":null,"space":null,"revision":null,"page":null}}`...)
		}
		*buf = append(out, "]}"...)
		return buf
	}

	jobs := make(chan int, workers)
	var wg sync.WaitGroup
	var failed sync.Once
	var failure error
	var lastAck time.Time
	var mu sync.Mutex
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range jobs {
				batch := body(n, time.Now())
				status, out := post(*batch)
				bodies.Put(batch)
				if status != 204 {
					failed.Do(func() { failure = fmt.Errorf("ingest: %d %s", status, out) })
					continue
				}
				mu.Lock()
				lastAck = time.Now()
				mu.Unlock()
			}
		}()
	}
	stopReading := make(chan struct{})
	var reading sync.WaitGroup
	var pages []time.Duration
	var pageFailures int
	for range readers {
		reading.Add(1)
		go func() {
			defer reading.Done()
			for {
				select {
				case <-stopReading:
					return
				default:
				}
				t := time.Now()
				ok := page()
				mu.Lock()
				if ok {
					pages = append(pages, time.Since(t))
				} else {
					pageFailures++
				}
				mu.Unlock()
			}
		}()
	}
	b.ResetTimer()
	start, cpuAtStart := time.Now(), cpuTime()
	late := 0
	for n := range batches {
		due := start.Add(time.Duration(n) * every)
		if wait := time.Until(due); wait > 0 {
			time.Sleep(wait) // pacing the load, not waiting for a result
		} else if -wait > time.Second {
			late++
		}
		jobs <- n
	}
	close(jobs)
	wg.Wait()
	close(stopReading)
	reading.Wait()
	b.StopTimer()
	if failure != nil {
		b.Fatal(failure)
	}
	sent := lastAck.Sub(start)
	accepted := batches * perBatch
	want := []byte(fmt.Sprintf(`"values":[%d]`, warm+accepted))
	waittest.Until(b, "eventsCount to reach the accepted events", 20*time.Minute, func() bool {
		status, out := count()
		return status == 200 && bytes.Contains(out, want)
	})
	caught, cpu := time.Now(), cpuTime()-cpuAtStart
	if stopProfile != nil {
		stopProfile()
	}
	b.ReportMetric(float64(accepted), "events")
	b.ReportMetric(float64(cpu.Microseconds())/float64(accepted), "cpu-µs/event")
	b.ReportMetric(float64(accepted)/sent.Seconds(), "accepted-events/s")
	b.ReportMetric(float64(accepted)/caught.Sub(start).Seconds(), "rolled-up-events/s")
	b.ReportMetric(float64(caught.Sub(lastAck).Milliseconds()), "rollup-lag-ms")
	b.ReportMetric(float64(late), "batches-sent-over-1s-late")
	if len(pages) > 0 {
		b.ReportMetric(float64(len(pages))/sent.Seconds(), "pages/s")
		b.ReportMetric(float64(percentile(pages, 50).Milliseconds()), "page-p50-ms")
		b.ReportMetric(float64(percentile(pages, 95).Milliseconds()), "page-p95-ms")
	}
	if pageFailures > 0 {
		b.Errorf("%d page reads failed during the flood", pageFailures)
	}
}
