package content

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/docspub/platform/libs/blob"
	"github.com/docspub/platform/libs/config"
	"github.com/docspub/platform/libs/migrate"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/content/internal/migratemongo"
	"github.com/docspub/platform/services/content/internal/revisionmongo"
	"github.com/docspub/platform/services/content/internal/search"
	"github.com/docspub/platform/services/content/internal/searchmongo"
	"github.com/docspub/platform/services/content/internal/spacemongo"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// MigrateConfig is what `content migrate` reads from the environment:
// the database and the blob store, no Kafka nor internal tokens (the init
// container that runs it gets only these).
type MigrateConfig struct {
	MongoURI            string `env:"MONGO_URI, default=mongodb://127.0.0.1:27017"`
	Database            string `env:"CONTENT_DB, default=content"`
	BlobURL             string `env:"BLOB_URL"`
	BlobAccessKeyID     string `env:"BLOB_ACCESS_KEY_ID" secret:"true"`
	BlobSecretAccessKey string `env:"BLOB_SECRET_ACCESS_KEY" secret:"true"`
	LogLevel            string `env:"LOG_LEVEL, default=info"`
}

// Validate reports every problem of the configuration at once.
func (c MigrateConfig) Validate() error {
	var p config.Problems
	p.Require("MONGO_URI", c.MongoURI)
	p.Require("CONTENT_DB", c.Database)
	p.LogLevel("LOG_LEVEL", c.LogLevel)
	checkBlob(&p, c.BlobURL, c.BlobAccessKeyID, c.BlobSecretAccessKey)
	return p.Err()
}

// Migration is the part of the service's configuration that migrating reads.
func (c Config) Migration() MigrateConfig {
	return MigrateConfig{MongoURI: c.MongoURI, Database: c.Database,
		BlobURL: c.BlobURL, BlobAccessKeyID: c.BlobAccessKeyID, BlobSecretAccessKey: c.BlobSecretAccessKey, LogLevel: c.LogLevel}
}

// Migrate applies content's pending migration steps (the one-shot
// `content migrate`; destructive adds the destructive ones) and returns
// the versions it applied. Runners started together apply each step once
// (libs/migrate's lease). It wires only what the steps use: the database
// with content's indexes, the blob store and the search index.
func Migrate(ctx context.Context, cfg MigrateConfig, log *slog.Logger, destructive bool) ([]int, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	client, err := mongox.Connect(ctx, cfg.MongoURI)
	if err != nil {
		return nil, err
	}
	defer func() { _ = client.Disconnect(context.WithoutCancel(ctx)) }()
	db := mongox.NewDB(client.Database(cfg.Database))
	searchDB := client.Database(cfg.Database + searchmongo.DatabaseSuffix)
	if err := mongox.EnsureIndexes(ctx, db.Database, indexes()...); err != nil {
		return nil, err
	}
	if err := searchmongo.EnsureIndexes(ctx, searchDB); err != nil {
		return nil, fmt.Errorf("search indexes: %w", err)
	}
	blobs, err := blob.Open(ctx, cfg.BlobURL, blob.Options{AccessKeyID: cfg.BlobAccessKeyID, SecretAccessKey: cfg.BlobSecretAccessKey})
	if err != nil {
		return nil, err
	}
	defer func() { _ = blobs.Close() }()
	revisions := revisionmongo.NewStore(db.Database, blobs)
	indexer := search.NewIndexer(searchmongo.NewStore(searchDB),
		searchHeads{spaces: spacemongo.NewStore(db, func() {})}, revisionPages(revisions))
	reindex := func(ctx context.Context, _, space, _ string) error { return indexer.Reindex(ctx, space) }
	return migrate.Runner{DB: db.Database, Service: "content", Steps: migratemongo.Steps(revisions, searchDB, reindex),
		Log: log, Destructive: destructive}.Apply(ctx)
}

// schema applies the pending steps when the process migrates in-process
// (WithMigrations: the local runner), then checks the database's schema:
// newer than the binary's, or with a step it needs pending, it refuses.
func schema(ctx context.Context, db *mongo.Database, log *slog.Logger, o options, steps []migrate.Step) error {
	if o.migrate {
		applied, err := migrate.Runner{DB: db, Service: "content", Steps: steps, Log: log, Destructive: o.destructive}.Apply(ctx)
		if err != nil {
			return err
		}
		if len(applied) > 0 {
			log.InfoContext(ctx, "migration steps applied", "versions", applied)
		}
	}
	return migrate.Check(ctx, db, "content", steps)
}
