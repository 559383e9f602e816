// Package migratemongo holds content's migration steps (libs/migrate) on
// its MongoDB databases: copying GridFS files to the blob store, moving
// the search index to its own database, and the destructive steps that
// drop what those copied, a release later.
package migratemongo

import (
	"context"

	"github.com/docspub/platform/libs/migrate"
	"github.com/docspub/platform/services/content/internal/revisionmongo"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// The versions of content's migration steps (libs/migrate; recorded in
// its database's _migrations). A step that destroys data ships one
// release after the step that copied it: 3 and 4 are destructive, applied
// only by `content migrate --destructive` once no replica of the release
// before them runs (deployments/docs/operations/upgrades.md).
const (
	StepCopyGridFS    = 1 // GridFS files to the blob store, revisions pointed at them
	StepRebuildSearch = 2 // the search index rebuilt in CONTENT_DB_search
	StepDropGridFS    = 3 // destructive: the GridFS bucket and its moves
	StepDropOldSearch = 4 // destructive: the old search shards in CONTENT_DB

	// SchemaVersion is the highest step: service.Open refuses a database
	// a newer binary migrated past it.
	SchemaVersion = StepDropOldSearch
)

// Reindex indexes one space at a revision.
type Reindex func(ctx context.Context, org, space, rev string) error

// Steps are content's migration steps, in order. The files step is
// not compatible (this binary reads no GridFS file: it must run before
// serving); the search rebuild is (until it is done, search finds an old
// space after its next merge).
func Steps(revisions *revisionmongo.Store, searchDB *mongo.Database, reindex Reindex) []migrate.Step {
	return []migrate.Step{
		{Version: StepCopyGridFS, Name: "copy GridFS files to the blob store", Run: func(ctx context.Context, _ *mongo.Database) error {
			_, err := revisions.Migrate(ctx, nil)
			return err
		}},
		{Version: StepRebuildSearch, Name: "rebuild the search index in its own database", Compatible: true,
			Run: func(ctx context.Context, db *mongo.Database) error {
				_, err := moveSearch(ctx, db, searchDB, reindex)
				return err
			}},
		{Version: StepDropGridFS, Name: "drop the GridFS bucket", Destructive: true, Run: func(ctx context.Context, _ *mongo.Database) error {
			return revisions.DropGridFS(ctx)
		}},
		{Version: StepDropOldSearch, Name: "drop the old search shards", Destructive: true, Run: dropOldSearch},
	}
}
