package revisionmongo

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Collected counts what Collect removed.
type Collected struct {
	Bodies int // page-body documents
	Files  int // GridFS files
}

// Collect removes the page bodies and GridFS files that no revision refers
// to and that were last used (written, or referred to by a new revision)
// before cutoff: those of purged spaces, of imports that stopped before
// writing their revision, and the images a re-import downloaded again and
// then dropped for the copy the revision already had. The grace between
// cutoff and now protects what an import still in progress wrote but has
// not yet referred to: Insert marks every body and file it refers to used
// before writing the revision, and a removal applies only to what is still
// unused since cutoff.
//
// It works in batches and may run in several replicas at once; stopped half
// way, it leaves only what the next run removes.
func (s *Store) Collect(ctx context.Context, cutoff time.Time) (Collected, error) {
	var c Collected
	var err error
	if c.Bodies, err = s.collectBodies(ctx, cutoff); err != nil {
		return c, err
	}
	c.Files, err = s.collectFiles(ctx, cutoff)
	return c, err
}

func (s *Store) collectBodies(ctx context.Context, cutoff time.Time) (int, error) {
	bodies := s.db.Collection(Bodies)
	removed, after := 0, ""
	for {
		var rows []struct {
			ID string `bson:"_id"`
		}
		cur, err := bodies.Find(ctx, bson.M{"usedAt": bson.M{"$lt": cutoff}, "_id": bson.M{"$gt": after}},
			options.Find().SetProjection(bson.M{"_id": 1}).SetSort(bson.D{{Key: "_id", Value: 1}}).SetLimit(batch))
		if err == nil {
			err = cur.All(ctx, &rows)
		}
		if err != nil {
			return removed, fmt.Errorf("find unused page bodies: %w", err)
		}
		if len(rows) == 0 {
			return removed, nil
		}
		ids := make([]string, len(rows))
		for i, r := range rows {
			ids[i] = r.ID
		}
		after = ids[len(ids)-1]
		used, err := s.referenced(ctx, "bodies", ids)
		if err != nil {
			return removed, err
		}
		var gone []string
		for _, id := range ids {
			if !used[id] {
				gone = append(gone, id)
			}
		}
		if len(gone) == 0 {
			continue
		}
		res, err := bodies.DeleteMany(ctx, bson.M{"_id": bson.M{"$in": gone}, "usedAt": bson.M{"$lt": cutoff}})
		if err != nil {
			return removed, fmt.Errorf("remove unused page bodies: %w", err)
		}
		removed += int(res.DeletedCount)
	}
}

// referenced returns which of ids a revision refers to in field (an array
// of ids, or of documents with the ids at the dotted path).
func (s *Store) referenced(ctx context.Context, field string, ids []string) (map[string]bool, error) {
	cur, err := s.db.Collection(Revisions).Find(ctx, bson.M{field: bson.M{"$in": ids}},
		options.Find().SetProjection(bson.M{field: 1}))
	if err != nil {
		return nil, fmt.Errorf("find revisions referring to %s: %w", field, err)
	}
	var docs []struct {
		Bodies []string `bson:"bodies"`
		Files  []struct {
			Blob string `bson:"blob"`
		} `bson:"files"`
	}
	if err := cur.All(ctx, &docs); err != nil {
		return nil, fmt.Errorf("read revisions referring to %s: %w", field, err)
	}
	want := make(map[string]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	used := map[string]bool{}
	for _, d := range docs {
		for _, id := range d.Bodies {
			if want[id] {
				used[id] = true
			}
		}
		for _, f := range d.Files {
			if want[f.Blob] {
				used[f.Blob] = true
			}
		}
	}
	return used, nil
}

// unusedFile is the condition of a GridFS file last used before cutoff.
func unusedFile(cutoff time.Time) bson.M {
	return bson.M{"uploadDate": bson.M{"$lt": cutoff}, "$or": bson.A{
		bson.M{"metadata.usedAt": bson.M{"$exists": false}},
		bson.M{"metadata.usedAt": bson.M{"$lt": cutoff}},
	}}
}

func (s *Store) collectFiles(ctx context.Context, cutoff time.Time) (int, error) {
	files := s.db.Collection(Files)
	chunks := s.db.Collection(Bucket + ".chunks")
	removed := 0
	var after bson.ObjectID
	for {
		f := unusedFile(cutoff)
		f["_id"] = bson.M{"$gt": after}
		var rows []struct {
			ID bson.ObjectID `bson:"_id"`
		}
		cur, err := files.Find(ctx, f, options.Find().SetProjection(bson.M{"_id": 1}).
			SetSort(bson.D{{Key: "_id", Value: 1}}).SetLimit(batch))
		if err == nil {
			err = cur.All(ctx, &rows)
		}
		if err != nil {
			return removed, fmt.Errorf("find unused files: %w", err)
		}
		if len(rows) == 0 {
			return removed, nil
		}
		after = rows[len(rows)-1].ID
		hexes := make([]string, len(rows))
		for i, r := range rows {
			hexes[i] = r.ID.Hex()
		}
		used, err := s.referenced(ctx, "files.blob", hexes)
		if err != nil {
			return removed, err
		}
		for _, r := range rows {
			if used[r.ID.Hex()] {
				continue
			}
			one := unusedFile(cutoff)
			one["_id"] = r.ID
			res, err := files.DeleteOne(ctx, one)
			if err != nil {
				return removed, fmt.Errorf("remove file %s: %w", r.ID.Hex(), err)
			}
			if res.DeletedCount == 0 {
				continue // used meanwhile
			}
			if _, err := chunks.DeleteMany(ctx, bson.M{"files_id": r.ID}); err != nil {
				return removed, fmt.Errorf("remove chunks of file %s: %w", r.ID.Hex(), err)
			}
			removed++
		}
	}
}
