package revisionmongo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/docspub/platform/libs/blob"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Moves records, per GridFS file moved to the blob store, its new key
// (_id the GridFS id's hex): what a migration stopped half way resumes
// from. DropGridFS drops it with the GridFS bucket.
const Moves = "blob_moves"

type moveDoc struct {
	ID  string `bson:"_id"`
	Key string `bson:"key"`
}

type gridFile struct {
	ID       bson.ObjectID `bson:"_id"`
	Length   int64         `bson:"length"`
	Metadata struct {
		ContentType  string `bson:"contentType"`
		Organization string `bson:"organization"`
	} `bson:"metadata"`
}

// Migrate moves the files stored in GridFS before the blob store into it,
// once: each file's bytes under its content address (Moves records it),
// then every revision's file references to the new keys; it leaves the
// GridFS bucket and Moves (DropGridFS drops them, a release later).
// Stopped anywhere, the next run resumes:
// files already moved are not stored again, and rewriting a revision's
// references twice writes the same. moved, when not nil, is called with
// the count after each file moved. It returns how many files this run
// moved.
//
// The chunks are read in one pass in _id order (the embedded server finds
// a file's chunks only by scanning all of them): a file's chunks come in
// order there (their ids grow as the upload writes them) and are
// spooled to a temporary file until the file is whole; a file whose
// chunks come out of order is read on its own afterwards.
func (s *Store) Migrate(ctx context.Context, moved func(n int)) (int, error) {
	names, err := s.db.ListCollectionNames(ctx, bson.M{"name": bson.M{"$in": bson.A{Files, Chunks, Moves}}})
	if err != nil {
		return 0, fmt.Errorf("list collections: %w", err)
	}
	if len(names) == 0 {
		return 0, nil
	}
	keys, err := s.moves(ctx)
	if err != nil {
		return 0, err
	}
	files, err := s.gridFiles(ctx)
	if err != nil {
		return 0, err
	}
	m := &migration{s: s, keys: keys, files: files, moved: moved}
	if err := m.run(ctx); err != nil {
		return m.count, err
	}
	return m.count, s.rewriteRevisions(ctx, m.keys)
}

// DropGridFS drops the GridFS bucket and Moves once Migrate moved them:
// a step of its own, one release after Migrate's (the release before
// still finds the bucket, should it be rolled back to). Dropping what is
// gone does nothing.
func (s *Store) DropGridFS(ctx context.Context) error {
	for _, c := range []string{Files, Chunks, Moves} {
		if err := s.db.Collection(c).Drop(ctx); err != nil {
			return fmt.Errorf("drop %s: %w", c, err)
		}
	}
	return nil
}

func (s *Store) moves(ctx context.Context) (map[string]string, error) {
	cur, err := s.db.Collection(Moves).Find(ctx, bson.M{})
	if err != nil {
		return nil, fmt.Errorf("read moves: %w", err)
	}
	var docs []moveDoc
	if err := cur.All(ctx, &docs); err != nil {
		return nil, fmt.Errorf("read moves: %w", err)
	}
	out := make(map[string]string, len(docs))
	for _, d := range docs {
		out[d.ID] = d.Key
	}
	return out, nil
}

func (s *Store) gridFiles(ctx context.Context) (map[bson.ObjectID]gridFile, error) {
	cur, err := s.db.Collection(Files).Find(ctx, bson.M{},
		options.Find().SetProjection(bson.M{"length": 1, "metadata.contentType": 1, "metadata.organization": 1}))
	if err != nil {
		return nil, fmt.Errorf("read GridFS files: %w", err)
	}
	var docs []gridFile
	if err := cur.All(ctx, &docs); err != nil {
		return nil, fmt.Errorf("read GridFS files: %w", err)
	}
	out := make(map[bson.ObjectID]gridFile, len(docs))
	for _, d := range docs {
		out[d.ID] = d
	}
	return out, nil
}

type migration struct {
	s     *Store
	keys  map[string]string // GridFS hex → key, moved
	files map[bson.ObjectID]gridFile
	moved func(int)
	count int
}

// spool is a file being assembled from its chunks.
type spool struct {
	f    *os.File
	next int32
	size int64
}

func (m *migration) pending(id bson.ObjectID) bool {
	_, ok := m.files[id]
	return ok && m.keys[id.Hex()] == ""
}

// gridChunk is one chunk of a GridFS file.
type gridChunk struct {
	FilesID bson.ObjectID `bson:"files_id"`
	N       int32         `bson:"n"`
	Data    []byte        `bson:"data"`
}

// run moves every pending file: the empty ones first, then the others
// from one pass over all chunks, then those the pass could not assemble,
// each read on its own.
func (m *migration) run(ctx context.Context) error {
	left, err := m.putEmpty(ctx)
	if err != nil {
		return err
	}
	if len(left) == 0 {
		return nil
	}
	dir, err := os.MkdirTemp("", "gridfs-move-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	p := &chunkPass{m: m, dir: dir, spools: map[bson.ObjectID]*spool{}, broken: map[bson.ObjectID]bool{}}
	defer p.close()
	cur, err := m.s.db.Collection(Chunks).Find(ctx, bson.M{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}).SetBatchSize(64))
	if err != nil {
		return fmt.Errorf("read GridFS chunks: %w", err)
	}
	defer cur.Close(ctx)
	for cur.Next(ctx) {
		var c gridChunk
		if err := cur.Decode(&c); err != nil {
			return fmt.Errorf("decode GridFS chunk: %w", err)
		}
		if err := p.add(ctx, c); err != nil {
			return err
		}
	}
	if err := cur.Err(); err != nil {
		return fmt.Errorf("read GridFS chunks: %w", err)
	}
	return m.readAlone(ctx, left)
}

// putEmpty moves the pending files that are empty (they have no chunk)
// and returns the other pending ones.
func (m *migration) putEmpty(ctx context.Context) ([]bson.ObjectID, error) {
	var left []bson.ObjectID
	for id, f := range m.files {
		if m.pending(id) {
			if f.Length == 0 {
				if err := m.put(ctx, f, bytes.NewReader(nil)); err != nil {
					return nil, err
				}
				continue
			}
			left = append(left, id)
		}
	}
	return left, nil
}

// chunkPass is the one pass over all chunks in _id order: the files being
// spooled in dir, and those whose chunks came out of order (read alone
// afterwards).
type chunkPass struct {
	m      *migration
	dir    string
	spools map[bson.ObjectID]*spool
	broken map[bson.ObjectID]bool
}

// close closes the spools of files never whole.
func (p *chunkPass) close() {
	for _, sp := range p.spools {
		_ = sp.f.Close()
	}
}

// add takes the next chunk: a file of one chunk is moved at once, a
// longer one spooled until whole, then moved; a chunk out of order marks
// its file broken.
func (p *chunkPass) add(ctx context.Context, c gridChunk) error {
	m := p.m
	if !m.pending(c.FilesID) || p.broken[c.FilesID] {
		return nil
	}
	f := m.files[c.FilesID]
	sp := p.spools[c.FilesID]
	if sp == nil {
		if c.N != 0 {
			p.broken[c.FilesID] = true
			return nil
		}
		if int64(len(c.Data)) == f.Length { // one chunk: no spool
			return m.put(ctx, f, bytes.NewReader(c.Data))
		}
		tmp, err := os.CreateTemp(p.dir, "file-")
		if err != nil {
			return err
		}
		sp = &spool{f: tmp}
		p.spools[c.FilesID] = sp
	}
	if c.N != sp.next {
		p.broken[c.FilesID] = true
		_ = sp.f.Close()
		delete(p.spools, c.FilesID)
		return nil
	}
	if _, err := sp.f.Write(c.Data); err != nil {
		return err
	}
	sp.next++
	sp.size += int64(len(c.Data))
	if sp.size < f.Length {
		return nil
	}
	if _, err := sp.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	err := m.put(ctx, f, io.LimitReader(sp.f, f.Length))
	_ = sp.f.Close()
	_ = os.Remove(sp.f.Name())
	delete(p.spools, c.FilesID)
	return err
}

// readAlone moves the files whose chunks came out of order, or never
// whole, each read on its own (a file missing chunks stays behind, and
// goes with the bucket).
func (m *migration) readAlone(ctx context.Context, left []bson.ObjectID) error {
	bucket := m.s.db.GridFSBucket(options.GridFSBucket().SetName(Bucket))
	for _, id := range left {
		if !m.pending(id) {
			continue
		}
		ds, err := bucket.OpenDownloadStream(ctx, id)
		if errors.Is(err, mongo.ErrFileNotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("open GridFS file %s: %w", id.Hex(), err)
		}
		err = m.put(ctx, m.files[id], ds)
		_ = ds.Close()
		if errors.Is(err, mongo.ErrMissingChunk) || errors.Is(err, mongo.ErrWrongSize) {
			continue
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// put stores a GridFS file's bytes in the blob store and records its move.
func (m *migration) put(ctx context.Context, f gridFile, r io.Reader) error {
	org := f.Metadata.Organization
	if org == "" {
		org = "_"
	}
	o, err := m.s.blobs.Put(ctx, org, f.Metadata.ContentType, r, math.MaxInt64, func(o blob.Object) error {
		return m.s.claimBlob(ctx, org, o)
	})
	if err != nil {
		return fmt.Errorf("move GridFS file %s: %w", f.ID.Hex(), err)
	}
	if _, err := m.s.db.Collection(Moves).UpdateOne(ctx, bson.M{"_id": f.ID.Hex()}, bson.M{"$set": bson.M{"key": o.Key}},
		options.UpdateOne().SetUpsert(true)); err != nil {
		return fmt.Errorf("record move of %s: %w", f.ID.Hex(), err)
	}
	m.keys[f.ID.Hex()] = o.Key
	m.count++
	if m.moved != nil {
		m.moved(m.count)
	}
	return nil
}

// rewriteRevisions points the files of every revision at their moved
// keys. Revisions change nowhere else, so the update is by _id alone (an
// index lookup), and writing it twice writes the same.
func (s *Store) rewriteRevisions(ctx context.Context, keys map[string]string) error {
	if len(keys) == 0 {
		return nil
	}
	coll := s.db.Collection(Revisions)
	cur, err := coll.Find(ctx, bson.M{"files.0": bson.M{"$exists": true}}, options.Find().SetProjection(bson.M{"files": 1}))
	if err != nil {
		return fmt.Errorf("read revisions' files: %w", err)
	}
	defer cur.Close(ctx)
	for cur.Next(ctx) {
		var d struct {
			ID    string   `bson:"_id"`
			Files []bson.D `bson:"files"`
		}
		if err := cur.Decode(&d); err != nil {
			return fmt.Errorf("decode revision files: %w", err)
		}
		changed := false
		for _, f := range d.Files {
			for i, e := range f {
				if id, ok := e.Value.(string); ok && e.Key == "blob" && keys[id] != "" {
					f[i].Value = keys[id]
					changed = true
				}
			}
		}
		if !changed {
			continue
		}
		if _, err := coll.UpdateOne(ctx, bson.M{"_id": d.ID}, bson.M{"$set": bson.M{"files": d.Files}}); err != nil {
			return fmt.Errorf("rewrite files of revision %s: %w", d.ID, err)
		}
		s.docs.RemoveIf(func(id string, _ revisionDoc) bool { return id == d.ID })
	}
	return cur.Err()
}
