// Package content is the content service: collections, spaces, space
// comments, custom fields and members' spaces. It exposes its wiring (New,
// Run) so that the local runner and tests start it in-process.
package content

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/docspub/platform/libs/ops"

	"github.com/docspub/platform/libs/blob"
	"github.com/docspub/platform/libs/config"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/internalapi/identityapi"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/jobs/jobsmongo"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/libs/quota"
	"github.com/docspub/platform/libs/service"
	"github.com/docspub/platform/libs/urlguard"
	"github.com/docspub/platform/services/content/internal/access"
	"github.com/docspub/platform/services/content/internal/changerequest"
	"github.com/docspub/platform/services/content/internal/changerequesthttp"
	"github.com/docspub/platform/services/content/internal/changerequestmongo"
	"github.com/docspub/platform/services/content/internal/comment"
	"github.com/docspub/platform/services/content/internal/commenthttp"
	"github.com/docspub/platform/services/content/internal/commentmongo"
	"github.com/docspub/platform/services/content/internal/customfield"
	"github.com/docspub/platform/services/content/internal/customfieldhttp"
	"github.com/docspub/platform/services/content/internal/customfieldmongo"
	"github.com/docspub/platform/services/content/internal/gitsynchttp"
	"github.com/docspub/platform/services/content/internal/limits"
	"github.com/docspub/platform/services/content/internal/links"
	"github.com/docspub/platform/services/content/internal/migratemongo"
	"github.com/docspub/platform/services/content/internal/operationmongo"
	"github.com/docspub/platform/services/content/internal/peoplemongo"
	"github.com/docspub/platform/services/content/internal/readerhttp"
	"github.com/docspub/platform/services/content/internal/revision"
	"github.com/docspub/platform/services/content/internal/revisionhttp"
	"github.com/docspub/platform/services/content/internal/revisionmongo"
	"github.com/docspub/platform/services/content/internal/search"
	"github.com/docspub/platform/services/content/internal/searchhttp"
	"github.com/docspub/platform/services/content/internal/searchmongo"
	"github.com/docspub/platform/services/content/internal/space"
	"github.com/docspub/platform/services/content/internal/spacehttp"
	"github.com/docspub/platform/services/content/internal/spacemongo"
	"github.com/gin-gonic/gin"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// Topic is where content publishes its events.
const Topic = contentapi.Topic

// IdentityTopic is identity's topic, which feeds content's users and members.
const IdentityTopic = identityapi.Topic

// ConsumerGroup is content's consumer group on other services' topics.
const ConsumerGroup = "content"

// RecoverEvery is how often unfinished merges are looked for.
const RecoverEvery = time.Minute

// Ops names content's database and its blob store for the operator's commands
// (libs/ops: dead letters, backup, restore, check).
var Ops = ops.Service{Name: "content", DatabaseVar: "CONTENT_DB", DatabaseDefault: "content", Blobs: true}

// KnowsUser is whether content's projection of identity's users, in
// content's database db, has the user yet (their event consumed): for
// tools and tests that wait for a new user to reach content.
func KnowsUser(ctx context.Context, db *mongo.Database, userID string) (bool, error) {
	return peoplemongo.NewStore(db, links.URLs{}).Knows(ctx, userID)
}

// Config is the service's configuration, from the environment.
type Config struct {
	// Base is MONGO_URI, MONGO_READ_URI, KAFKA_*, INTERNAL_TOKEN_*, LOG_LEVEL and DISCOVERY (service.Base).
	service.Base
	service.URLs                // PUBLIC_URL, APP_URL
	Addr          string        `env:"CONTENT_ADDR, default=127.0.0.1:8082"`
	Database      string        `env:"CONTENT_DB, default=content"`
	PurgeInterval time.Duration `env:"PURGE_INTERVAL, default=1h"` // how often deleted spaces past 7 days are purged and unused blobs collected
	// OutboundAllowPrivate lets imports fetch private and loopback addresses (tests, trusted local runs).
	OutboundAllowPrivate bool `env:"OUTBOUND_ALLOW_PRIVATE, default=false"`
	// BlobURL is where file bytes live: s3://bucket?endpoint=...&region=...&use_path_style=true
	// (S3-compatible storage), or file:///dir (a directory, for a local run).
	BlobURL string `env:"BLOB_URL"`
	// BlobAccessKeyID and BlobSecretAccessKey are the S3 credentials (both,
	// or neither: the AWS SDK's default chain: environment, profile, role).
	BlobAccessKeyID     string `env:"BLOB_ACCESS_KEY_ID" secret:"true"`
	BlobSecretAccessKey string `env:"BLOB_SECRET_ACCESS_KEY" secret:"true"`
	// BlobRedirect answers file downloads with a redirect to a short-lived
	// presigned URL of the bucket (S3 backends; readers then fetch the
	// bytes from the storage, or a CDN in front of it).
	BlobRedirect bool `env:"BLOB_REDIRECT, default=false"`
	// StorageQuota bounds the bytes of files and pages an organization
	// stores (0: no bound); past it, uploads and edits answer 413.
	StorageQuota int64 `env:"STORAGE_QUOTA_BYTES, default=0"`
}

// Validate reports every problem of the configuration at once.
func (c Config) Validate() error {
	var p config.Problems
	c.Base.Check(&p)
	c.URLs.Check(&p)
	p.Require("CONTENT_ADDR", c.Addr)
	p.Require("CONTENT_DB", c.Database)
	if c.PurgeInterval < time.Second {
		p.Addf("PURGE_INTERVAL must be at least 1s")
	}
	checkBlob(&p, c.BlobURL, c.BlobAccessKeyID, c.BlobSecretAccessKey)
	if c.BlobRedirect && !strings.HasPrefix(c.BlobURL, "s3://") {
		p.Addf("BLOB_REDIRECT needs an s3:// BLOB_URL")
	}
	if c.StorageQuota < 0 {
		p.Addf("STORAGE_QUOTA_BYTES must be 0 (none) or more")
	}
	return p.Err()
}

// checkBlob records the problems of the blob store's settings in p.
func checkBlob(p *config.Problems, url, keyID, secret string) {
	switch {
	case url == "":
		p.Addf("BLOB_URL is required (s3://bucket?... or file:///dir)")
	case !strings.HasPrefix(url, "s3://") && !strings.HasPrefix(url, "file:///"):
		p.Addf("BLOB_URL must be s3://bucket?... or file:///dir")
	}
	if (keyID == "") != (secret == "") {
		p.Addf("BLOB_ACCESS_KEY_ID and BLOB_SECRET_ACCESS_KEY go together")
	}
}

// Option changes how New wires the service.
type Option func(*options)

type options struct {
	now                  func() time.Time
	lease                time.Duration
	migrate, destructive bool
}

// WithClock sets the clock of deletion, restore and purge (tests step it past
// the seven-day restore window).
func WithClock(now func() time.Time) Option { return func(o *options) { o.now = now } }

// WithOperationLease sets the lease of the operations' jobs (default
// jobs.DefaultLease): how soon another replica or a restart takes over the
// operation of one that died (tests shorten it).
func WithOperationLease(d time.Duration) Option { return func(o *options) { o.lease = d } }

// WithMigrations makes New apply the pending migration steps before it
// wires the rest (the destructive ones too with destructive), what
// `content migrate` does apart: for the local runner's one process and
// tests. Without it, New refuses a database with a step it needs pending.
func WithMigrations(destructive bool) Option {
	return func(o *options) { o.migrate, o.destructive = true, destructive }
}

// App is a wired content service.
type App struct {
	cfg            Config
	core           *service.Core
	identity       *kafkax.Consumer
	spaces         *space.Service
	spaceStore     *spacemongo.Store
	changeRequests *changerequest.Service
	worker         *jobsmongo.Worker
	revisions      *revisionmongo.Store
	blobs          *blob.Store
	now            func() time.Time
	handler        *gin.Engine
	catchUp        func(context.Context) (int, error)
	collections    atomic.Int64 // runs of the purge job's collector
}

// New connects to MongoDB, ensures the indexes, checks the database's
// schema (see Migrations and WithMigrations: it refuses one newer than
// the binary, or with a step it needs pending), and wires the stores, the
// Kafka publisher and outbox relay, the identity consumer and the HTTP handler.
func New(ctx context.Context, cfg Config, log *slog.Logger, opts ...Option) (_ *App, err error) {
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
	core, err := openCore(ctx, cfg, log)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = core.Close(ctx)
		}
	}()
	blobs, err := blob.Open(ctx, cfg.BlobURL, blob.Options{AccessKeyID: cfg.BlobAccessKeyID, SecretAccessKey: cfg.BlobSecretAccessKey})
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = blobs.Close()
		}
	}()
	urls := links.New(cfg.PublicURL, cfg.AppURL)
	counts := space.NewCounters()
	st, err := openStores(ctx, cfg, core, blobs, urls, counts, log)
	if err != nil {
		return nil, err
	}
	// indexer.Reindex is the one operation by which the search index
	// follows every change of a space's content: Git imports, duplicates
	// and transfers (space's ContentChanged hooks), merges (changerequest's
	// Merged hook); CatchUp brings the rest up to date at start.
	indexer := search.NewIndexer(st.search, searchHeads{spaces: st.spaces}, revisionPages(st.revisions))
	queue := jobsmongo.NewQueue(core.Mongo, operationmongo.Collection, jobsmongo.WithLease(o.lease))
	fields := customfield.New(st.fields, urls)
	spaces := space.New(space.Deps{Store: st.spaces, People: st.people, URLs: urls, Now: o.now, Counts: counts,
		Operations: operationmongo.New(queue, limits.OperationWait),
		Hooks: space.Hooks{
			Purged: []func(context.Context, string) error{st.comments.DeleteSpace, st.fields.DeleteSpace,
				st.changeRequests.DeleteSpace, st.revisions.DeleteSpace, st.search.RemoveSpace},
			Duplicated:     []func(context.Context, access.Grant, access.Grant) error{fields.CopyValues},
			ContentChanged: []func(context.Context, string) error{indexer.Reindex},
		}})
	guard := urlguard.Guard{AllowPrivate: cfg.OutboundAllowPrivate}
	changeRequests := changerequest.New(changerequest.Deps{Store: st.changeRequests, Revisions: st.revisions, Spaces: spaces,
		People: st.people, URLs: urls, Now: o.now,
		Importer: websiteImporter{client: guard.Client(limits.ImportTime), blobs: st.revisions, now: o.now},
		Printer:  pdfPrinter{blobs: st.revisions},
		Hooks: changerequest.Hooks{Merged: []func(context.Context, access.Grant, revision.Revision) error{
			func(ctx context.Context, g access.Grant, _ revision.Revision) error {
				return indexer.Reindex(ctx, g.Space)
			},
		}},
	})
	sv := services{spaces: spaces, fields: fields, changeRequests: changeRequests,
		comments: comment.New(st.comments, st.people, st.revisions, urls),
		search:   search.New(st.search, urls),
		revisions: revision.New(st.revisions, urls, func(ctx context.Context, g access.Grant, id string) (any, error) {
			return changeRequests.Get(ctx, g, id)
		}),
	}
	reindex := func(ctx context.Context, _, spaceID, _ string) error { return indexer.Reindex(ctx, spaceID) }
	if err := schema(ctx, core.Mongo.Database, log, o, migratemongo.Steps(st.revisions, st.searchDB, reindex)); err != nil {
		return nil, err
	}
	return &App{cfg: cfg, core: core, spaces: spaces, spaceStore: st.spaces, changeRequests: changeRequests, revisions: st.revisions, blobs: blobs,
		identity: kafkax.NewConsumer(core.Kafka, ConsumerGroup, IdentityTopic, core.Mongo.Database, st.people.Handle, log),
		worker:   queue.NewWorker(operationmongo.Handlers(spaces.OperationHandlers()), limits.OperationWorkers, log),
		now:      o.now, handler: routes(log, core, cfg, st, sv), catchUp: indexer.CatchUp,
	}, nil
}

// openCore opens what content wires like every service (see service.Core):
// its database with content's indexes, the outbox of its event
// collections, Kafka and the internal tokens.
func openCore(ctx context.Context, cfg Config, log *slog.Logger) (*service.Core, error) {
	var eventColls []string
	for _, cs := range [][]string{spacemongo.EventCollections(), commentmongo.Collections(), customfieldmongo.Collections(),
		changerequestmongo.Collections()} {
		eventColls = append(eventColls, cs...)
	}
	return service.Open(ctx, service.CoreConfig{Service: "content", MongoURI: cfg.MongoURI, MongoReadURI: cfg.MongoReadURI, Database: cfg.Database,
		Kafka: cfg.Kafka, InternalTokenSecret: cfg.InternalTokenSecret, InternalTokenKeys: cfg.InternalTokenKeys, Topic: Topic,
		Topics:           []string{IdentityTopic},
		EventCollections: eventColls, Indexes: indexes(), SchemaVersion: migratemongo.SchemaVersion, Discovery: cfg.Discovery}, log)
}

// indexes are the indexes of content's database.
func indexes() []mongox.Index {
	var out []mongox.Index
	for _, ix := range [][]mongox.Index{spacemongo.Indexes(), commentmongo.Indexes(), customfieldmongo.Indexes(),
		peoplemongo.Indexes(), revisionmongo.Indexes(), changerequestmongo.Indexes(), jobsmongo.Indexes(operationmongo.Collection)} {
		out = append(out, ix...)
	}
	return out
}

// stores are content's stores on its database (and its search database).
type stores struct {
	people         *peoplemongo.Store
	comments       *commentmongo.Store
	fields         *customfieldmongo.Store
	revisions      *revisionmongo.Store
	changeRequests *changerequestmongo.Store
	spaces         *spacemongo.Store
	search         *searchmongo.Store
	searchDB       *mongo.Database
}

// openStores returns the stores, whose writes with events wake the outbox
// relay, once the search database has its indexes. (The files stored in
// GridFS before the blob store are moved by a migration step: see
// Migrations.)
func openStores(ctx context.Context, cfg Config, core *service.Core, blobs *blob.Store, urls links.URLs, counts *space.Counters, log *slog.Logger) (stores, error) {
	db := core.Mongo
	written := core.Relay.Notify
	// A comment or change request written changes its space's counters.
	counted := func(evs []kafkax.Event) { written(); counts.Changed(eventSpaces(evs)...) }
	st := stores{people: peoplemongo.NewStore(db.Database, urls), comments: commentmongo.NewStore(db, counted),
		fields: customfieldmongo.NewStore(db, written), changeRequests: changerequestmongo.NewStore(db, counted),
		spaces: spacemongo.NewStore(db, written), searchDB: db.Client().Database(cfg.Database + searchmongo.DatabaseSuffix),
		revisions: revisionmongo.NewStore(db.Database, blobs, revisionmongo.WithQuota(cfg.StorageQuota))}
	if err := searchmongo.EnsureIndexes(ctx, st.searchDB); err != nil {
		return st, fmt.Errorf("search indexes: %w", err)
	}
	st.search = searchmongo.NewStore(st.searchDB).
		ReadingFrom(db.Reads().Client().Database(st.searchDB.Name()))
	return st, nil
}

// eventSpaces are the spaces of comment and change request events
// (contentapi.EventSpace; "", every space, for one that names none).
func eventSpaces(evs []kafkax.Event) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i], _ = contentapi.EventSpace(ev)
	}
	return out
}

// services are content's domain services, which the routes serve.
type services struct {
	spaces         *space.Service
	comments       *comment.Service
	fields         *customfield.Service
	revisions      *revision.Service
	changeRequests *changerequest.Service
	search         *search.Service
}

// routes is content's HTTP handler: the user API under /v1, and under
// /internal/v1 the platform's reads and Git sync.
func routes(log *slog.Logger, core *service.Core, cfg Config, st stores, sv services) *gin.Engine {
	e := httpx.NewEngine(log, "content", mongox.Ping(core.Client))
	v1 := e.Group("/v1", internaltoken.Require(core.Signer), internaltoken.RequireUser)
	spacehttp.Register(v1, sv.spaces)
	commenthttp.Register(v1, sv.comments, sv.spaces)
	customfieldhttp.Register(v1, sv.fields, sv.spaces)
	var redirect revisionhttp.Redirect
	if cfg.BlobRedirect {
		redirect = func(ctx context.Context, key, contentType, disposition string) (string, error) {
			return st.revisions.BlobURL(ctx, key, limits.BlobURLTTL, contentType, disposition)
		}
	}
	revisionhttp.RegisterSpace(v1, sv.revisions, sv.spaces, redirect)
	changerequesthttp.Register(v1, sv.changeRequests, sv.spaces, sv.comments, sv.revisions, changerequesthttp.Quotas{
		Imports: quota.New("imports", limits.ImportQuota),
		PDFs:    quota.New("PDF renders", limits.PDFQuota),
	})
	searchhttp.Register(v1, sv.search, sv.spaces)
	spacehttp.RegisterInternal(e.Group("/internal/v1", internaltoken.Require(core.Signer), internaltoken.RequireUserOf(contentapi.Sites)), sv.spaces)
	// Internal APIs (the gateway routes no /internal path): published
	// sites' reads for the sites service, Git sync for the integrations service.
	internal := e.Group("/internal/v1", internaltoken.Require(core.Signer))
	readerhttp.Register(internal, sv.spaces, st.revisions, sv.revisions.Whole, sv.search, st.revisions.Usage)
	gitsynchttp.Register(internal, sv.spaces, space.NewGitImports(sv.spaces, st.revisions), st.revisions, sv.revisions.Whole, st.people)
	return e
}

// Handler returns the HTTP handler.
func (a *App) Handler() http.Handler { return a.handler }

// Database returns the service's database.
func (a *App) Database() *mongo.Database { return a.core.Mongo.Database }

// Purge removes the spaces deleted more than seven days ago (the background
// job calls it every PURGE_INTERVAL) and returns how many.
func (a *App) Purge(ctx context.Context) (int, error) { return a.spaces.Purge(ctx) }

// Collect removes the page bodies and file bytes that no revision refers
// to and that were last used more than limits.BlobGrace ago (the purge job
// calls it after purging).
func (a *App) Collect(ctx context.Context) (revisionmongo.Collected, error) {
	return a.revisions.Collect(ctx, a.now().Add(-limits.BlobGrace))
}

// Collections counts the purge job's collector runs so far.
func (a *App) Collections() int64 { return a.collections.Load() }

// RunBackground starts the outbox relay, the identity consumer, the purge
// job, the operations worker (which resumes the operations a stopped
// replica left) and the recovery of unfinished merges; they stop when ctx
// is done.
func (a *App) RunBackground(ctx context.Context) {
	a.core.RunRelay(ctx)
	// Another replica's change of a space reaches this one's cache of
	// spaces when its event does (spacemongo's TTL the backstop).
	a.core.FollowChanges(ctx, Topic, func(ev kafkax.Event) {
		if id, ok := changedSpace(ev); ok {
			a.spaceStore.Changed(id)
		}
		if org, ok := changedTree(ev); ok {
			a.spaceStore.TreeChanged(org)
		}
	})
	a.core.Go(ctx, "identity consumer", a.identity.Run)
	a.core.Go(ctx, "purge job", a.purgeEvery)
	a.core.Go(ctx, "operations worker", a.worker.Run)
	a.core.Go(ctx, "merge recovery", a.every(RecoverEvery, "recover unfinished merges", "settled unfinished merges", a.changeRequests.Recover))
	a.core.Go(ctx, "search catch-up", func(ctx context.Context) error {
		// Spaces whose index is missing or behind (indexed before the index
		// recorded revisions, Git-synced before imports were indexed, a
		// reindex that failed, or the search rebuild step still pending):
		// reindexed once, resumed after a restart.
		n, err := a.catchUp(ctx)
		if n > 0 {
			a.core.Log.InfoContext(ctx, "search index caught up", "spaces", n)
		}
		return err
	})
}

// changedSpace is the space whose cached read an event of another
// replica makes stale, and false when it makes none stale: a space.*
// event's subject, since every write of a space document that has an
// event records a space.* event of that space (spacemongo); content's
// other types change no space document. A type content does not declare
// (a newer replica's) may have changed any: "" (every space).
func changedSpace(ev kafkax.Event) (id string, ok bool) {
	if strings.HasPrefix(ev.Type, "space.") {
		return ev.Subject, true
	}
	_, known := contentapi.Events[ev.Type]
	return "", !known
}

// changedTree is the organization whose lists of spaces and collections
// ev changes ("" for every one: a type this version does not know), and
// whether it changes any.
func changedTree(ev kafkax.Event) (org string, ok bool) {
	if ev.Type == contentapi.SpaceTransferred {
		return "", true // it left an organization the event does not name
	}
	if strings.HasPrefix(ev.Type, "space.") || strings.HasPrefix(ev.Type, "collection.") {
		return ev.Organization, true
	}
	_, known := contentapi.Events[ev.Type]
	return "", !known
}

// every runs f now and then every d until ctx is done, logging what it did
// ("<did> <count>") or its failure ("<what>: err").
func (a *App) every(d time.Duration, what, did string, f func(context.Context) (int, error)) func(context.Context) error {
	return func(ctx context.Context) error {
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			if n, err := f(ctx); err != nil && ctx.Err() == nil {
				a.core.Log.ErrorContext(ctx, what, "err", err)
			} else if n > 0 {
				a.core.Log.InfoContext(ctx, did, "count", n)
			}
			select {
			case <-ctx.Done():
				return nil
			case <-t.C:
			}
		}
	}
}

// purgeEvery purges deleted spaces and collects unused blobs now and then
// every PURGE_INTERVAL until ctx is done.
func (a *App) purgeEvery(ctx context.Context) error {
	t := time.NewTicker(a.cfg.PurgeInterval)
	defer t.Stop()
	for {
		if n, err := a.Purge(ctx); err != nil && ctx.Err() == nil {
			a.core.Log.ErrorContext(ctx, "purge deleted spaces", "err", err)
		} else if n > 0 {
			a.core.Log.InfoContext(ctx, "purged deleted spaces", "count", n)
		}
		if c, err := a.Collect(ctx); err != nil && ctx.Err() == nil {
			a.core.Log.ErrorContext(ctx, "collect unused blobs", "err", err)
		} else if c.Bodies+c.Files > 0 {
			a.core.Log.InfoContext(ctx, "collected unused blobs", "page_bodies", c.Bodies, "files", c.Files)
		}
		a.collections.Add(1)
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// Close closes the Kafka publisher and consumer and the MongoDB connection.
func (a *App) Close(ctx context.Context) error {
	return a.core.Close(ctx, a.identity.Close, a.blobs.Close)
}

// Run starts the service and serves cfg.Addr until ctx is done.
func Run(ctx context.Context, cfg Config, log *slog.Logger) error {
	log.InfoContext(ctx, "starting content", "config", config.Describe(cfg))
	a, err := New(ctx, cfg, log)
	if err != nil {
		return fmt.Errorf("content: %w", err)
	}
	return service.Run(ctx, "content", cfg.Addr, a, log, a.core.Announce())
}
