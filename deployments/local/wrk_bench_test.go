package local

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// loadWrk is load through wrk (Debian's `wrk`, an epoll load generator in
// C, the tool the issues' figures were taken with) when it is in PATH and
// BENCH_LOAD is not "go"; ok is false otherwise, and load uses its Go
// clients. wrk runs two threads outside this process, so the process's
// CPU per request is the server's alone, as nginx's rows are, and the
// load takes a fraction of what Go clients in this process take from the
// same two cores. wrk does not count the requests in flight when its time
// is up (at most one a connection), though they were served: a page row's
// wait for its views may end up to conns views early.
func loadWrk(b *testing.B, tg target, conns int, d time.Duration) (rps float64, p50, p99 time.Duration, answered int, ok bool) {
	b.Helper()
	bin, err := exec.LookPath("wrk")
	if err != nil || os.Getenv("BENCH_LOAD") == "go" {
		return 0, 0, 0, 0, false
	}
	args := []string{"-t", strconv.Itoa(min(2, conns)), "-c", strconv.Itoa(conns),
		"-d", fmt.Sprintf("%ds", max(1, int(d.Seconds()))), "--latency", "--timeout", "10s"}
	if tg.host != "" {
		args = append(args, "-H", "Host: "+tg.host)
	}
	if tg.auth != "" {
		args = append(args, "-H", "Authorization: "+tg.auth)
	}
	if tg.accept != "" {
		args = append(args, "-H", "Accept-Encoding: "+tg.accept)
	}
	ctx, cancel := context.WithTimeout(context.Background(), d+time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, append(args, tg.url)...).CombinedOutput()
	if err != nil {
		b.Fatalf("wrk %s: %v\n%s", tg.url, err, out)
	}
	run, err := parseWrk(out)
	if err != nil {
		b.Fatalf("wrk %s: %v\n%s", tg.url, err, out)
	}
	if run.failed > 0 {
		b.Logf("GET %s: %d requests failed (wrk)", tg.url, run.failed)
	}
	answered = run.requests - run.failed
	if answered <= 0 {
		b.Fatalf("GET %s: no request answered (wrk)\n%s", tg.url, out)
	}
	return float64(answered) / run.seconds, run.p50, run.p99, answered, true
}

// wrkRun is what parseWrk reads of wrk's report.
type wrkRun struct {
	requests, failed int
	seconds          float64
	p50, p99         time.Duration
}

// parseWrk reads wrk --latency's report: "N requests in 3.00s, ...",
// the latency distribution's 50% and 99% lines, and the non-2xx/3xx and
// socket error counts (failed).
func parseWrk(out []byte) (wrkRun, error) {
	var r wrkRun
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) >= 4 && f[1] == "requests" && f[2] == "in":
			r.requests, _ = strconv.Atoi(f[0])
			d, err := time.ParseDuration(strings.TrimSuffix(f[3], ","))
			if err != nil {
				return r, fmt.Errorf("the run's duration %q: %w", f[3], err)
			}
			r.seconds = d.Seconds()
		case len(f) == 2 && (f[0] == "50%" || f[0] == "99%"):
			d, err := time.ParseDuration(f[1])
			if err != nil {
				return r, fmt.Errorf("latency %q: %w", f[1], err)
			}
			if f[0] == "50%" {
				r.p50 = d
			} else {
				r.p99 = d
			}
		case len(f) == 5 && f[0] == "Non-2xx":
			n, _ := strconv.Atoi(f[4])
			r.failed += n
		case len(f) > 2 && f[0] == "Socket" && f[1] == "errors:":
			// "Socket errors: connect 0, read 0, write 0, timeout 0"
			for i := 2; i+1 < len(f); i += 2 {
				n, _ := strconv.Atoi(strings.TrimSuffix(f[i+1], ","))
				r.failed += n
			}
		}
	}
	if r.requests == 0 || r.seconds == 0 || r.p50 == 0 {
		return r, fmt.Errorf("no requests, duration or median in the report")
	}
	return r, nil
}

func TestParseWrk(t *testing.T) {
	report := `Running 1s test @ http://127.0.0.1:18777/page
  2 threads and 32 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     4.45ms    2.98ms  29.72ms   91.32%
    Req/Sec   468.50     72.94   570.00     65.00%
  Latency Distribution
     50%  850.00us
     75%    5.03ms
     90%    6.88ms
     99%   20.39ms
  935 requests in 1.00s, 474.80KB read
  Socket errors: connect 0, read 2, write 0, timeout 3
  Non-2xx or 3xx responses: 10
Requests/sec:    932.23
Transfer/sec:    473.40KB
`
	got, err := parseWrk([]byte(report))
	want := wrkRun{requests: 935, failed: 15, seconds: 1, p50: 850 * time.Microsecond, p99: 20390 * time.Microsecond}
	if err != nil || got != want {
		t.Errorf("parseWrk = %+v, %v; want %+v", got, err, want)
	}
	if _, err := parseWrk([]byte("unable to connect to 127.0.0.1:1 Connection refused\n")); err == nil {
		t.Error("parseWrk of a failed run: no error")
	}
}
