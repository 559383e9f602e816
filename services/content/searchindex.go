package content

import (
	"context"
	"errors"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/content/internal/revision"
	"github.com/docspub/platform/services/content/internal/revisionmongo"
	"github.com/docspub/platform/services/content/internal/search"
	"github.com/docspub/platform/services/content/internal/space"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	mongooptions "go.mongodb.org/mongo-driver/v2/mongo/options"
)

// searchHeads tells the search indexer where the spaces' content is
// (search.Spaces): a space by id from the space store, and the pages of
// spaces by id straight from content's spaces collection.
type searchHeads struct {
	spaces interface {
		Space(ctx context.Context, id string) (space.Space, error)
	}
	db *mongo.Database
}

func (h searchHeads) Head(ctx context.Context, id string) (search.Head, error) {
	sp, err := h.spaces.Space(ctx, id)
	if err != nil {
		return search.Head{}, err
	}
	if sp.Revision == "" {
		return search.Head{}, apierr.NotFound("space %s has no content", id)
	}
	return search.Head{Space: sp.ID, Organization: sp.Organization, Revision: sp.Revision}, nil
}

func (h searchHeads) Heads(ctx context.Context, after string, limit int) ([]search.Head, error) {
	f := kafkax.Live()
	f["_id"] = bson.M{"$gt": after}
	f["revision"] = bson.M{"$gt": ""}
	cur, err := h.db.Collection("spaces").Find(ctx, f, mongooptions.Find().
		SetProjection(bson.M{"organization": 1, "revision": 1}).SetSort(bson.M{"_id": 1}).SetLimit(int64(limit)))
	if err != nil {
		return nil, mongox.Err(err, "space heads")
	}
	var docs []struct {
		ID           string `bson:"_id"`
		Organization string `bson:"organization"`
		Revision     string `bson:"revision"`
	}
	if err := cur.All(ctx, &docs); err != nil {
		return nil, mongox.Err(err, "space heads")
	}
	out := make([]search.Head, len(docs))
	for i, d := range docs {
		out[i] = search.Head{Space: d.ID, Organization: d.Organization, Revision: d.Revision}
	}
	return out, nil
}

// revisionPages reads the pages of a revision for the search indexer.
func revisionPages(store *revisionmongo.Store) search.Pages {
	return func(ctx context.Context, id string) ([]revision.Page, error) {
		r, err := store.Get(ctx, id)
		if errors.Is(err, apierr.ErrNotFound) {
			return nil, err
		}
		return r.Pages, err
	}
}
