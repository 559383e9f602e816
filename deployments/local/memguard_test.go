package local

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/waittest"
)

// memoryGuardBytes is the heap above which the test binary stops itself with
// every goroutine's stack and a heap profile, instead of growing until the
// machine's OOM killer ends it without a word. A platform under test holds a
// few hundred MiB; MEMGUARD_BYTES overrides the bound.
const memoryGuardBytes = 3 << 30

func TestMain(m *testing.M) {
	limit := uint64(memoryGuardBytes)
	if v, err := strconv.ParseUint(os.Getenv("MEMGUARD_BYTES"), 10, 64); err == nil && v > 0 {
		limit = v
	}
	go guardMemory(limit)
	code := m.Run()
	closeE2ECluster()
	os.Exit(code)
}

func guardMemory(limit uint64) {
	var ms runtime.MemStats
	for range time.Tick(500 * time.Millisecond) {
		runtime.ReadMemStats(&ms)
		if ms.HeapAlloc < limit {
			continue
		}
		dir := os.Getenv("MEMGUARD_DIR")
		if dir == "" {
			dir = os.TempDir()
		}
		heap := filepath.Join(dir, fmt.Sprintf("memguard-%d.heap", os.Getpid()))
		if f, err := os.Create(heap); err == nil {
			_ = pprof.WriteHeapProfile(f)
			_ = f.Close()
		}
		fmt.Fprintf(os.Stderr, "memguard: heap %d MiB over %d MiB; heap profile in %s; goroutines:\n",
			ms.HeapAlloc>>20, limit>>20, heap)
		_ = pprof.Lookup("goroutine").WriteTo(os.Stderr, 2)
		os.Exit(3)
	}
}

// TestClosedPlatformLeavesNoKafkaPools: every Kafka transport of a closed
// platform is closed. A pool left open refreshes metadata every second for
// the life of the process, from an address a later test's server may reuse:
// that is how this binary once grew to 23 GB (kafka-go decoding an HTTP
// answer as an array length).
func TestClosedPlatformLeavesNoKafkaPools(t *testing.T) {
	inProcessOnly(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, err := Start(ctx, Config{Addr: "127.0.0.1:0", DataDir: t.TempDir(), OutboundAllowPrivate: true}, logx.Discard())
	if err != nil {
		t.Fatal(err)
	}
	c := client{t, p.URL, p.Credentials.DemoAdminToken}
	c.status(200, "PATCH", "/v1/orgs/"+p.Credentials.DemoOrgID, map[string]any{"title": "Published"}) // an event
	waittest.Until(t, "a Kafka connection pool to publish the event", 10*time.Second, func() bool {
		return kafkaPools() > 0
	})
	if kafkaPools() == 0 {
		t.Fatal("a running platform shows no Kafka connection pool: the check below could not fail")
	}
	p.Close()
	waittest.Until(t, "the closed platform's Kafka connection pools to stop", 10*time.Second, func() bool {
		return kafkaPools() == 0
	})
}

// kafkaPools counts the goroutines of kafka-go pools refreshing metadata.
func kafkaPools() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Count(string(buf[:n]), "kafka-go.(*connPool).discover")
		}
		buf = make([]byte, 2*len(buf))
	}
}
