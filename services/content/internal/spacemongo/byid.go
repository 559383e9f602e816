package spacemongo

import (
	"context"

	"github.com/docspub/platform/libs/docstore"
	"github.com/docspub/platform/services/content/internal/space"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// SpacesByID returns the spaces with the ids in one query.
func (s *Store) SpacesByID(ctx context.Context, ids []string) ([]space.Space, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	return docstore.Find[space.Space](ctx, s.d, Spaces, bson.M{"_id": bson.M{"$in": ids}})
}
