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
	Files  int // blobs
}

// Collect removes the page bodies and blobs that no revision refers
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
	if c.Files, err = s.collectFiles(ctx, cutoff); err != nil {
		return c, err
	}
	// What Puts that stopped half way left in the blob store.
	_, err = s.blobs.CleanTmp(ctx, cutoff)
	return c, err
}

func (s *Store) collectBodies(ctx context.Context, cutoff time.Time) (int, error) {
	bodies := s.db.Collection(Bodies)
	removed, after := 0, ""
	for {
		var rows []struct {
			ID           string `bson:"_id"`
			Size         int64  `bson:"size"`
			Organization string `bson:"organization"`
		}
		cur, err := bodies.Find(ctx, bson.M{"usedAt": bson.M{"$lt": cutoff}, "_id": bson.M{"$gt": after}},
			options.Find().SetProjection(bson.M{"_id": 1, "size": 1, "organization": 1}).SetSort(bson.D{{Key: "_id", Value: 1}}).SetLimit(batch))
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
		freed := map[string]int64{}
		for _, r := range rows {
			if !used[r.ID] {
				gone = append(gone, r.ID)
				freed[r.Organization] += r.Size
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
		// Another replica may have removed some of them: count off this
		// run's share.
		for org, n := range freed {
			if err := s.addUsage(ctx, org, 0, -n*res.DeletedCount/int64(len(gone))); err != nil {
				return removed, err
			}
		}
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

func (s *Store) collectFiles(ctx context.Context, cutoff time.Time) (int, error) {
	coll := s.db.Collection(Blobs)
	removed, after := 0, ""
	for {
		var rows []blobDoc
		cur, err := coll.Find(ctx, bson.M{"usedAt": bson.M{"$lt": cutoff}, "_id": bson.M{"$gt": after}},
			options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}).SetLimit(batch))
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
		keys := make([]string, len(rows))
		for i, r := range rows {
			keys[i] = r.ID
		}
		used, err := s.referenced(ctx, "files.blob", keys)
		if err != nil {
			return removed, err
		}
		for _, r := range rows {
			if used[r.ID] {
				continue
			}
			ok, err := s.removeBlob(ctx, r, cutoff)
			if err != nil {
				return removed, err
			}
			if ok {
				removed++
			}
		}
	}
}

// removeBlob removes an unused blob: claims its document (deletingAt, by
// compare-and-set on a usedAt still before cutoff: a write or a revision
// that needed it since keeps it), removes the bytes, then the document,
// and counts the bytes off its organization. Stopped half way, the claim
// stays: the next run (or a write, once the claim is stale) takes it on.
func (s *Store) removeBlob(ctx context.Context, d blobDoc, cutoff time.Time) (bool, error) {
	coll := s.db.Collection(Blobs)
	claim := d.DeletingAt
	if claim == nil {
		now := s.clock()
		res, err := coll.UpdateOne(ctx, bson.M{"_id": d.ID, "usedAt": bson.M{"$lt": cutoff}, "deletingAt": bson.M{"$exists": false}},
			bson.M{"$set": bson.M{"deletingAt": now}})
		if err != nil {
			return false, fmt.Errorf("claim file %s: %w", d.ID, err)
		}
		if res.MatchedCount == 0 {
			return false, nil // used meanwhile
		}
		claim = &now
	}
	if err := s.blobs.Delete(ctx, d.ID); err != nil {
		return false, err
	}
	res, err := coll.DeleteOne(ctx, bson.M{"_id": d.ID, "deletingAt": *claim})
	if err != nil {
		return false, fmt.Errorf("remove file %s: %w", d.ID, err)
	}
	if res.DeletedCount == 0 {
		return false, nil // a write took a stale claim over (and wrote the bytes again)
	}
	return true, s.addUsage(ctx, d.Organization, -d.Size, 0)
}
