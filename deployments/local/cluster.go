package local

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/identity"
)

// ClusterConfig is `make cluster`'s environment: make run's (ADDR is the
// clients' one entry, DATA_DIR, LOG_LEVEL, RATE_LIMIT,
// OUTBOUND_ALLOW_PRIVATE) and the cluster's shape.
type ClusterConfig struct {
	Addr                 string `env:"ADDR, default=127.0.0.1:8080"`
	DataDir              string `env:"DATA_DIR, default=./.local"`
	LogLevel             string `env:"LOG_LEVEL, default=info"`
	RateLimit            int    `env:"RATE_LIMIT, default=600"`
	OutboundAllowPrivate bool   `env:"OUTBOUND_ALLOW_PRIVATE, default=false"`
	// Replicas of every service and Gateways behind the entry.
	Replicas int `env:"CLUSTER_REPLICAS, default=2"`
	Gateways int `env:"CLUSTER_GATEWAYS, default=2"`
	// ConsulBin is the Consul agent every replica registers with (`make
	// consul` builds it).
	ConsulBin string `env:"CONSUL_BIN"`
	// Repo is the repository the binaries are built from when Binaries
	// does not name one.
	Repo string `env:"CLUSTER_REPO, default=."`
	// Binaries are components' binaries by path (from <COMPONENT>_BIN:
	// CONTENT_BIN, GATEWAY_BIN, …), so that one component can run another
	// version; the others are built from Repo. A key "<component>/<replica>"
	// (tests only) gives one replica its own, as a rolling upgrade half way
	// runs.
	Binaries map[string]string
	// Env is more environment for every component (tests: READER_CACHE_TTL).
	Env map[string]string
}

// ClusterComponents are the cluster's components, in start order, with the
// package each binary is built from; Infra marks the embedded servers
// (the platform's own components follow them).
var ClusterComponents = []struct {
	Name, Package string
	Infra         bool
}{
	{"mongo", "./deployments/local/cmd/mongo", true},
	{"kafka", "./deployments/local/cmd/kafka", true},
	{"redis", "./deployments/local/cmd/redis", true},
	{"identity", "./services/identity/cmd/identity", false},
	{"content", "./services/content/cmd/content", false},
	{"sites", "./services/sites/cmd/sites", false},
	{"insights", "./services/insights/cmd/insights", false},
	{"integrations", "./services/integrations/cmd/integrations", false},
	{"gateway", "./gateway/cmd/gateway", false},
}

// ClusterProcess is one process of the cluster as $DATA_DIR/cluster.json
// lists it.
type ClusterProcess struct {
	Component string `json:"component"`
	Replica   int    `json:"replica"`
	PID       int    `json:"pid"`
	Addr      string `json:"addr"`
	Binary    string `json:"binary"`
}

// Cluster is a running cluster of processes.
type Cluster struct {
	// URL is the clients' entry: it spreads connections over the gateways.
	URL         string
	Credentials Credentials
	CredsPath   string
	// Dir is the data directory, StatePath its cluster.json.
	Dir, StatePath string

	cfg      ClusterConfig
	log      *slog.Logger
	bins     map[string]string
	secret   string
	consul   string // the agent's HTTP address
	mongo    string // URI of writes
	mongoRd  string // URI of reads
	kafka    string
	redis    string
	entry    net.Listener
	next     atomic.Uint64 // the entry's round robin
	stateMu  sync.Mutex    // one writer of cluster.json at a time
	mu       sync.Mutex
	procs    []*clusterProc
	closing  chan struct{}
	stopOnce sync.Once
	wg       sync.WaitGroup
}

// clusterProc is one component process, started again whenever it exits
// while the cluster runs.
type clusterProc struct {
	ClusterProcess
	args    []string
	env     []string
	logPath string
	mu      sync.Mutex
	cmd     *exec.Cmd
	exited  chan struct{}
}

// StartCluster builds (or takes) the binaries and starts the cluster:
// the database, broker, Redis and Consul processes, content's migration,
// the demo organizations (credentials.env, as make run writes it), every
// service's replicas and the gateways, then the entry. It returns once
// every process is ready.
func StartCluster(ctx context.Context, cfg ClusterConfig, log *slog.Logger) (_ *Cluster, err error) {
	if cfg.ConsulBin == "" {
		return nil, errors.New("CONSUL_BIN: the cluster's replicas find each other through a Consul agent (`make consul` builds one)")
	}
	if cfg.Replicas < 1 || cfg.Gateways < 1 {
		return nil, errors.New("CLUSTER_REPLICAS and CLUSTER_GATEWAYS must be at least 1")
	}
	dir, err := filepath.Abs(cfg.DataDir)
	if err != nil {
		return nil, err
	}
	c := &Cluster{Dir: dir, StatePath: filepath.Join(dir, "cluster.json"), CredsPath: filepath.Join(dir, "credentials.env"),
		cfg: cfg, log: log, closing: make(chan struct{})}
	defer func() {
		if err != nil {
			if tails := c.LogTails(20); tails != "" {
				err = fmt.Errorf("%w\n%s", err, tails)
			}
			c.Close()
		}
	}()
	for _, step := range []func(context.Context) error{c.prepare, c.build, c.startInfra, c.migrate, c.seed,
		c.startServices, c.startGateways, c.serveEntry} {
		if err := step(ctx); err != nil {
			return nil, err
		}
	}
	return c, c.writeState()
}

// prepare makes the directories, reads (or makes) the internal token
// secret and listens on the entry's address.
func (c *Cluster) prepare(context.Context) error {
	for _, d := range []string{c.Dir, filepath.Join(c.Dir, "logs"), filepath.Join(c.Dir, "run")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	var err error
	if c.secret, err = secret(filepath.Join(c.Dir, "internal-token.secret")); err != nil {
		return err
	}
	if c.entry, err = net.Listen("tcp", c.cfg.Addr); err != nil {
		return fmt.Errorf("listen %s: %w", c.cfg.Addr, err)
	}
	c.URL = "http://" + c.entry.Addr().String()
	return nil
}

// build builds, in one `go build`, the binaries Binaries does not name.
func (c *Cluster) build(ctx context.Context) error {
	c.bins = map[string]string{}
	binDir := filepath.Join(c.Dir, "bin")
	args := []string{"build", "-o", binDir + string(filepath.Separator)}
	for _, comp := range ClusterComponents {
		if b := c.cfg.Binaries[comp.Name]; b != "" {
			c.bins[comp.Name] = b
			continue
		}
		c.bins[comp.Name] = filepath.Join(binDir, filepath.Base(comp.Package))
		args = append(args, comp.Package)
	}
	if len(args) == 3 {
		return nil
	}
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = c.cfg.Repo
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build the cluster's binaries: %w\n%s", err, out)
	}
	return nil
}

// startInfra starts the database, the broker, Redis and the Consul agent
// on addresses they keep across restarts.
func (c *Cluster) startInfra(ctx context.Context) error {
	run := filepath.Join(c.Dir, "run")
	uriFile, readFile := filepath.Join(run, "mongo.uri"), filepath.Join(run, "mongo-read.uri")
	_ = os.Remove(uriFile)
	mongo := freeAddr()
	c.add("mongo", 0, mongo, []string{"-addr", mongo, "-dir", filepath.Join(c.Dir, "mongo"), "-uri-file", uriFile,
		"-read-uri-file", readFile}, nil)
	if err := waitUntil(ctx, "the embedded MongoDB server", func() bool {
		b, _ := os.ReadFile(uriFile)
		c.mongo = string(b)
		return c.mongo != ""
	}); err != nil {
		return err
	}
	b, err := os.ReadFile(readFile)
	if err != nil {
		return err
	}
	c.mongoRd, c.kafka, c.redis = string(b), freeAddr(), freeAddr()
	_, port, _ := net.SplitHostPort(c.kafka)
	c.add("kafka", 0, c.kafka, []string{"-port", port}, nil)
	c.add("redis", 0, c.redis, []string{"-addr", c.redis}, nil)
	if err := c.startConsul(ctx); err != nil {
		return err
	}
	for _, addr := range []string{c.kafka, c.redis} {
		if err := waitUntil(ctx, "a listener on "+addr, func() bool { return dials(addr) }); err != nil {
			return err
		}
	}
	return nil
}

// startConsul starts a Consul agent in -dev mode and waits for its leader.
func (c *Cluster) startConsul(ctx context.Context) error {
	c.consul = freeAddr()
	port := func(addr string) string { _, p, _ := net.SplitHostPort(addr); return p }
	args := []string{"agent", "-dev", "-node", "docspub-cluster", "-bind", "127.0.0.1", "-client", "127.0.0.1",
		"-http-port", port(c.consul), "-serf-lan-port", port(freeAddr()), "-server-port", port(freeAddr()),
		"-serf-wan-port", "-1", "-dns-port", "-1", "-grpc-port", "-1", "-grpc-tls-port", "-1", "-log-level", "warn"}
	c.bins["consul"] = c.cfg.ConsulBin
	c.add("consul", 0, c.consul, args, nil)
	return waitUntil(ctx, "Consul's leader", func() bool {
		var leader string
		return getJSON("http://"+c.consul+"/v1/status/leader", &leader) == nil && leader != ""
	})
}

// common is the environment every service and gateway shares.
func (c *Cluster) common() map[string]string {
	env := map[string]string{
		"MONGO_URI": c.mongo, "MONGO_READ_URI": c.mongoRd, "KAFKA_BROKERS": c.kafka,
		"INTERNAL_TOKEN_SECRET": c.secret, "PUBLIC_URL": c.URL, "APP_URL": c.URL + "/app", "LOG_LEVEL": c.cfg.LogLevel,
		"DISCOVERY": "consul", "CONSUL_HTTP_ADDR": c.consul, "ADMIN_ADDR": "",
		"OUTBOUND_ALLOW_PRIVATE": strconv.FormatBool(c.cfg.OutboundAllowPrivate),
	}
	maps.Copy(env, c.cfg.Env)
	return env
}

// serviceEnv is the environment of a replica of service listening on addr.
func (c *Cluster) serviceEnv(service, addr string) map[string]string {
	env := c.common()
	env[strings.ToUpper(service)+"_ADDR"] = addr
	env["ADVERTISE_ADDR"] = addr
	switch service {
	case "content":
		env["BLOB_URL"] = "file://" + filepath.ToSlash(filepath.Join(c.Dir, "blobs"))
	case "sites":
		env["PUBLISHED_URL"] = c.URL + "/sites"
	}
	return env
}

// migrate runs `content migrate` before content's replicas serve, as the
// init container does.
func (c *Cluster) migrate(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.bins["content"], "migrate")
	cmd.Env = environ(c.serviceEnv("content", "127.0.0.1:0"))
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("content migrate: %w\n%s", err, out)
	}
	return nil
}

// seed creates the demo organizations (once) and writes credentials.env.
func (c *Cluster) seed(ctx context.Context) error {
	client, err := mongox.Connect(ctx, c.mongo)
	if err != nil {
		return err
	}
	defer func() { _ = client.Disconnect(context.WithoutCancel(ctx)) }()
	// Before the services start: their relays' first sweeps publish it.
	db := client.Database("identity")
	c.Credentials, err = seed(ctx, func(ctx context.Context, in identity.BootstrapInput) (identity.BootstrapResult, error) {
		return identity.Bootstrap(ctx, db, in)
	}, c.URL, c.CredsPath)
	return err
}

// startServices starts every service's replicas and waits until Consul
// lists them all passing.
func (c *Cluster) startServices(ctx context.Context) error {
	services := []string{"identity", "content", "sites", "insights", "integrations"}
	for _, s := range services {
		for r := range c.cfg.Replicas {
			addr := freeAddr()
			c.add(s, r, addr, nil, c.serviceEnv(s, addr))
		}
	}
	for _, s := range services {
		if err := waitUntil(ctx, fmt.Sprintf("%d passing %s replicas in Consul", c.cfg.Replicas, s), func() bool {
			return c.passing(s) == c.cfg.Replicas
		}); err != nil {
			return err
		}
	}
	return nil
}

// passing counts service's instances Consul sees passing.
func (c *Cluster) passing(service string) int {
	var entries []json.RawMessage
	if err := getJSON("http://"+c.consul+"/v1/health/service/"+service+"?passing=true", &entries); err != nil {
		return -1
	}
	return len(entries)
}

// startGateways starts the gateways and waits until each is ready.
func (c *Cluster) startGateways(ctx context.Context) error {
	for r := range c.cfg.Gateways {
		addr := freeAddr()
		env := c.common()
		env["ADDR"], env["REDIS_URL"], env["RATE_LIMIT"] = addr, "redis://"+c.redis+"/0", strconv.Itoa(c.cfg.RateLimit)
		c.add("gateway", r, addr, nil, env)
		if err := waitUntil(ctx, "gateway "+addr, func() bool { return ready("http://" + addr) }); err != nil {
			return err
		}
	}
	return nil
}

// add starts a component process and keeps it running.
func (c *Cluster) add(component string, replica int, addr string, args []string, env map[string]string) {
	bin := c.bins[component]
	if b := c.cfg.Binaries[fmt.Sprintf("%s/%d", component, replica)]; b != "" {
		bin = b
	}
	p := &clusterProc{ClusterProcess: ClusterProcess{Component: component, Replica: replica, Addr: addr, Binary: bin},
		args: args, env: environ(env), logPath: filepath.Join(c.Dir, "logs", fmt.Sprintf("%s-%d.log", component, replica))}
	c.mu.Lock()
	c.procs = append(c.procs, p)
	c.mu.Unlock()
	c.wg.Add(1)
	go c.keep(p)
}

// keep runs p until the cluster closes, starting it again (after a pause
// growing to 5 s while it keeps failing at once) whenever it exits.
func (c *Cluster) keep(p *clusterProc) {
	defer c.wg.Done()
	wait := 200 * time.Millisecond
	for {
		started := time.Now()
		err := c.runOnce(p)
		select {
		case <-c.closing:
			return
		default:
		}
		if time.Since(started) > 10*time.Second {
			wait = 200 * time.Millisecond
		}
		c.log.Warn("cluster process exited: starting it again", "component", p.Component, "replica", p.Replica, "err", err, "in", wait)
		select {
		case <-c.closing:
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, 5*time.Second)
	}
}

// runOnce starts p's process, records it in cluster.json and waits for it
// to exit.
func (c *Cluster) runOnce(p *clusterProc) error {
	logFile, err := os.OpenFile(p.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logFile.Close()
	cmd := exec.Command(p.Binary, p.args...)
	cmd.Env, cmd.Stdout, cmd.Stderr = p.env, logFile, logFile
	if err := cmd.Start(); err != nil {
		return err
	}
	p.mu.Lock()
	p.cmd, p.PID, p.exited = cmd, cmd.Process.Pid, make(chan struct{})
	exited := p.exited
	p.mu.Unlock()
	if err := c.writeState(); err != nil {
		c.log.Warn("write cluster.json", "err", err)
	}
	err = cmd.Wait()
	close(exited)
	return err
}

// LogTails returns the last n lines of each process's log (lines cut
// at 400 bytes), headed by the log's name: what the replicas said last,
// for a start or a test that failed. It reads the last 64 KiB of each
// log, however long the cluster ran.
func (c *Cluster) LogTails(n int) string {
	paths, _ := filepath.Glob(filepath.Join(c.Dir, "logs", "*.log"))
	var b strings.Builder
	for _, p := range paths {
		raw, err := logEnd(p, 64<<10)
		if err != nil || len(raw) == 0 {
			continue
		}
		lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
		fmt.Fprintf(&b, "last lines of %s:\n", filepath.Base(p))
		for _, l := range lines[max(0, len(lines)-n):] {
			if len(l) > 400 {
				l = l[:400] + "…"
			}
			fmt.Fprintf(&b, "  %s\n", l)
		}
	}
	return b.String()
}

// logEnd reads the last limit bytes of the file at path.
func logEnd(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	off := st.Size() - limit
	if off < 0 {
		off = 0
	}
	return io.ReadAll(io.NewSectionReader(f, off, st.Size()-off))
}

// MongoURI is the address of the cluster's database server.
func (c *Cluster) MongoURI() string { return c.mongo }

// KafkaBrokers is the address of the cluster's broker.
func (c *Cluster) KafkaBrokers() []string { return []string{c.kafka} }

// InternalTokenSecret signs the components' internal tokens.
func (c *Cluster) InternalTokenSecret() string { return c.secret }

// ServiceURL is the address of the first replica of component.
func (c *Cluster) ServiceURL(component string) string {
	for _, p := range c.Processes() {
		if p.Component == component {
			return "http://" + p.Addr
		}
	}
	return ""
}

// Processes lists the cluster's processes as cluster.json does.
func (c *Cluster) Processes() []ClusterProcess {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]ClusterProcess, 0, len(c.procs))
	for _, p := range c.procs {
		p.mu.Lock()
		out = append(out, p.ClusterProcess)
		p.mu.Unlock()
	}
	return out
}

// writeState rewrites cluster.json (a new file renamed over the old one).
func (c *Cluster) writeState() error {
	c.stateMu.Lock()
	defer c.stateMu.Unlock()
	b, err := json.MarshalIndent(c.Processes(), "", "  ")
	if err != nil {
		return err
	}
	tmp := c.StatePath + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, c.StatePath)
}

// serveEntry spreads the entry's connections over the gateways, round
// robin, passing over a gateway that does not accept the connection.
func (c *Cluster) serveEntry(context.Context) error {
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		for {
			conn, err := c.entry.Accept()
			if err != nil {
				return
			}
			go c.forward(conn)
		}
	}()
	return nil
}

func (c *Cluster) forward(conn net.Conn) {
	defer conn.Close()
	var gateways []string
	for _, p := range c.Processes() {
		if p.Component == "gateway" {
			gateways = append(gateways, p.Addr)
		}
	}
	start := int(c.next.Add(1))
	for i := range gateways {
		up, err := net.DialTimeout("tcp", gateways[(start+i)%len(gateways)], time.Second)
		if err != nil {
			continue
		}
		defer up.Close()
		done := make(chan struct{})
		go func() {
			_, _ = io.Copy(up, conn)
			if tc, ok := up.(*net.TCPConn); ok {
				_ = tc.CloseWrite()
			}
			close(done)
		}()
		_, _ = io.Copy(conn, up)
		_ = conn.Close()
		<-done
		return
	}
}

// Signal sends sig to the current process of component's replica; its
// supervisor starts it again once it exits. It returns the pid signalled.
func (c *Cluster) Signal(component string, replica int, sig syscall.Signal) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.procs {
		if p.Component == component && p.Replica == replica {
			p.mu.Lock()
			defer p.mu.Unlock()
			if p.cmd == nil || p.cmd.Process == nil {
				return 0, fmt.Errorf("%s %d is not running", component, replica)
			}
			return p.PID, p.cmd.Process.Signal(sig)
		}
	}
	return 0, fmt.Errorf("no %s replica %d", component, replica)
}

// Close stops the entry and every process, gateways first and the
// database last (SIGTERM, then SIGKILL after 20 s).
func (c *Cluster) Close() {
	c.stopOnce.Do(func() {
		close(c.closing)
		if c.entry != nil {
			_ = c.entry.Close()
		}
		c.mu.Lock()
		procs := append([]*clusterProc(nil), c.procs...)
		c.mu.Unlock()
		for i := len(procs) - 1; i >= 0; i-- {
			stopProc(procs[i])
		}
		c.wg.Wait()
	})
}

func stopProc(p *clusterProc) {
	p.mu.Lock()
	cmd, exited := p.cmd, p.exited
	p.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		<-exited
	}
}

// environ is the process environment with env on top.
func environ(env map[string]string) []string {
	out := os.Environ()
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out
}

// freeAddr is a loopback address free at the time of the call, on a
// port below the kernel's ephemeral ports (32768–60999 on Linux,
// 49152–65535 elsewhere). A port the kernel gives for ":0" comes from
// that range, where any process's outgoing connection may take it before
// the replica binds it; the replica, started again on the same address,
// then failed for as long as that connection lasted (a cluster whose
// start waited in vain for its integrations replicas). The ports are
// taken in turn from a random start, so that no two calls of a process
// give the same one (a random port each time would give two of a
// cluster's 20 addresses the same port about once in 60 starts).
func freeAddr() string {
	for range 100 {
		port := firstFreePort + addrCursor.Add(1)%freePorts
		ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(int(port)))
		if err == nil {
			defer ln.Close()
			return ln.Addr().String()
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "127.0.0.1:0"
	}
	defer ln.Close()
	return ln.Addr().String()
}

// freeAddr's ports: firstFreePort and the freePorts after it.
const firstFreePort, freePorts = 20000, 12000

// addrCursor is the last port freeAddr tried, less firstFreePort.
var addrCursor = func() *atomic.Uint32 {
	var c atomic.Uint32
	c.Store(rand.Uint32N(freePorts))
	return &c
}()

func dials(addr string) bool {
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err == nil {
		_ = conn.Close()
	}
	return err == nil
}

func ready(base string) bool {
	res, err := http.Get(base + "/readyz")
	if err != nil {
		return false
	}
	_ = res.Body.Close()
	return res.StatusCode == http.StatusOK
}

func getJSON(url string, v any) error {
	client := http.Client{Timeout: 2 * time.Second}
	res, err := client.Get(url)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, res.Status)
	}
	return json.NewDecoder(io.LimitReader(res.Body, 1<<20)).Decode(v)
}

// waitUntil polls cond every 50 ms until it holds, for a minute at most.
func waitUntil(ctx context.Context, what string, cond func() bool) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w", what, ctx.Err())
		case <-t.C:
		}
	}
	return nil
}
