// Package local runs the whole platform in one process for laptops and
// end-to-end tests: embedded MongoDB (FerretDB on SQLite files under the data
// directory), Kafka (kfake) and Redis (miniredis), every service, and the
// gateway in front of them. On first start it seeds demo organizations and
// writes their tokens to $DATA_DIR/credentials.env.
package local

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/docspub/platform/gateway"
	"github.com/docspub/platform/libs/config"
	"github.com/docspub/platform/libs/discovery"
	"github.com/docspub/platform/libs/embedded"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/libs/service"
	"github.com/docspub/platform/services/content"
	"github.com/docspub/platform/services/identity"
	"github.com/docspub/platform/services/insights"
	"github.com/docspub/platform/services/integrations"
	"github.com/docspub/platform/services/sites"
	"github.com/redis/go-redis/v9"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// Config of the local platform.
type Config struct {
	Addr string `env:"ADDR, default=127.0.0.1:8080"`
	// ReaderAddr, when set, is the gateway's listener for published
	// sites' readers alone (READER_ADDR; ReaderURL). Published URLs stay
	// under Addr's: a request there names Addr's host (a front proxy
	// routing readers to it keeps the Host header).
	ReaderAddr string `env:"READER_ADDR"`
	DataDir    string `env:"DATA_DIR, default=./.local"`
	LogLevel   string `env:"LOG_LEVEL, default=info"`
	// RateLimit is the gateway's per-token limit per minute (0 turns it off).
	RateLimit int `env:"RATE_LIMIT, default=600"`
	// OutboundAllowPrivate lets content's imports and integrations' OpenAPI
	// fetches and Git remotes reach private and loopback addresses (off by
	// default: user URLs must not reach the internal network).
	OutboundAllowPrivate bool `env:"OUTBOUND_ALLOW_PRIVATE, default=false"`
	// HostnameDNSServer is where sites looks up the TXT records that verify
	// custom hostnames (host:port; empty: the system's resolver).
	HostnameDNSServer string `env:"HOSTNAME_DNS_SERVER"`
	// DocsRepo is the repository whose .gitbook.yaml names the docs the
	// demo organization publishes (empty, or without .gitbook.yaml: none).
	DocsRepo string `env:"DOCS_REPO, default=."`
	// MigrateDestructive makes content apply its destructive migration
	// steps too at start (what `content migrate --destructive` does):
	// without it, data a previous release read stays, so that release
	// still runs on DATA_DIR.
	MigrateDestructive bool `env:"MIGRATE_DESTRUCTIVE, default=false"`
	// Now is the services' clock (nil: the real one); tests step it forward.
	Now func() time.Time
	// Integrations, when set, adjusts the integrations service's
	// configuration (tests shorten its timeouts).
	Integrations func(*integrations.Config)
	// Sites, when set, adjusts the sites service's configuration (tests
	// point hostname verification at their DNS server).
	Sites func(*sites.Config)
}

// Credentials are the seeded demo identities, and the demo organization's
// space and site of the platform's docs.
type Credentials struct {
	GatewayURL, DemoOrgID, DemoAdminToken, DemoReaderToken, OtherOrgToken string
	DocsSpaceID, DocsSiteID, DocsURL, DocsDigest                          string
}

// Platform is the running local platform.
type Platform struct {
	URL string
	// ReaderURL is the gateway's readers' listener (Config.ReaderAddr),
	// "" without one.
	ReaderURL   string
	Credentials Credentials
	CredsPath   string
	Kafka       *embedded.Kafka
	// IdentityURL, ContentURL, SitesURL, InsightsURL and IntegrationsURL are the
	// services' own addresses, behind the gateway.
	IdentityURL, ContentURL, SitesURL, InsightsURL, IntegrationsURL string
	// InternalTokenSecret signs the gateway's internal tokens.
	InternalTokenSecret string
	// MongoURI is the embedded MongoDB's address (tests read every stored document).
	MongoURI string
	// mongoReadURI is its address for the services' reads (embedded.Mongo.ReadURI).
	mongoReadURI string

	kafkaPort int
	redisAddr string
	gwLn      net.Listener
	readerLn  net.Listener
	docs      map[string][]byte // the docs repository's files, nil for none
	docsLn    net.Listener      // where their Git server listens, with docs
	identity  *identity.App
	// identityDB is identity's database when identity runs elsewhere (the
	// end-to-end tests against the cluster).
	identityDB *mongo.Database
	content    *content.App
	sites      *appRun
	sitesCfg   sites.Config
	// endDocsAllow ends integrations' allowance of docsLn's address (its
	// server closed); nil without docs.
	endDocsAllow func()

	insights        *insights.App
	integrations    *appRun
	integrationsCfg integrations.Config
	log             *slog.Logger

	cancel  context.CancelFunc
	wg      sync.WaitGroup
	closers []func()
	errs    chan error
}

// Start brings up infrastructure, services and gateway, seeding on first
// start, then imports and publishes the platform's own docs.
func Start(ctx context.Context, cfg Config, log *slog.Logger) (_ *Platform, err error) {
	if cfg.LogLevel == "" {
		cfg.LogLevel = "info"
	}
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return nil, fmt.Errorf("data dir: %w", err)
	}
	runCtx, cancel := context.WithCancel(context.Background())
	p := &Platform{cancel: cancel, errs: make(chan error, 8), log: log}
	defer func() {
		if err != nil {
			p.Close()
		}
	}()
	p.CredsPath = filepath.Join(cfg.DataDir, "credentials.env")
	if p.docs, err = readDocs(cfg.DocsRepo, p.CredsPath, log); err != nil {
		return nil, err
	}
	steps := []struct {
		name  string
		start func(ctx, runCtx context.Context, cfg Config) error
	}{
		{"infrastructure", p.startInfra},
		{"identity", p.startIdentity},
		{"content", p.startContent},
		{"integrations", p.startIntegrationsStep}, // before sites: published pages read its OpenAPI specs
		{"sites", p.startSitesStep},
		{"insights", p.startInsights}, // after sites: it asks sites about sites it does not know yet
		{"gateway", p.startGateway},
	}
	for _, s := range steps {
		if err := s.start(ctx, runCtx, cfg); err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
	}
	if p.Credentials, err = seed(ctx, p.identity.Bootstrap, p.URL, p.CredsPath); err != nil {
		return nil, fmt.Errorf("seed: %w", err)
	}
	p.publishDocs(ctx, runCtx)
	return p, nil
}

// startInfra starts the embedded MongoDB, Kafka and Redis, reads (or makes)
// the internal token secret and listens on the gateway's address.
func (p *Platform) startInfra(_, _ context.Context, cfg Config) (err error) {
	mongo, err := embedded.StartMongo(filepath.Join(cfg.DataDir, "mongo"), "", p.log.With("component", "ferretdb"))
	if err != nil {
		return err
	}
	p.closers = append(p.closers, mongo.Close)
	p.MongoURI, p.mongoReadURI = mongo.URI, mongo.ReadURI
	if p.Kafka, err = embedded.StartKafka(0); err != nil {
		return err
	}
	p.closers = append(p.closers, func() {
		if p.Kafka != nil {
			p.Kafka.Close()
		}
	})
	rds, err := embedded.StartRedis("")
	if err != nil {
		return err
	}
	p.closers = append(p.closers, rds.Close)
	p.redisAddr = rds.Addr()
	if p.InternalTokenSecret, err = secret(filepath.Join(cfg.DataDir, "internal-token.secret")); err != nil {
		return err
	}
	if p.gwLn, err = net.Listen("tcp", cfg.Addr); err != nil {
		return fmt.Errorf("listen %s: %w", cfg.Addr, err)
	}
	p.closers = append(p.closers, func() { _ = p.gwLn.Close() })
	p.URL = "http://" + p.gwLn.Addr().String()
	if cfg.ReaderAddr != "" {
		if p.readerLn, err = net.Listen("tcp", cfg.ReaderAddr); err != nil {
			return fmt.Errorf("listen %s: %w", cfg.ReaderAddr, err)
		}
		p.closers = append(p.closers, func() { _ = p.readerLn.Close() })
		p.ReaderURL = "http://" + p.readerLn.Addr().String()
	}
	return nil
}

// env is the configuration every component shares (infrastructure,
// secret, public URLs, log level) with extra on top.
func (p *Platform) env(cfg Config, extra map[string]string) map[string]string {
	m := map[string]string{
		"MONGO_URI": p.MongoURI, "MONGO_READ_URI": p.mongoReadURI, "KAFKA_BROKERS": strings.Join(p.Kafka.Brokers, ","), "INTERNAL_TOKEN_SECRET": p.InternalTokenSecret,
		"PUBLIC_URL": p.URL, "APP_URL": p.URL + "/app", "LOG_LEVEL": cfg.LogLevel,
	}
	maps.Copy(m, extra)
	return m
}

func (p *Platform) startIdentity(ctx, runCtx context.Context, cfg Config) error {
	idCfg := identity.Config{
		Base: service.Base{MongoURI: p.MongoURI, MongoReadURI: p.mongoReadURI, Kafka: kafkax.Config{Brokers: p.Kafka.Brokers},
			InternalTokenSecret: p.InternalTokenSecret, LogLevel: cfg.LogLevel},
		URLs: service.URLs{PublicURL: p.URL, AppURL: p.URL + "/app"},
		Addr: "127.0.0.1:0", Database: "identity",
	}
	id, err := identity.New(ctx, idCfg, p.log.With("service", "identity"))
	if err != nil {
		return err
	}
	p.closers = append(p.closers, func() { _ = id.Close(context.Background()) })
	id.RunBackground(runCtx)
	p.identity = id
	p.IdentityURL, err = p.serve(runCtx, id.Handler(), p.log.With("service", "identity"))
	return err
}

// startContent starts content, its files' bytes under $DATA_DIR/blobs,
// once it applied its pending migration steps in-process (the local
// runner is one process: no other replica nor release shares DATA_DIR
// while it runs; the destructive steps only with MIGRATE_DESTRUCTIVE).
func (p *Platform) startContent(ctx, runCtx context.Context, cfg Config) error {
	blobDir, err := filepath.Abs(filepath.Join(cfg.DataDir, "blobs"))
	if err != nil {
		return fmt.Errorf("blob dir: %w", err)
	}
	var ctCfg content.Config
	if err := config.LoadMap(ctx, &ctCfg, p.env(cfg, map[string]string{
		"CONTENT_ADDR": "127.0.0.1:0", "BLOB_URL": "file://" + filepath.ToSlash(blobDir),
		"OUTBOUND_ALLOW_PRIVATE": strconv.FormatBool(cfg.OutboundAllowPrivate),
	})); err != nil {
		return err
	}
	ct, err := content.New(ctx, ctCfg, p.log.With("service", "content"), content.WithClock(cfg.Now),
		content.WithMigrations(cfg.MigrateDestructive))
	if err != nil {
		return err
	}
	p.closers = append(p.closers, func() { _ = ct.Close(context.Background()) })
	ct.RunBackground(runCtx)
	p.content = ct
	p.ContentURL, err = p.serve(runCtx, ct.Handler(), p.log.With("service", "content"))
	return err
}

func (p *Platform) startInsights(ctx, runCtx context.Context, cfg Config) error {
	var inCfg insights.Config
	// One insights of one release reads the log: its binary form is safe.
	if err := config.LoadMap(ctx, &inCfg, p.env(cfg, map[string]string{"INSIGHTS_ADDR": "127.0.0.1:0", "SITES_URL": p.SitesURL,
		"INSIGHTS_LOG_FORMAT": "binary"})); err != nil {
		return err
	}
	in, err := insights.New(ctx, inCfg, p.log.With("service", "insights"), insights.WithClock(cfg.Now))
	if err != nil {
		return err
	}
	p.closers = append(p.closers, func() { _ = in.Close(context.Background()) })
	in.RunBackground(runCtx)
	p.insights = in
	p.InsightsURL, err = p.serve(runCtx, in.Handler(), p.log.With("service", "insights"))
	return err
}

// startSitesStep starts sites on an address it keeps, so that it can stop
// and start again behind the gateway.
func (p *Platform) startSitesStep(ctx, _ context.Context, cfg Config) error {
	if err := config.LoadMap(ctx, &p.sitesCfg, p.env(cfg, map[string]string{
		"SITES_ADDR": "127.0.0.1:0", "CONTENT_URL": p.ContentURL, "INTEGRATIONS_URL": p.IntegrationsURL, "PUBLISHED_URL": p.URL + "/sites",
		"HOSTNAME_DNS_SERVER": cfg.HostnameDNSServer,
	})); err != nil {
		return err
	}
	if cfg.Sites != nil {
		cfg.Sites(&p.sitesCfg)
	}
	if err := p.StartSites(); err != nil {
		return err
	}
	p.closers = append(p.closers, p.StopSites)
	p.SitesURL = "http://" + p.sitesCfg.Addr
	return nil
}

// startIntegrationsStep starts integrations, restartable like sites (its
// jobs resume after a restart). The docs' Git server listens on loopback:
// with docs to import, integrations may reach that one address (not the
// rest of loopback) from the start until that server closes.
func (p *Platform) startIntegrationsStep(ctx, _ context.Context, cfg Config) error {
	env := map[string]string{"INTEGRATIONS_ADDR": "127.0.0.1:0", "CONTENT_URL": p.ContentURL, "IDENTITY_URL": p.IdentityURL,
		"OUTBOUND_ALLOW_PRIVATE": strconv.FormatBool(cfg.OutboundAllowPrivate)}
	var served chan struct{}
	if p.docs != nil {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		// The address is allowed while the docs' Git server serves: once it
		// closes, another may listen there.
		served = make(chan struct{})
		var once sync.Once
		p.docsLn, p.endDocsAllow = ln, func() { once.Do(func() { close(served) }) }
		p.closers = append(p.closers, func() { p.endDocsAllow(); _ = ln.Close() })
		env["OUTBOUND_ALLOW_ADDRS"] = ln.Addr().String()
	}
	if err := config.LoadMap(ctx, &p.integrationsCfg, p.env(cfg, env)); err != nil {
		return err
	}
	if served != nil {
		p.integrationsCfg.OutboundAllowUntil = served
	}
	if cfg.Integrations != nil {
		cfg.Integrations(&p.integrationsCfg)
	}
	if err := p.StartIntegrations(); err != nil {
		return err
	}
	p.closers = append(p.closers, p.StopIntegrations)
	p.IntegrationsURL = "http://" + p.integrationsCfg.Addr
	return nil
}

// startGateway serves the gateway on gwLn in front of every service.
func (p *Platform) startGateway(ctx, runCtx context.Context, cfg Config) error {
	rc := redis.NewClient(&redis.Options{Addr: p.redisAddr})
	p.closers = append(p.closers, func() { _ = rc.Close() })
	upstreams := discovery.Static{"identity": p.IdentityURL, "content": p.ContentURL, "sites": p.SitesURL,
		"insights": p.InsightsURL, "integrations": p.IntegrationsURL}
	var list []string
	for _, name := range slices.Sorted(maps.Keys(upstreams)) {
		list = append(list, name+"="+upstreams[name])
	}
	var gwCfg gateway.Config // the gateway's own defaults, with the runner's choices on top
	if err := config.LoadMap(ctx, &gwCfg, p.env(cfg, map[string]string{
		"ADDR": cfg.Addr, "RATE_LIMIT": strconv.Itoa(cfg.RateLimit), "UPSTREAMS": strings.Join(list, ","),
	})); err != nil {
		return err
	}
	if err := gwCfg.Validate(); err != nil {
		return err
	}
	gw, err := gateway.New(gwCfg, gateway.Deps{Redis: rc, Resolver: upstreams, Log: p.log.With("service", "gateway")})
	if err != nil {
		return err
	}
	// The gateway drops cached token resolutions when identity says a token
	// or member changed, as the gateway command does.
	gw.RunBackground(runCtx)
	p.closers = append(p.closers, func() { _ = gw.Close(context.Background()) })
	p.goRun("gateway", func() error {
		return httpx.Serve(runCtx, gw.Listener(p.gwLn), gw.Handler(), p.log.With("service", "gateway"))
	})
	if p.readerLn != nil {
		p.goRun("gateway readers", func() error { return gw.ServeReaders(runCtx, p.readerLn) })
	}
	return nil
}

// Bootstrap adds a member (and, without an organization id, an
// organization) with a new API token, as the identity-admin command does.
func (p *Platform) Bootstrap(ctx context.Context, in identity.BootstrapInput) (identity.BootstrapResult, error) {
	if p.identity != nil {
		return p.identity.Bootstrap(ctx, in)
	}
	return identity.Bootstrap(ctx, p.identityDB, in)
}

// appRun is a service that the runner stops and starts again, on the same
// address and database (sites and integrations, for restart tests).
type appRun struct {
	app    service.App
	cancel context.CancelFunc
	done   chan struct{}
}

// startApp builds an app with build and serves it on *addr, which keeps
// the port it got for a restart.
func (p *Platform) startApp(name string, addr *string, build func(ctx context.Context, log *slog.Logger) (service.App, error)) (*appRun, error) {
	ctx, cancel := context.WithCancel(context.Background())
	log := p.log.With("service", name)
	app, err := build(ctx, log)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		cancel()
		_ = app.Close(context.Background())
		return nil, fmt.Errorf("%s: listen: %w", name, err)
	}
	*addr = ln.Addr().String()
	app.RunBackground(ctx)
	run := &appRun{app: app, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(run.done)
		if err := httpx.Serve(ctx, ln, app.Handler(), log); err != nil && !errors.Is(err, context.Canceled) {
			log.Error(name+" server stopped", "err", err)
		}
	}()
	return run, nil
}

// stop stops the app: its server, then its background work, then its connections.
func (r *appRun) stop() {
	r.cancel()
	<-r.done
	cctx, cancel := context.WithTimeout(context.Background(), service.CloseTimeout)
	defer cancel()
	_ = r.app.Close(cctx)
}

// StartSites starts the sites service (again, after StopSites: on the same
// address and database, and its consumer resumes where it stopped).
func (p *Platform) StartSites() error {
	if p.sites != nil {
		return nil
	}
	run, err := p.startApp("sites", &p.sitesCfg.Addr, func(ctx context.Context, log *slog.Logger) (service.App, error) {
		return sites.New(ctx, p.sitesCfg, log)
	})
	if err != nil {
		return err
	}
	p.sites = run
	return nil
}

// StopSites stops the sites service (its server, relay and consumer).
func (p *Platform) StopSites() {
	if p.sites == nil {
		return
	}
	p.sites.stop()
	p.sites = nil
}

// StartIntegrations starts the integrations service (again, after
// StopIntegrations: on the same address and database; its unfinished jobs
// resume).
func (p *Platform) StartIntegrations() error {
	if p.integrations != nil {
		return nil
	}
	run, err := p.startApp("integrations", &p.integrationsCfg.Addr, func(ctx context.Context, log *slog.Logger) (service.App, error) {
		return integrations.New(ctx, p.integrationsCfg, log)
	})
	if err != nil {
		return err
	}
	p.integrations = run
	return nil
}

// StopIntegrations stops the integrations service; its worker hands its
// jobs back first.
func (p *Platform) StopIntegrations() {
	if p.integrations == nil {
		return
	}
	p.integrations.stop()
	p.integrations = nil
}

// PurgeContent runs content's purge of spaces deleted more than seven days ago now.
func (p *Platform) PurgeContent(ctx context.Context) (int, error) { return p.content.Purge(ctx) }

// serve starts h on a free loopback port and returns its base URL.
func (p *Platform) serve(ctx context.Context, h http.Handler, log *slog.Logger) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	p.goRun("server", func() error { return httpx.Serve(ctx, ln, h, log) })
	return "http://" + ln.Addr().String(), nil
}

func (p *Platform) goRun(name string, f func() error) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		if err := f(); err != nil && !errors.Is(err, context.Canceled) {
			p.errs <- fmt.Errorf("%s: %w", name, err)
		}
	}()
}

// StopKafka stops the embedded Kafka (for outage tests); services keep working
// and their events wait in the outbox.
func (p *Platform) StopKafka() {
	p.kafkaPort = p.Kafka.Port()
	p.Kafka.Close()
	p.Kafka = nil
}

// ResumeKafka starts an empty Kafka again on the port it had.
func (p *Platform) ResumeKafka() error {
	k, err := embedded.StartKafka(p.kafkaPort)
	if err != nil {
		return err
	}
	p.Kafka = k
	return nil
}

// Errors reports a component that stopped with an error.
func (p *Platform) Errors() <-chan error { return p.errs }

// Close stops everything: servers drain first, then clients and infrastructure.
func (p *Platform) Close() {
	p.cancel()
	p.wg.Wait()
	for i := len(p.closers) - 1; i >= 0; i-- {
		p.closers[i]()
	}
}

func secret(path string) (string, error) {
	if b, err := os.ReadFile(path); err == nil && len(strings.TrimSpace(string(b))) >= 32 {
		return strings.TrimSpace(string(b)), nil
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	s := hex.EncodeToString(b[:])
	if err := os.WriteFile(path, []byte(s+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("write secret: %w", err)
	}
	return s, nil
}

// bootstrapFunc adds a member (identity.Bootstrap, or through a running
// identity: App.Bootstrap).
type bootstrapFunc func(context.Context, identity.BootstrapInput) (identity.BootstrapResult, error)

// seed creates the demo organizations once, through bootstrap; later
// starts read the credentials file.
func seed(ctx context.Context, bootstrap bootstrapFunc, url, path string) (Credentials, error) {
	if c, err := readCredentials(path); err == nil {
		c.GatewayURL = url
		return c, writeCredentials(path, c)
	}
	admin, err := bootstrap(ctx, identity.BootstrapInput{OrganizationTitle: "Demo", UserDisplayName: "Demo Admin", UserEmail: "admin@demo.example", Role: roles.Admin})
	if err != nil {
		return Credentials{}, err
	}
	reader, err := bootstrap(ctx, identity.BootstrapInput{OrganizationID: admin.OrganizationID, UserDisplayName: "Demo Reader", UserEmail: "reader@demo.example", Role: roles.Read})
	if err != nil {
		return Credentials{}, err
	}
	other, err := bootstrap(ctx, identity.BootstrapInput{OrganizationTitle: "Other", UserDisplayName: "Other Admin", UserEmail: "admin@other.example", Role: roles.Admin})
	if err != nil {
		return Credentials{}, err
	}
	c := Credentials{GatewayURL: url, DemoOrgID: admin.OrganizationID, DemoAdminToken: admin.Token, DemoReaderToken: reader.Token, OtherOrgToken: other.Token}
	return c, writeCredentials(path, c)
}

func writeCredentials(path string, c Credentials) error {
	body := fmt.Sprintf("GATEWAY_URL=%s\nDEMO_ORG_ID=%s\nDEMO_ADMIN_TOKEN=%s\nDEMO_READER_TOKEN=%s\nOTHER_ORG_TOKEN=%s\n"+
		"DOCS_SPACE_ID=%s\nDOCS_SITE_ID=%s\nDOCS_URL=%s\nDOCS_DIGEST=%s\n",
		c.GatewayURL, c.DemoOrgID, c.DemoAdminToken, c.DemoReaderToken, c.OtherOrgToken, c.DocsSpaceID, c.DocsSiteID, c.DocsURL, c.DocsDigest)
	return os.WriteFile(path, []byte(body), 0o600)
}

func readCredentials(path string) (Credentials, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Credentials{}, err
	}
	kv := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok {
			kv[k] = v
		}
	}
	c := Credentials{DemoOrgID: kv["DEMO_ORG_ID"], DemoAdminToken: kv["DEMO_ADMIN_TOKEN"], DemoReaderToken: kv["DEMO_READER_TOKEN"], OtherOrgToken: kv["OTHER_ORG_TOKEN"],
		DocsSpaceID: kv["DOCS_SPACE_ID"], DocsSiteID: kv["DOCS_SITE_ID"], DocsURL: kv["DOCS_URL"], DocsDigest: kv["DOCS_DIGEST"]}
	if c.DemoOrgID == "" || c.DemoAdminToken == "" || c.DemoReaderToken == "" || c.OtherOrgToken == "" {
		return Credentials{}, errors.New("incomplete credentials file")
	}
	return c, nil
}
