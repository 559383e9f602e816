// Package openapimongo stores OpenAPI specs in MongoDB: specs (with their
// outbox events, libs/docstore) in "openapi_specs", unique by organization
// and slug while they live; each generation's text source in
// "openapi_texts"; versions in "openapi_versions", their content in the
// GridFS bucket "openapi_content". Driver errors never leave it.
package openapimongo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/docstore"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/libs/paging"
	"github.com/docspub/platform/services/integrations/internal/openapi"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Collections and the bucket.
const (
	Specs    = "openapi_specs"
	Texts    = "openapi_texts"
	Versions = "openapi_versions"
	Bucket   = "openapi_content"
)

// Store implements openapi.Store.
type Store struct {
	ds     *docstore.Store
	bucket *mongo.GridFSBucket
}

var _ openapi.Store = (*Store)(nil)

// NewStore returns a store on db (the service's); written (nil: none) is
// called after every write that recorded an event (the relay's Notify).
func NewStore(db mongox.DB, written func()) *Store {
	return &Store{
		ds: docstore.New(db, map[string]string{Specs: "OpenAPI spec", Versions: "OpenAPI spec version",
			Texts: "OpenAPI spec source"}, docstore.Notify(written)),
		bucket: db.GridFSBucket(options.GridFSBucket().SetName(Bucket)),
	}
}

// Indexes: slugs unique per organization, lists by id, versions by spec,
// unprocessed specs by change time.
func Indexes() []mongox.Index {
	return []mongox.Index{
		mongox.Unique(Specs, "slugKey"),
		mongox.Keys(Specs, "organization", "_id"),
		mongox.Keys(Specs, "organization", "sourceURL", "_id"),
		mongox.Keys(Specs, "processingState", "updatedAt"),
		mongox.Keys(Specs, "organization", "processingState"),
		mongox.Keys(Versions, "spec", "_id"),
		mongox.Keys(Texts, "spec"),
	}
}

// Collections lists the collections whose documents carry events.
func Collections() []string { return []string{Specs} }

type text struct {
	ID         string `bson:"_id"`
	Spec       string `bson:"spec"`
	Generation int64  `bson:"generation"`
	Text       []byte `bson:"text"`
}

func textID(spec string, gen int64) string { return fmt.Sprintf("%s/%d", spec, gen) }

// putText stores the text of a generation first, so that a spec never
// names a source that is not there.
func (s *Store) putText(ctx context.Context, spec string, gen int64, t []byte) error {
	if len(t) == 0 {
		return nil
	}
	_, err := s.ds.C(Texts).ReplaceOne(ctx, bson.M{"_id": textID(spec, gen)},
		text{ID: textID(spec, gen), Spec: spec, Generation: gen, Text: t}, options.Replace().SetUpsert(true))
	return mongox.Err(err, "OpenAPI spec source")
}

// Insert stores a new spec and its text.
func (s *Store) Insert(ctx context.Context, sp openapi.Spec, t []byte, ev kafkax.Event) error {
	if err := s.putText(ctx, sp.ID, sp.Generation, t); err != nil {
		return err
	}
	return s.ds.Insert(ctx, Specs, sp, ev)
}

// BySlug returns org's live spec slug.
func (s *Store) BySlug(ctx context.Context, org, slug string) (openapi.Spec, error) {
	return docstore.FindOne[openapi.Spec](ctx, s.ds, Specs, bson.M{"slugKey": org + "/" + slug})
}

// BySourceURL returns org's first live spec (by id) whose source is the
// URL u.
func (s *Store) BySourceURL(ctx context.Context, org, u string) (openapi.Spec, error) {
	sps, _, err := docstore.Page[openapi.Spec](ctx, s.ds, Specs, bson.M{"organization": org, "sourceURL": u},
		docstore.Keyset{Field: "_id", Limit: 1})
	if err != nil {
		return openapi.Spec{}, err
	}
	if len(sps) == 0 {
		return openapi.Spec{}, apierr.NotFound("OpenAPI spec not found")
	}
	return sps[0], nil
}

// ByID returns a live spec.
func (s *Store) ByID(ctx context.Context, id string) (openapi.Spec, error) {
	return docstore.FindOne[openapi.Spec](ctx, s.ds, Specs, bson.M{"_id": id})
}

// List returns one page of org's specs by id and counts them all.
func (s *Store) List(ctx context.Context, org string, p paging.Request) ([]openapi.Spec, int, error) {
	return docstore.Page[openapi.Spec](ctx, s.ds, Specs, bson.M{"organization": org},
		docstore.Keyset{Field: "_id", AfterValue: p.AfterID, AfterID: p.AfterID, Limit: p.Limit})
}

// SetSource stores the spec's new source if its generation is still the one before.
func (s *Store) SetSource(ctx context.Context, sp openapi.Spec, t []byte, ev kafkax.Event) error {
	if err := s.putText(ctx, sp.ID, sp.Generation, t); err != nil {
		return err
	}
	set := bson.M{"generation": sp.Generation, "processingState": sp.State, "updatedAt": sp.UpdatedAt}
	upd := bson.M{"$set": set}
	if sp.SourceURL != "" {
		set["sourceURL"] = sp.SourceURL
	} else {
		upd["$unset"] = bson.M{"sourceURL": ""}
	}
	return s.ds.Update(ctx, Specs, sp.ID, bson.M{"generation": sp.Generation - 1}, upd, ev)
}

// SetVisibility writes the spec's visibility.
func (s *Store) SetVisibility(ctx context.Context, sp openapi.Spec, ev kafkax.Event) error {
	return s.ds.Update(ctx, Specs, sp.ID, nil, bson.M{"$set": bson.M{"visibility": sp.Visibility, "updatedAt": sp.UpdatedAt}}, ev)
}

// Remove tombstones the spec, frees its slug and removes its texts and
// versions (their content stays in GridFS only until the bucket is swept:
// nothing names it any more).
func (s *Store) Remove(ctx context.Context, sp openapi.Spec, ev kafkax.Event) error {
	if err := s.ds.Update(ctx, Specs, sp.ID, nil, bson.M{"$set": bson.M{
		kafkax.TombstoneField: true, "slugKey": "removed/" + sp.ID}}, ev); err != nil {
		return err
	}
	vs, err := docstore.Find[openapi.Version](ctx, s.ds, Versions, bson.M{"spec": sp.ID})
	if err != nil {
		return err
	}
	for _, v := range vs {
		for _, blob := range []string{v.Blob, v.JSONBlob} {
			if id, err := bson.ObjectIDFromHex(blob); err == nil {
				if err := s.bucket.Delete(ctx, id); err != nil && !errors.Is(err, mongo.ErrFileNotFound) {
					return fmt.Errorf("delete content of version %s: %w", v.ID, err)
				}
			}
		}
	}
	if err := s.ds.Delete(ctx, Versions, bson.M{"spec": sp.ID}); err != nil {
		return err
	}
	return s.ds.Delete(ctx, Texts, bson.M{"spec": sp.ID})
}

// Text returns the text source of a generation.
func (s *Store) Text(ctx context.Context, spec string, gen int64) ([]byte, error) {
	t, err := docstore.FindOne[text](ctx, s.ds, Texts, bson.M{"_id": textID(spec, gen)})
	return t.Text, err
}

// SetState sets the processing state while generation is current.
func (s *Store) SetState(ctx context.Context, id string, gen int64, state string) error {
	return s.ds.Update(ctx, Specs, id, bson.M{"generation": gen}, bson.M{"$set": bson.M{"processingState": state}})
}

// Finish records a processing result while its generation is current.
func (s *Store) Finish(ctx context.Context, id string, r openapi.Result, ev kafkax.Event) error {
	set := bson.M{"processingState": openapi.StateComplete, "processed": r.Generation, "lastProcessedAt": r.ProcessedAt}
	upd := bson.M{"$set": set}
	if r.ErrorCode != "" {
		set["lastProcessErrorCode"], set["lastProcessedErrors"] = r.ErrorCode, r.Errors
	} else {
		upd["$unset"] = bson.M{"lastProcessErrorCode": "", "lastProcessedErrors": ""}
	}
	if r.Version != nil {
		set["lastVersion"], set["lastDigest"] = r.Version.ID, r.Digest
	}
	if err := s.ds.Update(ctx, Specs, id, bson.M{"generation": r.Generation}, upd, ev); err != nil {
		return err
	}
	// The text of a processed generation is no longer needed.
	return s.ds.Delete(ctx, Texts, bson.M{"spec": id, "generation": bson.M{"$lt": r.Generation}})
}

// InsertVersion stores a version's content and rendering (GridFS chunks,
// so that neither meets the 16 MiB document limit), then the version; an
// existing version id (a resumed job) is kept.
func (s *Store) InsertVersion(ctx context.Context, v openapi.Version, content, rendered []byte) error {
	if _, err := docstore.FindOne[openapi.Version](ctx, s.ds, Versions, bson.M{"_id": v.ID}); err == nil {
		return nil
	}
	id, err := s.bucket.UploadFromStream(ctx, v.ID, bytes.NewReader(content))
	if err != nil {
		return fmt.Errorf("store content of version %s: %w", v.ID, err)
	}
	v.Blob = id.Hex()
	blobs := []bson.ObjectID{id}
	if rendered != nil {
		jid, err := s.bucket.UploadFromStream(ctx, v.ID+".json", bytes.NewReader(rendered))
		if err != nil {
			_ = s.bucket.Delete(ctx, id)
			return fmt.Errorf("store JSON of version %s: %w", v.ID, err)
		}
		v.JSONBlob = jid.Hex()
		blobs = append(blobs, jid)
	}
	err = s.ds.Insert(ctx, Versions, v)
	if err != nil {
		for _, b := range blobs {
			_ = s.bucket.Delete(ctx, b)
		}
	}
	if errors.Is(err, apierr.ErrConflict) {
		return nil
	}
	return err
}

// Versions returns one page of a spec's versions, newest first.
func (s *Store) Versions(ctx context.Context, spec string, p paging.Request) ([]openapi.Version, int, error) {
	return docstore.Page[openapi.Version](ctx, s.ds, Versions, bson.M{"spec": spec},
		docstore.Keyset{Field: "_id", Desc: true, AfterValue: p.AfterID, AfterID: p.AfterID, Limit: p.Limit})
}

// Version returns a version of a spec.
func (s *Store) Version(ctx context.Context, spec, id string) (openapi.Version, error) {
	return docstore.FindOne[openapi.Version](ctx, s.ds, Versions, bson.M{"_id": id, "spec": spec})
}

// Content reads a version's content.
func (s *Store) Content(ctx context.Context, v openapi.Version) ([]byte, error) {
	id, err := bson.ObjectIDFromHex(v.Blob)
	if err != nil {
		return nil, fmt.Errorf("version %s: bad blob id", v.ID)
	}
	var buf bytes.Buffer
	if _, err := s.bucket.DownloadToStream(ctx, id, &buf); err != nil {
		return nil, fmt.Errorf("read content of version %s: %w", v.ID, err)
	}
	return buf.Bytes(), nil
}

// OpenContent streams a version's content or JSON rendering from GridFS.
func (s *Store) OpenContent(ctx context.Context, v openapi.Version, rendered bool) (io.ReadCloser, int64, error) {
	hex := v.Blob
	if rendered {
		hex = v.JSONBlob
	}
	id, err := bson.ObjectIDFromHex(hex)
	if err != nil {
		return nil, 0, fmt.Errorf("version %s: bad blob id", v.ID)
	}
	st, err := s.bucket.OpenDownloadStream(ctx, id)
	if err != nil {
		return nil, 0, fmt.Errorf("open content of version %s: %w", v.ID, err)
	}
	return st, st.GetFile().Length, nil
}

// Unprocessed lists live specs whose generation was not processed, changed before t.
func (s *Store) Unprocessed(ctx context.Context, t time.Time, limit int) ([]openapi.Spec, error) {
	return docstore.Find[openapi.Spec](ctx, s.ds, Specs, bson.M{
		"processingState": bson.M{"$in": bson.A{openapi.StatePending, openapi.StateProgress}},
		"updatedAt":       bson.M{"$lt": t}}, options.Find().SetLimit(int64(limit)))
}

// Pending counts org's live specs waiting for or in processing.
func (s *Store) Pending(ctx context.Context, org string) (int, error) {
	return s.ds.Count(ctx, Specs, bson.M{"organization": org,
		"processingState": bson.M{"$in": bson.A{openapi.StatePending, openapi.StateProgress}}})
}
