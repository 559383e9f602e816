package revisionmongo

import (
	"context"
	"errors"
	"fmt"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/services/content/internal/revision"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// usageDoc counts what an organization stores: _id the organization.
type usageDoc struct {
	Org   string `bson:"_id"`
	Files int64  `bson:"files"`  // bytes of blobs (each distinct blob once)
	Pages int64  `bson:"bodies"` // bytes of page bodies (markdown)
}

// addUsage adds to an organization's counts (negative: removed). The
// counts move with each insert and removal ($inc), so replicas never
// overwrite one another's.
func (s *Store) addUsage(ctx context.Context, org string, files, pages int64) error {
	if org == "" || (files == 0 && pages == 0) {
		return nil
	}
	_, err := s.db.Collection(Usage).UpdateOne(ctx, bson.M{"_id": org},
		bson.M{"$inc": bson.M{"files": files, "bodies": pages}}, options.UpdateOne().SetUpsert(true))
	if err != nil {
		return fmt.Errorf("count storage of %s: %w", org, err)
	}
	return nil
}

// Usage returns the bytes an organization stores.
func (s *Store) Usage(ctx context.Context, org string) (revision.Usage, error) {
	var d usageDoc
	err := s.db.Collection(Usage).FindOne(ctx, bson.M{"_id": org}).Decode(&d)
	if err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
		return revision.Usage{}, fmt.Errorf("read storage of %s: %w", org, err)
	}
	return revision.Usage{Organization: org, FileBytes: max(d.Files, 0), PageBytes: max(d.Pages, 0), QuotaBytes: s.quota}, nil
}

// checkQuota refuses, with a 413, adding bytes to what org stores past the
// quota.
func (s *Store) checkQuota(ctx context.Context, org string, adding int64) error {
	if s.quota <= 0 {
		return nil
	}
	u, err := s.Usage(ctx, org)
	if err != nil {
		return err
	}
	if used := u.FileBytes + u.PageBytes; used+adding > s.quota {
		return apierr.TooLarge("organization %s stores %.1f MiB of files and pages; its storage quota is %.1f MiB",
			org, float64(used)/(1<<20), float64(s.quota)/(1<<20))
	}
	return nil
}
