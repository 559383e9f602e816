// Package integrations is the integrations service: translation settings,
// OpenAPI specs (processed by jobs into immutable versions) and Git sync of
// spaces (import and export jobs against real repositories; content writes
// the revisions). It exposes its wiring (New, Run) so that the local runner
// and tests start it in-process.
package integrations

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/docspub/platform/libs/jobs/jobsmongo"
	"github.com/docspub/platform/libs/ops"

	"github.com/docspub/platform/libs/config"
	"github.com/docspub/platform/libs/discovery"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internalapi/integrationsapi"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/jobs"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/libs/service"
	"github.com/docspub/platform/libs/urlguard"
	"github.com/docspub/platform/services/integrations/internal/contentclient"
	"github.com/docspub/platform/services/integrations/internal/gitrepo"
	"github.com/docspub/platform/services/integrations/internal/gitsync"
	"github.com/docspub/platform/services/integrations/internal/gitsynchttp"
	"github.com/docspub/platform/services/integrations/internal/gitsyncmongo"
	"github.com/docspub/platform/services/integrations/internal/identityclient"
	"github.com/docspub/platform/services/integrations/internal/openapi"
	"github.com/docspub/platform/services/integrations/internal/openapihttp"
	"github.com/docspub/platform/services/integrations/internal/openapimongo"
	"github.com/docspub/platform/services/integrations/internal/translation"
	"github.com/docspub/platform/services/integrations/internal/translationhttp"
	"github.com/docspub/platform/services/integrations/internal/translationmongo"
	"github.com/gin-gonic/gin"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// Name is the service's name in discovery, the gateway's route table and
// the audience of the internal tokens it accepts.
const Name = "integrations"

// Topic is where integrations publishes its events.
const Topic = integrationsapi.Topic

// Jobs is the collection of the service's jobs (OpenAPI processing, Git
// imports and exports).
const Jobs = "jobs"

// Ops names integrations's database for the operator's commands
// (libs/ops: dead letters, backup, restore, check).
var Ops = ops.Service{Name: "integrations", DatabaseVar: "INTEGRATIONS_DB", DatabaseDefault: "integrations"}

// Config is the service's configuration, from the environment.
type Config struct {
	// Base is MONGO_URI, MONGO_READ_URI, KAFKA_*, INTERNAL_TOKEN_*, LOG_LEVEL and DISCOVERY (service.Base).
	service.Base
	service.URLs        // PUBLIC_URL, APP_URL
	Addr         string `env:"INTEGRATIONS_ADDR, default=127.0.0.1:8085"`
	Database     string `env:"INTEGRATIONS_DB, default=integrations"`
	ContentURL   string `env:"CONTENT_URL, default=http://127.0.0.1:8082"`  // content's internal Git sync API (static discovery; consul finds it by name)
	IdentityURL  string `env:"IDENTITY_URL, default=http://127.0.0.1:8081"` // who a Git export's author is (static discovery; consul finds it by name)
	// OutboundAllowPrivate lets OpenAPI fetches and Git remotes reach
	// private and loopback addresses (tests, trusted local runs).
	OutboundAllowPrivate bool `env:"OUTBOUND_ALLOW_PRIVATE, default=false"`
	// OutboundAllowAddrs are IP:port addresses reachable although private:
	// one server each, not their network (the local runner's Git server of
	// its own docs).
	OutboundAllowAddrs []string `env:"OUTBOUND_ALLOW_ADDRS"`
	// OutboundAllowUntil, when set (by an in-process runner, not the
	// environment), ends OutboundAllowAddrs once it is closed: the server
	// they name has closed, and another may listen there next.
	OutboundAllowUntil <-chan struct{}
	FetchTimeout       time.Duration `env:"OPENAPI_FETCH_TIMEOUT, default=30s"`
	GitTimeout         time.Duration `env:"GIT_TIMEOUT, default=5m"`
	GitMaxBytes        int64         `env:"GIT_MAX_BYTES, default=268435456"` // received from the remote
	// A clone's objects, uncompressed, counted as the pack streams in:
	// their bytes, their number and one's size (see the README's Limits).
	GitMaxInflatedBytes int64 `env:"GIT_MAX_INFLATED_BYTES, default=1073741824"`
	GitMaxObjects       int   `env:"GIT_MAX_OBJECTS, default=100000"`
	GitMaxObjectBytes   int64 `env:"GIT_MAX_OBJECT_BYTES, default=104857600"`
	// GitTempDir is where clones go, removed when their job ends ("": the
	// system's temporary directory).
	GitTempDir string `env:"GIT_TEMP_DIR"`
	Workers    int    `env:"JOB_WORKERS, default=2"` // per job kind
	// TenantJobs is how many jobs of a kind one organization runs at once
	// over every replica (0: no bound; an organization running none still goes first).
	TenantJobs int `env:"JOB_TENANT_LIMIT, default=1"`
	// TenantRest is how long an organization's job keeps its next ones of
	// the kind waiting in every replica, as a multiple of the time it ran: an
	// organization processing costly jobs again and again (replacing a
	// large spec in a loop) then takes at most half of a worker's time, and
	// leaves the processors to the others.
	TenantRest   float64       `env:"JOB_TENANT_REST, default=1"`
	ParseTimeout time.Duration `env:"OPENAPI_PARSE_TIMEOUT, default=20s"`
	JobLease     time.Duration `env:"JOB_LEASE, default=30s"`
}

// Validate reports every problem of the configuration at once.
func (c Config) Validate() error {
	var p config.Problems
	c.Base.Check(&p)
	c.URLs.Check(&p)
	p.Require("INTEGRATIONS_ADDR", c.Addr)
	p.Require("INTEGRATIONS_DB", c.Database)
	p.HTTPURL("CONTENT_URL", c.ContentURL)
	p.HTTPURL("IDENTITY_URL", c.IdentityURL)
	for _, a := range c.OutboundAllowAddrs {
		if _, err := netip.ParseAddrPort(a); err != nil {
			p.Addf("OUTBOUND_ALLOW_ADDRS: %q is not an IP:port address", a)
		}
	}
	if c.FetchTimeout < 100*time.Millisecond || c.FetchTimeout > 10*time.Minute {
		p.Addf("OPENAPI_FETCH_TIMEOUT must be between 100ms and 10m")
	}
	if c.GitTimeout < time.Second || c.GitTimeout > time.Hour {
		p.Addf("GIT_TIMEOUT must be between 1s and 1h")
	}
	if c.GitMaxBytes < 1<<20 || c.GitMaxBytes > 4<<30 {
		p.Addf("GIT_MAX_BYTES must be between 1 MiB and 4 GiB")
	}
	if c.ParseTimeout < 100*time.Millisecond || c.ParseTimeout > 10*time.Minute {
		p.Addf("OPENAPI_PARSE_TIMEOUT must be between 100ms and 10m")
	}
	if c.GitMaxInflatedBytes < 1<<20 || c.GitMaxInflatedBytes > 64<<30 {
		p.Addf("GIT_MAX_INFLATED_BYTES must be between 1 MiB and 64 GiB")
	}
	if c.GitMaxObjects < 100 || c.GitMaxObjects > 10_000_000 {
		p.Addf("GIT_MAX_OBJECTS must be between 100 and 10000000")
	}
	if c.GitMaxObjectBytes < 1<<20 || c.GitMaxObjectBytes > c.GitMaxInflatedBytes {
		p.Addf("GIT_MAX_OBJECT_BYTES must be between 1 MiB and GIT_MAX_INFLATED_BYTES")
	}
	if c.Workers < 1 || c.Workers > 64 {
		p.Addf("JOB_WORKERS must be between 1 and 64")
	}
	if c.TenantJobs < 0 || c.TenantJobs > 64 {
		p.Addf("JOB_TENANT_LIMIT must be between 0 and 64")
	}
	if c.TenantRest < 0 || c.TenantRest > 10 {
		p.Addf("JOB_TENANT_REST must be between 0 and 10")
	}
	if c.JobLease < time.Second {
		p.Addf("JOB_LEASE must be at least 1s")
	}
	return p.Err()
}

// App is a wired integrations service.
type App struct {
	cfg     Config
	core    *service.Core
	workers []*jobsmongo.Worker
	specs   *openapi.Service
	handler *gin.Engine
	stopped chan struct{} // closed when the workers have handed their jobs back
}

// New connects to MongoDB, ensures the indexes, and wires the stores, the
// outbox relay, the job queue and worker, and the HTTP handler.
func New(ctx context.Context, cfg Config, log *slog.Logger) (*App, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	var indexes []mongox.Index
	for _, ix := range [][]mongox.Index{translationmongo.Indexes(), openapimongo.Indexes(), gitsyncmongo.Indexes(), jobsmongo.Indexes(Jobs)} {
		indexes = append(indexes, ix...)
	}
	var eventColls []string
	for _, cs := range [][]string{translationmongo.Collections(), openapimongo.Collections(), gitsyncmongo.Collections()} {
		eventColls = append(eventColls, cs...)
	}
	core, err := service.Open(ctx, service.CoreConfig{Service: Name, MongoURI: cfg.MongoURI, MongoReadURI: cfg.MongoReadURI, Database: cfg.Database,
		Kafka: cfg.Kafka, InternalTokenSecret: cfg.InternalTokenSecret, InternalTokenKeys: cfg.InternalTokenKeys, Topic: Topic,
		EventCollections: eventColls, Indexes: indexes, Discovery: cfg.Discovery,
		Peers: discovery.Static{contentclient.Service: strings.TrimRight(cfg.ContentURL, "/"),
			identityclient.Service: strings.TrimRight(cfg.IdentityURL, "/")}}, log)
	if err != nil {
		return nil, err
	}
	db, relay := core.Mongo, core.Relay
	public, app := strings.TrimRight(cfg.PublicURL, "/"), strings.TrimRight(cfg.AppURL, "/")
	guard := urlguard.Guard{AllowPrivate: cfg.OutboundAllowPrivate, AllowUntil: cfg.OutboundAllowUntil}
	for _, a := range cfg.OutboundAllowAddrs {
		guard.Allow = append(guard.Allow, netip.MustParseAddrPort(a)) // checked by Validate
	}
	queue := jobsmongo.NewQueue(db, Jobs, jobsmongo.WithLease(cfg.JobLease))

	translationStore := translationmongo.NewStore(db, relay.Notify)
	translations := translation.New(translationStore, public, nil)

	specStore := openapimongo.NewStore(db, relay.Notify)
	specs := openapi.New(specStore, queue, openapi.Config{Guard: guard, FetchTimeout: cfg.FetchTimeout,
		ParseTimeout: cfg.ParseTimeout, Parses: cfg.Workers}, public, app, log)

	content := contentclient.New(core.Discovery, core.Signer)
	syncStore := gitsyncmongo.NewStore(db, relay.Notify)
	git := gitsync.New(syncStore, content, queue, gitsync.Config{Guard: guard, Users: identityclient.New(core.Discovery, core.Signer),
		Limits: gitrepo.Limits{MaxBytes: cfg.GitMaxBytes, MaxInflatedBytes: cfg.GitMaxInflatedBytes, MaxObjects: cfg.GitMaxObjects,
			MaxObjectBytes: cfg.GitMaxObjectBytes, Timeout: cfg.GitTimeout, TempDir: cfg.GitTempDir}}, log)

	// A pool of workers per job kind, so that slow jobs of one kind never
	// hold a worker another kind needs; in each, an organization runs at
	// most TenantJobs at a time (its others wait; other organizations' go
	// first).
	pools := map[string]jobs.Handler{openapi.JobKind: specs.Handler}
	for kind, h := range git.Handlers() {
		pools[kind] = h
	}
	var workers []*jobsmongo.Worker
	for kind, h := range pools {
		w := queue.NewWorker(map[string]jobs.Handler{kind: h}, cfg.Workers, log)
		w.SetTenantLimit(cfg.TenantJobs)
		w.SetTenantRest(cfg.TenantRest)
		workers = append(workers, w)
	}

	e := httpx.NewEngine(log, "integrations", mongox.Ping(core.Client))
	register(e, core.Signer, translations, specs, git)
	return &App{cfg: cfg, core: core, workers: workers, specs: specs, handler: e}, nil
}

// register adds integrations' routes to e: the user API under /v1 and the
// internal API.
func register(e *gin.Engine, signer *internaltoken.Signer, translations *translation.Service, specs *openapi.Service, git *gitsync.Service) {
	v1 := e.Group("/v1", internaltoken.Require(signer), internaltoken.RequireUser)
	translationhttp.Register(v1, translations)
	openapihttp.Register(v1, specs)
	gitsynchttp.Register(v1, git)
	// Internal API (the gateway routes no /internal path): the sites
	// service reads the specs its published pages show.
	openapihttp.RegisterInternal(e.Group("/internal/v1", internaltoken.Require(signer),
		internaltoken.RequireService(integrationsapi.Sites)), specs)
}

// Handler returns the HTTP handler.
func (a *App) Handler() http.Handler { return a.handler }

// Database returns the service's database.
func (a *App) Database() *mongo.Database { return a.core.Mongo.Database }

// SweepEvery is how often specs whose processing was never enqueued are.
const SweepEvery = 10 * time.Second

// RunBackground starts the outbox relay, the job workers and the sweeper of
// unprocessed specs; they stop when ctx is done (the workers hand their jobs back).
func (a *App) RunBackground(ctx context.Context) {
	a.core.RunRelay(ctx)
	a.stopped = make(chan struct{})
	var wg sync.WaitGroup
	for _, w := range a.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := w.Run(ctx); err != nil {
				a.core.Log.ErrorContext(ctx, "job worker stopped", "err", err)
			}
		}()
	}
	go func() { wg.Wait(); close(a.stopped) }()
	a.core.Go(ctx, "OpenAPI sweeper", func(ctx context.Context) error { return a.specs.Sweep(ctx, SweepEvery) })
	// Clones a stopped process left behind (a live one is younger than its timeout).
	if err := gitrepo.Sweep(a.cfg.GitTempDir, 2*a.cfg.GitTimeout); err != nil {
		a.core.Log.WarnContext(ctx, "sweep old Git clones", "err", err)
	}
}

// Close waits for the job workers to hand their jobs back (its context must be
// done), then closes the Kafka publisher and the MongoDB connection.
func (a *App) Close(ctx context.Context) error {
	if a.stopped != nil {
		select {
		case <-a.stopped:
		case <-ctx.Done():
		}
	}
	return a.core.Close(ctx)
}

// Run starts the service and serves cfg.Addr until ctx is done.
func Run(ctx context.Context, cfg Config, log *slog.Logger) error {
	log.InfoContext(ctx, "starting integrations", "config", config.Describe(cfg))
	a, err := New(ctx, cfg, log)
	if err != nil {
		return fmt.Errorf("integrations: %w", err)
	}
	return service.Run(ctx, Name, cfg.Addr, a, log, a.core.Announce())
}
