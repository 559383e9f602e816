package local

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/docspub/platform/libs/consultest"
	"github.com/docspub/platform/libs/gittest"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/waittest"
	"github.com/segmentio/kafka-go"
)

// startCluster starts `make cluster`'s processes: 2 replicas of every
// service, 2 gateways, built from this repository.
func startCluster(t *testing.T) *Cluster {
	t.Helper()
	return startClusterWith(t, nil, nil)
}

// startClusterWith is startCluster running the given binaries, with env
// added to every component's environment.
func startClusterWith(t *testing.T, binaries, env map[string]string) *Cluster {
	t.Helper()
	longTest(t)
	bin := consultest.Binary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c, err := StartCluster(ctx, ClusterConfig{Addr: "127.0.0.1:0", DataDir: t.TempDir(), LogLevel: "warn", Replicas: 2,
		Gateways: 2, ConsulBin: bin, Repo: "../..", OutboundAllowPrivate: true, Binaries: binaries, Env: env}, logx.ForTest(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	t.Cleanup(func() { logTails(t, c) }) // runs before Close: the replicas' last words
	return c
}

// logTails logs, when t failed, every consumer group and the last lines
// each component wrote to its log (warnings and errors: the cluster logs
// at warn), so that a failure in CI says what the replicas saw.
func logTails(t *testing.T, c *Cluster) {
	if !t.Failed() {
		return
	}
	kafkaGroups(t, c.KafkaBrokers())
	t.Log(c.LogTails(20))
}

// kafkaGroups logs every consumer group's state, members and their
// partitions, and each partition's committed offset against its end.
func kafkaGroups(t *testing.T, brokers []string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tr := &kafka.Transport{}
	defer tr.CloseIdleConnections()
	cl := &kafka.Client{Addr: kafka.TCP(brokers...), Timeout: 5 * time.Second, Transport: tr}
	groups, err := cl.ListGroups(ctx, &kafka.ListGroupsRequest{})
	if err != nil {
		t.Logf("kafka groups: %v", err)
		return
	}
	ids := make([]string, len(groups.Groups))
	for i, g := range groups.Groups {
		ids[i] = g.GroupID
	}
	desc, err := cl.DescribeGroups(ctx, &kafka.DescribeGroupsRequest{GroupIDs: ids})
	if err != nil {
		t.Logf("kafka groups: %v", err)
		return
	}
	for _, g := range desc.Groups {
		var b strings.Builder
		fmt.Fprintf(&b, "group %s %s:", g.GroupID, g.GroupState)
		topics := map[string][]int{}
		for _, m := range g.Members {
			fmt.Fprintf(&b, " member %s %s", m.ClientHost, m.MemberID)
			for _, a := range m.MemberAssignments.Topics {
				fmt.Fprintf(&b, " %s%v", a.Topic, a.Partitions)
				topics[a.Topic] = append(topics[a.Topic], a.Partitions...)
			}
		}
		if off, err := cl.OffsetFetch(ctx, &kafka.OffsetFetchRequest{GroupID: g.GroupID, Topics: topics}); err == nil {
			for topic, ps := range off.Topics {
				for _, p := range ps {
					end, _ := cl.ListOffsets(ctx, &kafka.ListOffsetsRequest{Topics: map[string][]kafka.OffsetRequest{topic: {kafka.LastOffsetOf(p.Partition)}}})
					last := int64(-1)
					if end != nil && len(end.Topics[topic]) > 0 {
						last = end.Topics[topic][0].LastOffset
					}
					fmt.Fprintf(&b, "; %s/%d committed %d of %d", topic, p.Partition, p.CommittedOffset, last)
				}
			}
		}
		t.Log(b.String())
	}
}

// longTest skips t unless LONG_TESTS is set: the cluster's tests run in
// `make test-long` (each starts 16 processes), not in `make test`.
func longTest(t *testing.T) {
	t.Helper()
	if os.Getenv("LONG_TESTS") == "" {
		t.Skip("a cluster test: `make test-long` runs it (LONG_TESTS=1)")
	}
}

// traffic sends requests through the cluster's entry until stopped: reads
// of a space and creations of spaces, counting what failed (a transport
// error or a 5xx) and keeping what was acknowledged.
type traffic struct {
	stop    chan struct{}
	done    sync.WaitGroup
	failed  atomic.Int64
	mu      sync.Mutex
	created []string
	errs    []string
}

func startTraffic(t *testing.T, admin client, org, space string) *traffic {
	tr := &traffic{stop: make(chan struct{})}
	for w := range 2 {
		tr.done.Add(1)
		go func() {
			defer tr.done.Done()
			for i := 0; ; i++ {
				select {
				case <-tr.stop:
					return
				default:
				}
				tr.once(admin, org, space, fmt.Sprintf("w%d-%d", w, i), i%4 == 0)
			}
		}()
	}
	return tr
}

func (tr *traffic) once(admin client, org, space, title string, write bool) {
	r, err := admin.send("GET", "/v1/spaces/"+space, nil)
	if write {
		r, err = admin.send("POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": title})
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	switch {
	case err != nil || r.Status >= 500:
		tr.failed.Add(1)
		tr.errs = append(tr.errs, fmt.Sprintf("write %v: %d %s %v", write, r.Status, r.Body, err))
	case write && r.Status == http.StatusCreated:
		var s struct{ ID string }
		_ = json.Unmarshal(r.Body, &s)
		tr.created = append(tr.created, s.ID)
	}
}

// written is how many writes were acknowledged so far.
func (tr *traffic) written() int {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return len(tr.created)
}

func (tr *traffic) end() {
	close(tr.stop)
	tr.done.Wait()
}

// The cluster of processes: cluster.json lists every process; a space
// written through the entry is read through each gateway; every replica
// (services, then gateways) restarted one by one with SIGTERM under reads,
// writes, readers' events and a Git import costs clients no error, the
// import succeeds and insights counts every event; SIGKILLed replicas are started again and every acknowledged write
// stays readable.
func TestClusterSurvivesRestartsAndKills(t *testing.T) {
	c := startCluster(t)
	procs := readClusterState(t, c)
	if len(procs) != 4+5*2+2 {
		t.Fatalf("cluster.json lists %d processes, want 16: %+v", len(procs), procs)
	}
	admin := client{t: t, base: c.URL, token: c.Credentials.DemoAdminToken}
	org := c.Credentials.DemoOrgID
	space := str(admin.schema("Space", 201, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": "Before"}).json(t), "id")
	for _, p := range procs {
		if p.Component == "gateway" {
			gw := client{t: t, base: "http://" + p.Addr, token: c.Credentials.DemoAdminToken}
			gw.status(http.StatusOK, "GET", "/v1/spaces/"+space, nil)
		}
	}

	// Reads and writes, readers' events and a Git import flow while every
	// replica restarts.
	srv := gittest.NewServer(t, "", "")
	h := publishHandbook(t, admin, org, srv, 5)
	repo, _ := handbookRepo(300)
	srv.NewRepo(t, "rolled", "main", repo)
	imported := benchSpace(t, admin, org, "Imported during the roll")
	tr := startTraffic(t, admin, org, space)
	ev := startEvents(admin, "/v1/orgs/"+org+"/sites/"+h.site+"/insights/events")
	admin.status(http.StatusNoContent, "POST", "/v1/spaces/"+imported+"/git/import", map[string]any{"url": srv.RepoURL("rolled"), "ref": "refs/heads/main"})
	services := []string{"identity", "content", "sites", "insights", "integrations"}
	for r := range 2 { // one replica of every service at a time, then one gateway
		restart(t, c, services, r, syscall.SIGTERM)
		restart(t, c, []string{"gateway"}, r, syscall.SIGTERM)
	}
	tr.end()
	ev.end()
	if n := tr.failed.Load(); n > 0 {
		t.Errorf("%d requests failed while every replica restarted one by one; first: %v", n, tr.errs[:min(3, len(tr.errs))])
	}
	if n := ev.unsure.Load(); n > 0 {
		t.Errorf("%d readers' events refused or lost while every replica restarted one by one", n)
	}
	if st, e := opState(gitDoneWithin(t, admin, imported, 3*time.Minute)); st != "success" {
		t.Errorf("the import during the roll ended %s: %s", st, e)
	}
	waittest.Until(t, "insights counting every event", time.Minute, func() bool {
		return eventsCounted(t, admin, "/v1/orgs/"+org+"/sites/"+h.site) == ev.acked.Load()
	})
	if len(tr.created) == 0 {
		t.Fatal("no space was created during the restarts")
	}

	restart(t, c, []string{"content", "sites"}, 1, syscall.SIGKILL)
	for _, id := range append(tr.created, space) {
		waittest.Until(t, "space "+id+" readable", 30*time.Second, func() bool {
			return admin.do("GET", "/v1/spaces/"+id, nil).Status == http.StatusOK
		})
	}
	t.Logf("%d spaces created and %d events counted through 12 restarts and 2 kills", len(tr.created), ev.acked.Load())
}

// restart signals replica of each component and waits until the cluster
// runs them again (other pids in cluster.json) and Consul lists each
// component's replicas passing.
func restart(t *testing.T, c *Cluster, components []string, replica int, sig syscall.Signal) {
	t.Helper()
	pids := map[string]int{}
	for _, comp := range components {
		pid, err := c.Signal(comp, replica, sig)
		if err != nil {
			t.Fatal(err)
		}
		pids[comp] = pid
	}
	waittest.Until(t, fmt.Sprintf("%v %d started again after %v", components, replica, sig), time.Minute, func() bool {
		again := 0
		for _, p := range readClusterState(t, c) {
			if old, ok := pids[p.Component]; ok && p.Replica == replica && p.PID != old && p.PID > 0 {
				again++
			}
		}
		return again == len(components)
	})
	for _, comp := range components {
		if comp == "gateway" { // gateways are not in Consul: the entry finds them
			waittest.Until(t, "gateway ready", time.Minute, func() bool { return gatewaysReady(t, c) })
			continue
		}
		waittest.Until(t, comp+" replicas passing in Consul", time.Minute, func() bool { return c.passing(comp) == 2 })
	}
}

func gatewaysReady(t *testing.T, c *Cluster) bool {
	for _, p := range readClusterState(t, c) {
		if p.Component == "gateway" && !ready("http://"+p.Addr) {
			return false
		}
	}
	return true
}

func readClusterState(t *testing.T, c *Cluster) []ClusterProcess {
	t.Helper()
	b, err := os.ReadFile(c.StatePath)
	if err != nil {
		t.Fatal(err)
	}
	var procs []ClusterProcess
	if err := json.Unmarshal(b, &procs); err != nil {
		t.Fatalf("cluster.json: %v", err)
	}
	return procs
}

// previousRelease builds the components of the previous release (the
// commit deployments/local/testdata/previous-release names, from this
// repository's history) and returns their binaries by component.
func previousRelease(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile("testdata/previous-release")
	if err != nil {
		t.Fatal(err)
	}
	commit := strings.TrimSpace(string(b))
	src, bin := t.TempDir(), t.TempDir()
	archive := exec.Command("sh", "-c", "git -C ../.. archive --format=tar "+commit+" | tar -x -C "+src)
	if out, err := archive.CombinedOutput(); err != nil {
		t.Fatalf("the previous release's tree (%s): %v\n%s", commit, err, out)
	}
	bins := map[string]string{}
	args := []string{"build", "-o", bin + "/"}
	for _, c := range ClusterComponents {
		if c.Infra { // the embedded servers stay current
			continue
		}
		args = append(args, c.Package)
		bins[c.Name] = filepath.Join(bin, filepath.Base(c.Package))
	}
	build := exec.Command("go", args...)
	build.Dir = src
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the previous release (%s): %v\n%s", commit, err, out)
	}
	return bins
}

// A rolling upgrade half way, three ways: content of the previous release
// beside the current others; the current content beside the previous
// others; and one replica of every service and gateway of the previous
// release beside one current (so that each version of each component
// calls, and is called by, each version of the others). Under API reads
// and writes, readers' events and a Git import published as a site, no
// request fails, every acknowledged write is readable, the import
// succeeds, the published page is served and insights counts every
// acknowledged event.
func TestClusterVersionSkew(t *testing.T) {
	longTest(t)
	consultest.Binary(t)
	previous := previousRelease(t)
	others, half := map[string]string{}, map[string]string{}
	for _, c := range ClusterComponents {
		if c.Infra {
			continue
		}
		if c.Name != "content" {
			others[c.Name] = previous[c.Name]
		}
		half[c.Name+"/0"] = previous[c.Name]
	}
	for name, bins := range map[string]map[string]string{
		"previous content":           {"content": previous["content"]},
		"previous others":            others,
		"half of every one previous": half,
	} {
		t.Run(name, func(t *testing.T) { skewedTraffic(t, bins) })
	}
}

// skewedTraffic drives the skew test's traffic through a cluster of bins.
func skewedTraffic(t *testing.T, bins map[string]string) {
	c := startClusterWith(t, bins, nil)
	previous := 0
	for _, p := range readClusterState(t, c) {
		want := bins[fmt.Sprintf("%s/%d", p.Component, p.Replica)]
		if want == "" {
			want = bins[p.Component]
		}
		if want != "" {
			if p.Binary != want {
				t.Fatalf("%s replica %d runs %s, want %s", p.Component, p.Replica, p.Binary, want)
			}
			previous++
		}
	}
	if previous == 0 {
		t.Fatal("no process of the previous release runs")
	}
	admin := client{t: t, base: c.URL, token: c.Credentials.DemoAdminToken}
	org := c.Credentials.DemoOrgID
	space := str(admin.schema("Space", 201, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": "Skew"}).json(t), "id")
	h := publishHandbook(t, admin, org, gittest.NewServer(t, "", ""), 5)
	site := "/v1/orgs/" + org + "/sites/" + h.site
	tr := startTraffic(t, admin, org, space)
	ev := startEvents(admin, site+"/insights/events")
	waittest.Until(t, "50 spaces written and 200 events acknowledged", time.Minute, func() bool {
		return (tr.written() >= 50 && ev.acked.Load() >= 200) || tr.failed.Load() > 0 || ev.unsure.Load() > 0
	})
	tr.end()
	ev.end()
	if n := tr.failed.Load(); n > 0 {
		t.Fatalf("%d requests failed; first: %v", n, tr.errs[:min(3, len(tr.errs))])
	}
	if n := ev.unsure.Load(); n > 0 {
		t.Fatalf("%d readers' events refused or lost", n)
	}
	for _, id := range tr.created {
		admin.status(http.StatusOK, "GET", "/v1/spaces/"+id, nil)
	}
	var counted int64
	defer func() {
		if t.Failed() {
			t.Logf("insights counted %d events of %d acknowledged", counted, ev.acked.Load())
		}
	}()
	waittest.Until(t, "insights counting every event", time.Minute, func() bool {
		counted = eventsCounted(t, admin, site)
		return counted == ev.acked.Load()
	})
	// Read last: a reader's page view is an event too.
	if r, err := http.Get(h.page); err != nil || r.StatusCode != http.StatusOK {
		t.Fatalf("the published page: %v %v", r, err)
	} else {
		_ = r.Body.Close()
	}
	t.Logf("%d spaces written, %d events counted", len(tr.created), counted)
}

// A published page cached by every gateway (answers kept a minute here, so
// only a purge can end them) is gone from every gateway within a second
// of its site's unpublication through one of them: each gateway purges on
// sites' and content's events, the TTL only a backstop.
func TestClusterPageCachesCoherent(t *testing.T) {
	c := startClusterWith(t, nil, map[string]string{"READER_CACHE_TTL": "1m"})
	admin := client{t: t, base: c.URL, token: c.Credentials.DemoAdminToken}
	h := publishHandbook(t, admin, c.Credentials.DemoOrgID, gittest.NewServer(t, "", ""), 5)
	var gateways []string
	for _, p := range readClusterState(t, c) {
		if p.Component == "gateway" {
			gateways = append(gateways, "http://"+p.Addr)
		}
	}
	through := func(gw string) int {
		res, err := http.Get(strings.Replace(h.page, c.URL, gw, 1))
		if err != nil {
			t.Fatal(err)
		}
		_ = res.Body.Close()
		return res.StatusCode
	}
	for _, gw := range gateways {
		for range 3 { // read, then served from the cache
			if s := through(gw); s != http.StatusOK {
				t.Fatalf("the published page through %s: %d", gw, s)
			}
		}
	}
	writer := client{t: t, base: gateways[0], token: c.Credentials.DemoAdminToken}
	writer.status(http.StatusOK, "POST", "/v1/orgs/"+c.Credentials.DemoOrgID+"/sites/"+h.site+"/unpublish", nil)
	done := time.Now()
	for _, gw := range gateways {
		waittest.Until(t, "the page gone through "+gw, max(time.Second-time.Since(done), time.Millisecond),
			func() bool { return through(gw) == http.StatusNotFound })
	}
	t.Logf("gone through %d gateways %s after the unpublication was acknowledged", len(gateways), time.Since(done).Round(time.Millisecond))

	// A member removed through one gateway is refused through every
	// gateway within a second (identity's cached callers of every replica,
	// and whatever a gateway keeps of a token).
	org := "/v1/orgs/" + c.Credentials.DemoOrgID
	readerID := str(items(t, writer.op("listMembersInOrganizationById", "GET", org+"/members?search=reader", nil))[0], "user", "id")
	readers := make([]client, len(gateways))
	for i, gw := range gateways {
		readers[i] = client{t: t, base: gw, token: c.Credentials.DemoReaderToken}
		for range 3 { // read, then from the caches
			readers[i].status(http.StatusOK, "GET", org, nil)
		}
	}
	writer.status(http.StatusNoContent, "DELETE", org+"/members/"+readerID, nil)
	removed := time.Now()
	for _, r := range readers {
		waittest.Until(t, "the removed member refused through "+r.base, max(time.Second-time.Since(removed), time.Millisecond),
			func() bool { return r.do("GET", org, nil).Status == http.StatusNotFound })
	}
	t.Logf("the removed member refused through %d gateways %s after the removal was acknowledged", len(gateways), time.Since(removed).Round(time.Millisecond))
}
