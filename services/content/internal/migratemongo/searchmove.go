package migratemongo

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/content/internal/searchmongo"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	mongooptions "go.mongodb.org/mongo-driver/v2/mongo/options"
)

// searchMoved marks, in the search database, that the index of the spaces
// stored before it existed has been rebuilt there (the release before the
// migration steps set it after dropping the old shards too).
const searchMoved = "moved"

// moveSearch rebuilds in the search database the index of every space
// content holds (an installation from before it had its index in its own
// database) and marks the move done; dropOldSearch, a release later,
// drops the old shards from content's database. A restart midway
// rebuilds again (a rebuild is idempotent); a fresh installation has
// nothing to rebuild. Until it is done, search finds the spaces not
// rebuilt yet only after their next merge.
func moveSearch(ctx context.Context, db, searchDB *mongo.Database, reindex Reindex) (int, error) {
	meta := searchDB.Collection("search_meta")
	if n, err := meta.CountDocuments(ctx, bson.M{"_id": searchMoved}); err != nil || n > 0 {
		return 0, mongox.Err(err, "search move")
	}
	cur, err := db.Collection("spaces").Find(ctx, bson.M{"deletedAt": bson.M{"$exists": false}, "revision": bson.M{"$gt": ""}},
		mongooptions.Find().SetProjection(bson.M{"organization": 1, "revision": 1}))
	if err != nil {
		return 0, mongox.Err(err, "search move: spaces")
	}
	defer func() { _ = cur.Close(ctx) }()
	rebuilt := 0
	for cur.Next(ctx) {
		var sp struct {
			ID           string `bson:"_id"`
			Organization string `bson:"organization"`
			Revision     string `bson:"revision"`
		}
		if err := cur.Decode(&sp); err != nil {
			return rebuilt, mongox.Err(err, "search move: spaces")
		}
		if err := moveSpace(ctx, db, searchDB, sp.ID, sp.Organization, sp.Revision, reindex); err != nil {
			return rebuilt, err
		}
		rebuilt++
	}
	if err := cur.Err(); err != nil {
		return rebuilt, mongox.Err(err, "search move: spaces")
	}
	_, err = meta.UpdateOne(ctx, bson.M{"_id": searchMoved}, bson.M{"$set": bson.M{"spaces": rebuilt}}, mongooptions.UpdateOne().SetUpsert(true))
	return rebuilt, mongox.Err(err, "search move")
}

// dropOldSearch drops the search index's old shards (search_*) from
// content's database, where the release before moveSearch kept them.
// Dropping what is gone does nothing.
func dropOldSearch(ctx context.Context, db *mongo.Database) error {
	names, err := db.ListCollectionNames(ctx, bson.M{"name": bson.M{"$regex": "^search_"}})
	if err != nil {
		return mongox.Err(err, "search move: list old shards")
	}
	for _, name := range names {
		if !strings.HasPrefix(name, "search_") {
			continue
		}
		if err := db.Collection(name).Drop(ctx); err != nil {
			return mongox.Err(err, "search move: drop "+name)
		}
	}
	return nil
}

// moveSpace indexes a space in the search database unless a merge did
// meanwhile (its record is there: what a merge indexed is as new as what
// the move would). A merge racing the move may index its revision before
// the move writes the one it read: the move reads the space again after
// writing and indexes the newer revision too, until the two agree.
func moveSpace(ctx context.Context, db, searchDB *mongo.Database, id, org, rev string, reindex Reindex) error {
	if n, err := searchDB.Collection(searchmongo.Spaces).CountDocuments(ctx, bson.M{"_id": id}); err != nil || n > 0 {
		return mongox.Err(err, "search move")
	}
	for range 3 {
		if err := reindex(ctx, org, id, rev); err != nil {
			return fmt.Errorf("search move: index space %s: %w", id, err)
		}
		var now struct {
			Organization string `bson:"organization"`
			Revision     string `bson:"revision"`
		}
		err := db.Collection("spaces").FindOne(ctx, bson.M{"_id": id}).Decode(&now)
		if errors.Is(err, mongo.ErrNoDocuments) || (err == nil && now.Revision == rev && now.Organization == org) {
			return nil
		}
		if err != nil {
			return mongox.Err(err, "search move: space "+id)
		}
		org, rev = now.Organization, now.Revision
	}
	return nil
}
