// Package insights is the insights service: it ingests sites' visitor
// events (validated, enriched, appended to Kafka's insights.visits before
// the 204), keeps pre-aggregated hourly and daily rollups of them in
// MongoDB from a consumer group of that log, and answers aggregate queries
// and visitor segments from the rollups. Sites come from a projection of
// sites.events; a site it does not know yet is asked of the sites service
// (its internal API), so that events for a site created a moment ago are
// accepted. It exposes its wiring (New, Run) so that the local runner
// and tests start it in-process.
package insights

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/docspub/platform/libs/ops"

	"github.com/docspub/platform/libs/config"
	"github.com/docspub/platform/libs/discovery"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/libs/service"
	"github.com/docspub/platform/services/insights/internal/insightshttp"
	"github.com/docspub/platform/services/insights/internal/rollup"
	"github.com/docspub/platform/services/insights/internal/rollupmongo"
	"github.com/docspub/platform/services/insights/internal/sitesclient"
	"github.com/docspub/platform/services/insights/internal/siteview"
	"github.com/docspub/platform/services/insights/internal/siteviewmongo"
	"github.com/docspub/platform/services/insights/internal/visit"
	"github.com/docspub/platform/services/insights/internal/visitkafka"
	"github.com/gin-gonic/gin"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// Service is the service's name in discovery and in the gateway's route
// table: internal tokens for insights are minted for it.
const Service = "insights"

// Topic is where insights would publish events of its own; it has none
// (the visit log, visitkafka.Topic, is its write path).
const Topic = "insights.events"

// Consumer groups of the service.
const (
	SitesGroup  = "insights"        // sites.events → the site projection
	RollupGroup = "insights-rollup" // insights.visits → the rollups
)

// Ops names insights's database for the operator's commands
// (libs/ops: dead letters, backup, restore, check).
var Ops = ops.Service{Name: "insights", DatabaseVar: "INSIGHTS_DB", DatabaseDefault: "insights"}

// Config is the service's configuration, from the environment.
type Config struct {
	// Base is MONGO_URI, MONGO_READ_URI, KAFKA_*, INTERNAL_TOKEN_*, LOG_LEVEL and DISCOVERY (service.Base).
	service.Base
	Addr           string        `env:"INSIGHTS_ADDR, default=127.0.0.1:8084"`
	Database       string        `env:"INSIGHTS_DB, default=insights"`
	GeoIPDB        string        `env:"GEOIP_DB"` // MaxMind database for visitorGeoCountry; "" for none
	PublishTimeout time.Duration `env:"INSIGHTS_PUBLISH_TIMEOUT, default=5s"`
	SitesURL       string        `env:"SITES_URL, default=http://127.0.0.1:8083"` // sites' internal site lookup (static discovery; consul finds it by name)
	// LogFormat is how ingest writes the visit log: "json", or "binary"
	// (a tenth less CPU an event) once every insights replica runs a
	// release that reads it (visitkafka.Format).
	LogFormat string `env:"INSIGHTS_LOG_FORMAT, default=json"`
}

// Validate reports every problem of the configuration at once.
func (c Config) Validate() error {
	var p config.Problems
	c.Base.Check(&p)
	p.Require("INSIGHTS_ADDR", c.Addr)
	p.Require("INSIGHTS_DB", c.Database)
	p.HTTPURL("SITES_URL", c.SitesURL)
	if c.PublishTimeout <= 0 || c.PublishTimeout > time.Minute {
		p.Addf("INSIGHTS_PUBLISH_TIMEOUT must be between 0 and 1m")
	}
	if _, err := visitkafka.ParseFormat(c.LogFormat); err != nil {
		p.Addf("%s", err.Error())
	}
	return p.Err()
}

// Option changes how New wires the service.
type Option func(*options)

type options struct{ now func() time.Time }

// WithClock sets the service's clock (nil: the real one).
func WithClock(now func() time.Time) Option { return func(o *options) { o.now = now } }

// App is a wired insights service.
type App struct {
	cfg     Config
	core    *service.Core
	pub     *kafkax.Publisher
	geo     *visit.Geo
	sites   *kafkax.Consumer
	rollups *visitkafka.Reader
	store   *rollupmongo.Store
	handler *gin.Engine
}

// New connects to MongoDB, ensures the indexes, opens the GeoIP database
// when configured, and wires ingest, the consumers and the HTTP handler.
func New(ctx context.Context, cfg Config, log *slog.Logger, opts ...Option) (*App, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	var o options
	for _, f := range opts {
		f(&o)
	}
	if o.now == nil {
		o.now = time.Now
	}
	var geo *visit.Geo
	if cfg.GeoIPDB != "" {
		g, err := visit.OpenGeo(cfg.GeoIPDB)
		if err != nil {
			return nil, err
		}
		geo = g
	}
	core, err := service.Open(ctx, service.CoreConfig{Service: Service, MongoURI: cfg.MongoURI, MongoReadURI: cfg.MongoReadURI, Database: cfg.Database,
		Kafka: cfg.Kafka, InternalTokenSecret: cfg.InternalTokenSecret, InternalTokenKeys: cfg.InternalTokenKeys, Topic: Topic,
		Topics:  []string{visitkafka.Topic, siteview.Topic},
		Indexes: rollupmongo.Indexes(), Discovery: cfg.Discovery,
		Peers: discovery.Static{sitesclient.Service: strings.TrimRight(cfg.SitesURL, "/")}}, log)
	if err != nil {
		_ = geo.Close()
		return nil, err
	}
	// A site the projection does not know yet is asked of sites.
	sites := siteview.New(siteviewmongo.NewStore(core.Mongo), sitesclient.New(core.Discovery, core.Signer))
	store := rollupmongo.NewStore(core.Mongo)
	pub := kafkax.NewPublisher(core.Kafka)
	format, _ := visitkafka.ParseFormat(cfg.LogFormat) // validated
	ingest := visit.New(sites, visitkafka.NewWriter(pub, cfg.PublishTimeout, format), geo, o.now)

	e := httpx.NewEngine(log, "insights", mongox.Ping(core.Client))
	register(e, core.Signer, insightshttp.New(ingest, sites, store, o.now))

	return &App{
		cfg: cfg, core: core, pub: pub, geo: geo, store: store, handler: e,
		sites:   kafkax.NewConsumer(core.Kafka, SitesGroup, siteview.Topic, core.Mongo.Database, sites.Handle, log),
		rollups: visitkafka.NewReader(core.Kafka, RollupGroup, rollup.NewApplier(store, o.now), log),
	}, nil
}

// register adds insights' routes, the user API under /v1, to e.
func register(e *gin.Engine, signer *internaltoken.Signer, h *insightshttp.Handlers) {
	insightshttp.Register(e.Group("/v1", internaltoken.Require(signer)), h)
}

// Handler returns the HTTP handler.
func (a *App) Handler() http.Handler { return a.handler }

// Database returns the service's database.
func (a *App) Database() *mongo.Database { return a.core.Mongo.Database }

// RunBackground starts the sites.events consumer, the rollup consumer and,
// every hour, the pruning of old applied batch ids and the collection of
// unreferenced bucket sets; they stop when ctx is done.
func (a *App) RunBackground(ctx context.Context) {
	a.core.Go(ctx, "sites consumer", a.sites.Run)
	a.core.Go(ctx, "rollup consumer", a.rollups.Run)
	a.core.Go(ctx, "prune applied batches and collect sets", func(ctx context.Context) error {
		t := time.NewTicker(time.Hour)
		defer t.Stop()
		for {
			if err := a.store.PruneApplied(ctx, time.Now().Add(-rollupmongo.AppliedTTL)); err != nil && ctx.Err() == nil {
				a.core.Log.WarnContext(ctx, "prune applied batches", "err", err)
			}
			n, err := a.store.CollectSets(ctx, time.Now().Add(-rollupmongo.SetsGrace))
			if err != nil && ctx.Err() == nil {
				a.core.Log.WarnContext(ctx, "collect unreferenced bucket sets", "err", err)
			} else if n > 0 {
				a.core.Log.InfoContext(ctx, "collected unreferenced bucket sets", "count", n)
			}
			select {
			case <-ctx.Done():
				return nil
			case <-t.C:
			}
		}
	})
}

// Close closes the consumers, the publishers, the GeoIP database and MongoDB.
func (a *App) Close(ctx context.Context) error {
	return a.core.Close(ctx, a.sites.Close, a.rollups.Close, a.pub.Close, a.geo.Close)
}

// Run starts the service and serves cfg.Addr until ctx is done.
func Run(ctx context.Context, cfg Config, log *slog.Logger) error {
	log.InfoContext(ctx, "starting insights", "config", config.Describe(cfg))
	a, err := New(ctx, cfg, log)
	if err != nil {
		return fmt.Errorf("insights: %w", err)
	}
	return service.Run(ctx, Service, cfg.Addr, a, log, a.core.Announce())
}
