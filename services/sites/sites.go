// Package sites is the sites service: sites, their sections and section
// groups, site spaces, share links, the adaptive schema, the published
// view, and the published sites themselves, served to readers (reader). Site spaces embed content's spaces, kept current from
// content.events. It exposes its wiring (New, Run) so that the local runner
// and tests start it in-process.
package sites

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/docspub/platform/libs/ops"

	"github.com/docspub/platform/libs/config"
	"github.com/docspub/platform/libs/discovery"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/internalapi/integrationsapi"
	"github.com/docspub/platform/libs/internalapi/sitesapi"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/libs/service"
	"github.com/docspub/platform/services/sites/internal/contentclient"
	"github.com/docspub/platform/services/sites/internal/integrationsclient"
	"github.com/docspub/platform/services/sites/internal/reader"
	"github.com/docspub/platform/services/sites/internal/readerhttp"
	"github.com/docspub/platform/services/sites/internal/section"
	"github.com/docspub/platform/services/sites/internal/sectionhttp"
	"github.com/docspub/platform/services/sites/internal/sectionmongo"
	"github.com/docspub/platform/services/sites/internal/sharelink"
	"github.com/docspub/platform/services/sites/internal/sharelinkhttp"
	"github.com/docspub/platform/services/sites/internal/sharelinkmongo"
	"github.com/docspub/platform/services/sites/internal/site"
	"github.com/docspub/platform/services/sites/internal/sitecontentclient"
	"github.com/docspub/platform/services/sites/internal/sitehttp"
	"github.com/docspub/platform/services/sites/internal/sitemongo"
	"github.com/docspub/platform/services/sites/internal/spaceviewmongo"
	"github.com/gin-gonic/gin"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// Topic is where sites publishes its events.
const Topic = sitesapi.Topic

// ContentTopic feeds the projection of the spaces site spaces embed.
const ContentTopic = contentapi.Topic

// IntegrationsTopic tells the reader when an organization's stored OpenAPI
// specs change (the pages showing them are rendered again).
const IntegrationsTopic = integrationsapi.Topic

// ConsumerGroup is the sites service's consumer group.
const ConsumerGroup = "sites"

// Ops names sites's database for the operator's commands
// (libs/ops: dead letters, backup, restore, check).
var Ops = ops.Service{Name: "sites", DatabaseVar: "SITES_DB", DatabaseDefault: "sites"}

// Config is the service's configuration, from the environment.
type Config struct {
	// Base is MONGO_URI, MONGO_READ_URI, KAFKA_*, INTERNAL_TOKEN_*, LOG_LEVEL and DISCOVERY (service.Base).
	service.Base
	service.URLs        // PUBLIC_URL, APP_URL
	Addr         string `env:"SITES_ADDR, default=127.0.0.1:8083"`
	Database     string `env:"SITES_DB, default=sites"`
	ContentURL   string `env:"CONTENT_URL, default=http://127.0.0.1:8082"` // where the content service answers (static discovery; consul finds it by name)
	// IntegrationsURL is where the integrations service answers (static
	// discovery; consul finds it by name): published pages' API blocks
	// read the organization's stored OpenAPI specs there.
	IntegrationsURL string `env:"INTEGRATIONS_URL, default=http://127.0.0.1:8085"`
	PublishedURL    string `env:"PUBLISHED_URL, default=http://127.0.0.1:8080/sites"` // base of published site URLs
	// Custom hostnames are verified by a DNS TXT record at
	// _docspub-challenge.<hostname> holding the site's token, looked up
	// through HOSTNAME_DNS_SERVER (host:port; empty: the system's
	// resolver) every HOSTNAME_CHECK_INTERVAL; a claim still unverified
	// after HOSTNAME_CLAIM_TTL fails. The hosts of PUBLIC_URL, APP_URL and
	// PUBLISHED_URL, those of RESERVED_HOSTNAMES, and their subdomains,
	// are no site's hostname.
	HostnameDNSServer     string        `env:"HOSTNAME_DNS_SERVER"`
	HostnameCheckInterval time.Duration `env:"HOSTNAME_CHECK_INTERVAL, default=1m"`
	HostnameClaimTTL      time.Duration `env:"HOSTNAME_CLAIM_TTL, default=168h"`
	ReservedHostnames     []string      `env:"RESERVED_HOSTNAMES"`
}

// Validate reports every problem of the configuration at once.
func (c Config) Validate() error {
	var p config.Problems
	c.Base.Check(&p)
	c.URLs.Check(&p)
	p.Require("SITES_ADDR", c.Addr)
	p.Require("SITES_DB", c.Database)
	p.HTTPURL("CONTENT_URL", c.ContentURL)
	p.HTTPURL("INTEGRATIONS_URL", c.IntegrationsURL)
	p.HTTPURL("PUBLISHED_URL", c.PublishedURL)
	if c.HostnameDNSServer != "" {
		if _, port, err := net.SplitHostPort(c.HostnameDNSServer); err != nil || port == "" {
			p.Addf("HOSTNAME_DNS_SERVER must be host:port, like 127.0.0.1:53")
		}
	}
	if c.HostnameCheckInterval <= 0 {
		p.Addf("HOSTNAME_CHECK_INTERVAL must be positive")
	}
	if c.HostnameClaimTTL <= 0 {
		p.Addf("HOSTNAME_CLAIM_TTL must be positive")
	}
	return p.Err()
}

// App is a wired sites service.
type App struct {
	cfg      Config
	log      *slog.Logger
	core     *service.Core
	sites    *site.Service
	contents *kafkax.Consumer
	reader   *reader.Reader
	changes  *reader.Changes
	handler  *gin.Engine
}

// New connects to MongoDB, ensures the indexes, and wires the stores, the
// outbox relay, the content.events consumer and the HTTP handler.
func New(ctx context.Context, cfg Config, log *slog.Logger) (*App, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	var indexes []mongox.Index
	for _, ix := range [][]mongox.Index{sitemongo.Indexes(), sectionmongo.Indexes(), sharelinkmongo.Indexes(), spaceviewmongo.Indexes()} {
		indexes = append(indexes, ix...)
	}
	var eventColls []string
	for _, cs := range [][]string{sitemongo.Collections(), sectionmongo.Collections(), sharelinkmongo.Collections()} {
		eventColls = append(eventColls, cs...)
	}
	core, err := service.Open(ctx, service.CoreConfig{Service: "sites", MongoURI: cfg.MongoURI, MongoReadURI: cfg.MongoReadURI, Database: cfg.Database,
		Kafka: cfg.Kafka, InternalTokenSecret: cfg.InternalTokenSecret, InternalTokenKeys: cfg.InternalTokenKeys, Topic: Topic,
		Topics:           []string{ContentTopic, IntegrationsTopic},
		EventCollections: eventColls, Indexes: indexes, Discovery: cfg.Discovery,
		Peers: discovery.Static{contentclient.Service: strings.TrimRight(cfg.ContentURL, "/"),
			integrationsclient.Service: strings.TrimRight(cfg.IntegrationsURL, "/")}}, log)
	if err != nil {
		return nil, err
	}
	db, relay, signer := core.Mongo, core.Relay, core.Signer

	spaces := spaceviewmongo.NewStore(db)
	content := contentclient.New(core.Discovery, signer)
	// A change made here reaches this instance's readers at once (its
	// organization's structures).
	changes := reader.NewChanges()
	written := func(evs []kafkax.Event) { relay.Notify(); changes.Invalidate(evs...) }
	siteStore, sectionStore, linkStore := sitemongo.NewStore(db, written), sectionmongo.NewStore(db, written), sharelinkmongo.NewStore(db, written)
	keys := sharelink.NewKeys(linkStore)
	rd, err := reader.New(reader.Deps{Sites: siteStore, Sections: sectionStore, Spaces: spaces, ShareKeys: keys, Changes: changes,
		Content: content, Specs: integrationsclient.New(core.Discovery, signer), PublishedURL: cfg.PublishedURL,
		Log: log.With("component", "reader")})
	if err != nil {
		_ = core.Close(ctx)
		return nil, fmt.Errorf("reader: %w", err)
	}
	sites := site.New(site.Deps{Store: siteStore, Spaces: spaces, Content: sitecontentclient.New(content),
		URLs: site.URLs{Public: strings.TrimRight(cfg.PublicURL, "/"), App: strings.TrimRight(cfg.AppURL, "/"),
			Published: strings.TrimRight(cfg.PublishedURL, "/")},
		Hostnames: site.HostnameConfig{Reserved: cfg.ReservedHostnames, ClaimTTL: cfg.HostnameClaimTTL,
			Recheck: cfg.HostnameCheckInterval, Resolver: site.DNSResolver(cfg.HostnameDNSServer)},
		Sections:  section.NewOutline(sectionStore, nil),
		ShareKeys: keys,
		// A non-member's published view shows what the reader shows them.
		Visitors: rd,
		OnDelete: []func(context.Context, string) error{sectionStore.DeleteSite, linkStore.DeleteSite}})
	sections := section.New(sectionStore, sites, nil)
	links := sharelink.New(linkStore, sites, sharelink.URLs{Published: strings.TrimRight(cfg.PublishedURL, "/")}, nil)

	e := httpx.NewEngine(log, "sites", mongox.Ping(core.Client))
	register(e, log, signer, sites, sections, links, rd)

	consumer := kafkax.NewConsumer(core.Kafka, ConsumerGroup, ContentTopic, core.Mongo.Database,
		func(ctx context.Context, ev kafkax.Event) error {
			err := spaces.Handle(ctx, ev)
			if err == nil && strings.HasPrefix(ev.Type, "space.") {
				changes.SpaceChanged(ev.Subject)
			}
			return err
		}, log)
	return &App{cfg: cfg, log: log, core: core, sites: sites, contents: consumer, reader: rd, changes: changes, handler: e}, nil
}

// Handler returns the HTTP handler.
func (a *App) Handler() http.Handler { return a.handler }

// Database returns the service's database.
func (a *App) Database() *mongo.Database { return a.core.Mongo.Database }

// register adds sites' routes to e: the user API under /v1, the readers'
// pages, and the internal API.
func register(e *gin.Engine, log *slog.Logger, signer *internaltoken.Signer, sites *site.Service, sections *section.Service, links *sharelink.Service, rd *reader.Reader) {
	v1 := e.Group("/v1", internaltoken.Require(signer), internaltoken.RequireUser)
	sitehttp.Register(v1, sites)
	sectionhttp.Register(v1, sections)
	sharelinkhttp.Register(v1, links)
	readerhttp.Register(e, rd, signer, log)
	// Internal API (the gateway routes no /internal path): insights asks
	// for a site its projection does not know yet.
	sitehttp.RegisterInternal(e.Group("/internal/v1", internaltoken.Require(signer), internaltoken.RequireService(sitesapi.Insights)), sites)
	// The gateway asks whether a custom hostname is verified before it
	// obtains a TLS certificate for it.
	sitehttp.RegisterGateway(e.Group("/internal/v1", internaltoken.Require(signer), internaltoken.RequireService(sitesapi.Gateway)), sites)
}

// RunBackground starts the outbox relay, the content.events consumer and
// the checker of custom hostnames; they stop when ctx is done.
func (a *App) RunBackground(ctx context.Context) {
	a.core.RunRelay(ctx)
	a.core.Go(ctx, "hostname checks", func(ctx context.Context) error {
		return a.sites.RunHostnameChecks(ctx, a.cfg.HostnameCheckInterval, a.log.With("component", "hostname checks"))
	})
	a.core.Go(ctx, "content consumer", a.contents.Run)
	// A change made through another replica reaches this one's reader
	// when its event does (limits.ReaderSiteTTL the backstop): sites' own
	// and content's spaces'.
	a.core.FollowChanges(ctx, Topic, func(ev kafkax.Event) { a.changes.Invalidate(ev) })
	a.core.FollowChanges(ctx, ContentTopic, func(ev kafkax.Event) {
		if strings.HasPrefix(ev.Type, "space.") {
			a.changes.SpaceChanged(ev.Subject)
		}
	})
	// A stored OpenAPI spec's change (a new version, its removal) shows on
	// the pages of its organization without their revision changing.
	a.core.FollowChanges(ctx, IntegrationsTopic, func(ev kafkax.Event) {
		switch ev.Type {
		case integrationsapi.OpenAPISpecProcessed, integrationsapi.OpenAPISpecUpdated, integrationsapi.OpenAPISpecDeleted:
			a.reader.SpecsChanged(ev.Organization)
		}
	})
}

// Close closes the Kafka publisher and consumer and the MongoDB connection.
func (a *App) Close(ctx context.Context) error {
	return a.core.Close(ctx, a.contents.Close)
}

// Run starts the service and serves cfg.Addr until ctx is done.
func Run(ctx context.Context, cfg Config, log *slog.Logger) error {
	log.InfoContext(ctx, "starting sites", "config", config.Describe(cfg))
	a, err := New(ctx, cfg, log)
	if err != nil {
		return fmt.Errorf("sites: %w", err)
	}
	return service.Run(ctx, "sites", cfg.Addr, a, log, a.core.Announce())
}

// ReaderRoute is an address form of published sites (reader.Route): tests
// outside the service read the reader's table through ReaderRoutes.
type ReaderRoute struct {
	Name, Path string
}

// ReaderStaticAssets are the vendored assets of pages the reader serves
// under a site's /~static/ (KaTeX's stylesheet, Mermaid's script).
func ReaderStaticAssets() []string { return []string{reader.KaTeXCSS, reader.MermaidJS} }

// ReaderRoutes are every address form the reader serves, under a site's
// URL (reader.Routes).
func ReaderRoutes() []ReaderRoute {
	var out []ReaderRoute
	for _, rt := range reader.Routes() {
		out = append(out, ReaderRoute(rt))
	}
	return out
}
