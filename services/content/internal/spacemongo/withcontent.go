package spacemongo

import (
	"context"

	"github.com/docspub/platform/libs/docstore"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/services/content/internal/space"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// WithContent returns up to limit spaces that have content (a revision)
// and are not purged (deleted ones too, which a restore brings back), in
// id order after the id after, each with its id, organization and
// revision only: what the search index catches up on.
func (s *Store) WithContent(ctx context.Context, after string, limit int) ([]space.Space, error) {
	f := kafkax.Live()
	f["_id"] = bson.M{"$gt": after}
	f["revision"] = bson.M{"$gt": ""}
	return docstore.Find[space.Space](ctx, s.d, Spaces, f, options.Find().
		SetProjection(bson.M{"organization": 1, "revision": 1}).SetSort(bson.D{{Key: "_id", Value: 1}}).SetLimit(int64(limit)))
}
