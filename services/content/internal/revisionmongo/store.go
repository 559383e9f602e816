// Package revisionmongo stores revisions in MongoDB, their page bodies in
// documents of their own and file bytes in GridFS, so that no document grows
// with the content: a revision document keeps the tree and references, each
// body document at most limits.BodyChunk of markdown.
//
// Collection "revisions": one insert-only document per revision, _id the
// revision id, with space, organization, type, parents, mergedFrom, pages
// (the tree: id, kind, title, slug, emoji, description, body, pages,
// createdAt, updatedAt), files, reusableContents (id, title, body), bodies
// (every body id the revision refers to, for the collector) and createdAt.
// A page's body is the list of ids of the body documents whose markdown,
// concatenated, is the page's; revisions written before bodies moved out
// keep the markdown inline (field markdown), which reads the same. The space
// store writes a space's first revision there as a minimal document (no
// pages, files or reusable contents), which reads as an empty revision.
//
// Collection "page_bodies": content-addressed chunks of markdown, _id
// "<space>/<sha-256 of the markdown>", shared by every revision of the space
// (and by copies of them in duplicated spaces) with the same text, with
// markdown, size, their owner (space, organization), createdAt and usedAt
// (when a revision last referred to it, which the collector's grace period
// reads).
//
// GridFS bucket "files" (files.files, files.chunks) holds file bytes; a
// file's blob id is the hex of its GridFS ObjectID, and the GridFS metadata
// keeps its contentType, its owner (space, organization) and usedAt.
//
// Collect removes bodies and files that no revision refers to once they are
// older than a cutoff; see collect.go.
package revisionmongo

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/docstore"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/content/internal/limits"
	"github.com/docspub/platform/services/content/internal/revision"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// The collections and the GridFS bucket.
const (
	Revisions = "revisions"
	Bodies    = "page_bodies"
	Bucket    = "files"
	// Files is the GridFS bucket's collection of file documents.
	Files = Bucket + ".files"
)

// batch bounds the ids of one $in query.
const batch = 500

// Indexes are the indexes the store and its collector rely on (GridFS makes
// its own on first upload).
func Indexes() []mongox.Index {
	return []mongox.Index{
		mongox.Keys(Revisions, "space"),
		mongox.Keys(Revisions, "bodies"),
		mongox.Keys(Revisions, "files.blob"),
		mongox.Keys(Bodies, "usedAt"),
		mongox.Keys(Files, "uploadDate"),
	}
}

// Store implements revision.Store.
type Store struct {
	db     *mongo.Database
	bucket *mongo.GridFSBucket
	now    func() time.Time
}

var _ revision.Store = (*Store)(nil)

// NewStore returns a store on db.
func NewStore(db *mongo.Database) *Store {
	return &Store{db: db, bucket: db.GridFSBucket(options.GridFSBucket().SetName(Bucket)), now: time.Now}
}

func (s *Store) clock() time.Time { return s.now().UTC().Truncate(time.Millisecond) }

// revisionDoc is a stored revision.
type revisionDoc struct {
	ID               string          `bson:"_id"`
	Space            string          `bson:"space"`
	Organization     string          `bson:"organization"`
	Type             string          `bson:"type"`
	Parents          []string        `bson:"parents"`
	MergedFrom       string          `bson:"mergedFrom,omitempty"`
	Pages            []pageDoc       `bson:"pages"`
	Files            []revision.File `bson:"files"`
	ReusableContents []reusableDoc   `bson:"reusableContents"`
	Bodies           []string        `bson:"bodies"`
	CreatedAt        time.Time       `bson:"createdAt"`
	Git              *revision.Git   `bson:"git,omitempty"`
}

type pageDoc struct {
	ID          string    `bson:"id"`
	Kind        string    `bson:"kind"`
	Title       string    `bson:"title"`
	Slug        string    `bson:"slug"`
	Emoji       string    `bson:"emoji,omitempty"`
	Description string    `bson:"description,omitempty"`
	Icon        string    `bson:"icon,omitempty"`
	Hidden      bool      `bson:"hidden,omitempty"`
	Markdown    string    `bson:"markdown,omitempty"` // inline (revisions written before bodies moved out)
	Body        []string  `bson:"body,omitempty"`     // body ids, in order
	Pages       []pageDoc `bson:"pages"`
	CreatedAt   time.Time `bson:"createdAt"`
	UpdatedAt   time.Time `bson:"updatedAt"`
}

type reusableDoc struct {
	ID       string   `bson:"id"`
	Title    string   `bson:"title"`
	Markdown string   `bson:"markdown,omitempty"`
	Body     []string `bson:"body,omitempty"`
}

type bodyDoc struct {
	ID           string    `bson:"_id"`
	Markdown     string    `bson:"markdown"`
	Size         int       `bson:"size"`
	Space        string    `bson:"space"`
	Organization string    `bson:"organization"`
	CreatedAt    time.Time `bson:"createdAt"`
	UsedAt       time.Time `bson:"usedAt"`
}

// bodies splits the markdown of a revision into body documents.
type bodies struct {
	owner revision.Owner
	ids   []string           // distinct, in first use order
	docs  map[string]bodyDoc // by id
}

// refs stores markdown as chunks of at most limits.BodyChunk bytes, cut
// between characters, and returns their ids.
func (b *bodies) refs(md string) []string {
	var out []string
	for md != "" {
		n := min(len(md), limits.BodyChunk)
		for n < len(md) && n > 0 && !utf8.RuneStart(md[n]) {
			n--
		}
		if n == 0 {
			n = min(len(md), limits.BodyChunk)
		}
		chunk := md[:n]
		md = md[n:]
		sum := sha256.Sum256([]byte(chunk))
		id := b.owner.Space + "/" + hex.EncodeToString(sum[:])
		if _, ok := b.docs[id]; !ok {
			b.docs[id] = bodyDoc{ID: id, Markdown: chunk, Size: len(chunk), Space: b.owner.Space, Organization: b.owner.Organization}
			b.ids = append(b.ids, id)
		}
		out = append(out, id)
	}
	return out
}

func (b *bodies) pages(ps []revision.Page) []pageDoc {
	if ps == nil {
		return nil
	}
	out := make([]pageDoc, len(ps))
	for i, p := range ps {
		out[i] = pageDoc{ID: p.ID, Kind: p.Kind, Title: p.Title, Slug: p.Slug, Emoji: p.Emoji, Description: p.Description,
			Icon: p.Icon, Hidden: p.Hidden, Body: b.refs(p.Markdown), Pages: b.pages(p.Pages), CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
	}
	return out
}

// Insert stores a new revision: its bodies first, then the revision
// document that refers to them. An existing id is a conflict; a revision
// over the limits is a 413.
func (s *Store) Insert(ctx context.Context, r revision.Revision) error {
	if err := r.Check(); err != nil {
		return err
	}
	b := &bodies{owner: r.Owner(), docs: map[string]bodyDoc{}}
	doc := revisionDoc{ID: r.ID, Space: r.Space, Organization: r.Organization, Type: r.Type, Parents: r.Parents,
		MergedFrom: r.MergedFrom, Pages: b.pages(r.Pages), Files: r.Files, CreatedAt: r.CreatedAt, Git: r.Git}
	for _, rc := range r.ReusableContents {
		doc.ReusableContents = append(doc.ReusableContents, reusableDoc{ID: rc.ID, Title: rc.Title, Body: b.refs(rc.Markdown)})
	}
	doc.Bodies = b.ids
	if doc.Parents == nil {
		doc.Parents = []string{}
	}
	if doc.Pages == nil {
		doc.Pages = []pageDoc{}
	}
	if doc.Files == nil {
		doc.Files = []revision.File{}
	}
	if doc.ReusableContents == nil {
		doc.ReusableContents = []reusableDoc{}
	}
	if doc.Bodies == nil {
		doc.Bodies = []string{}
	}
	raw, err := bson.Marshal(doc)
	if err != nil {
		return fmt.Errorf("encode revision %s: %w", r.ID, err)
	}
	if len(raw) > limits.RevisionDocument {
		return apierr.TooLarge("the revision's page tree and files take %d KiB; at most %d KiB", len(raw)>>10, limits.RevisionDocument>>10)
	}
	if err := s.putBodies(ctx, b); err != nil {
		return err
	}
	if err := s.useBlobs(ctx, r.Files); err != nil {
		return err
	}
	_, err = s.db.Collection(Revisions).InsertOne(ctx, bson.Raw(raw))
	return mongox.Err(err, "revision")
}

// putBodies makes sure every body of b is stored and marked used now: it
// marks the existing ones first, so that the collector (which removes only
// bodies unused since its cutoff) cannot remove them before the revision
// refers to them, then inserts the missing ones.
func (s *Store) putBodies(ctx context.Context, b *bodies) error {
	now := s.clock()
	coll := s.db.Collection(Bodies)
	for ids := range slices.Chunk(b.ids, batch) {
		if _, err := coll.UpdateMany(ctx, bson.M{"_id": bson.M{"$in": ids}}, bson.M{"$set": bson.M{"usedAt": now}}); err != nil {
			return fmt.Errorf("mark page bodies used: %w", err)
		}
		have, err := distinctIDs(ctx, coll, bson.M{"_id": bson.M{"$in": ids}})
		if err != nil {
			return fmt.Errorf("find page bodies: %w", err)
		}
		for _, id := range ids {
			if have[id] {
				continue
			}
			d := b.docs[id]
			d.CreatedAt, d.UsedAt = now, now
			if _, err := coll.InsertOne(ctx, d); err != nil && !mongo.IsDuplicateKeyError(err) {
				return fmt.Errorf("store page body: %w", err)
			}
		}
	}
	return nil
}

// useBlobs marks the files' blobs used now, for the collector's grace.
func (s *Store) useBlobs(ctx context.Context, files []revision.File) error {
	var oids []bson.ObjectID
	for _, f := range files {
		if oid, err := bson.ObjectIDFromHex(f.Blob); err == nil {
			oids = append(oids, oid)
		}
	}
	now := s.clock()
	for ids := range slices.Chunk(oids, batch) {
		if _, err := s.db.Collection(Files).UpdateMany(ctx, bson.M{"_id": bson.M{"$in": ids}},
			bson.M{"$set": bson.M{"metadata.usedAt": now}}); err != nil {
			return fmt.Errorf("mark files used: %w", err)
		}
	}
	return nil
}

// distinctIDs returns the _id of the documents matching f.
func distinctIDs(ctx context.Context, coll *mongo.Collection, f bson.M) (map[string]bool, error) {
	cur, err := coll.Find(ctx, f, options.Find().SetProjection(bson.M{"_id": 1}))
	if err != nil {
		return nil, err
	}
	var rows []struct {
		ID string `bson:"_id"`
	}
	if err := cur.All(ctx, &rows); err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(rows))
	for _, r := range rows {
		out[r.ID] = true
	}
	return out, nil
}

// Get reads a revision with its page bodies; a missing one is "revision
// not found".
func (s *Store) Get(ctx context.Context, id string) (revision.Revision, error) {
	d, err := s.doc(ctx, id, nil)
	if err != nil {
		return revision.Revision{}, err
	}
	text, err := s.readBodies(ctx, d.Bodies)
	if err != nil {
		return revision.Revision{}, fmt.Errorf("revision %s: %w", id, err)
	}
	r := revision.Revision{ID: d.ID, Space: d.Space, Organization: d.Organization, Type: d.Type, Parents: d.Parents,
		MergedFrom: d.MergedFrom, Pages: pagesOf(d.Pages, text), Files: d.Files, CreatedAt: d.CreatedAt, Git: d.Git}
	if d.Pages == nil {
		r.Pages = nil
	}
	if r.Parents == nil {
		r.Parents = []string{}
	}
	for _, rc := range d.ReusableContents {
		r.ReusableContents = append(r.ReusableContents, revision.ReusableContent{ID: rc.ID, Title: rc.Title, Markdown: join(rc.Markdown, rc.Body, text)})
	}
	if d.ReusableContents != nil && r.ReusableContents == nil {
		r.ReusableContents = []revision.ReusableContent{}
	}
	return r, nil
}

// doc reads a revision document (projected when proj is not nil).
func (s *Store) doc(ctx context.Context, id string, proj bson.M) (revisionDoc, error) {
	var d revisionDoc
	opts := options.FindOne()
	if proj != nil {
		opts.SetProjection(proj)
	}
	err := s.db.Collection(Revisions).FindOne(ctx, docstore.Live(bson.M{"_id": id}), opts).Decode(&d)
	if err != nil {
		return revisionDoc{}, mongox.Err(err, "revision")
	}
	return d, nil
}

// readBodies reads the markdown of body documents by id.
func (s *Store) readBodies(ctx context.Context, ids []string) (map[string]string, error) {
	out := make(map[string]string, len(ids))
	for chunk := range slices.Chunk(ids, batch) {
		cur, err := s.db.Collection(Bodies).Find(ctx, bson.M{"_id": bson.M{"$in": chunk}},
			options.Find().SetProjection(bson.M{"markdown": 1}))
		if err != nil {
			return nil, fmt.Errorf("read page bodies: %w", err)
		}
		var docs []bodyDoc
		if err := cur.All(ctx, &docs); err != nil {
			return nil, fmt.Errorf("read page bodies: %w", err)
		}
		for _, d := range docs {
			out[d.ID] = d.Markdown
		}
	}
	for _, id := range ids {
		if _, ok := out[id]; !ok {
			return nil, fmt.Errorf("page body %s is missing", id)
		}
	}
	return out, nil
}

func pagesOf(ds []pageDoc, text map[string]string) []revision.Page {
	out := make([]revision.Page, len(ds))
	for i, d := range ds {
		out[i] = revision.Page{ID: d.ID, Kind: d.Kind, Title: d.Title, Slug: d.Slug, Emoji: d.Emoji, Description: d.Description,
			Icon: d.Icon, Hidden: d.Hidden, Markdown: join(d.Markdown, d.Body, text), CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt}
		if d.Pages != nil {
			out[i].Pages = pagesOf(d.Pages, text)
		}
	}
	return out
}

// join is the markdown of inline text or body ids.
func join(inline string, ids []string, text map[string]string) string {
	if len(ids) == 0 {
		return inline
	}
	if len(ids) == 1 {
		return text[ids[0]]
	}
	n := 0
	for _, id := range ids {
		n += len(text[id])
	}
	b := make([]byte, 0, n)
	for _, id := range ids {
		b = append(b, text[id]...)
	}
	return string(b)
}

// HasPage reports whether a revision has a page, reading only its tree.
// A missing revision has no pages.
func (s *Store) HasPage(ctx context.Context, revisionID, pageID string) (bool, error) {
	d, err := s.doc(ctx, revisionID, bson.M{"pages": 1})
	if errors.Is(err, apierr.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	var find func([]pageDoc) bool
	find = func(ps []pageDoc) bool {
		for _, p := range ps {
			if p.ID == pageID || find(p.Pages) {
				return true
			}
		}
		return false
	}
	return find(d.Pages), nil
}

// DeleteSpace removes every revision of a purged space. Their bodies and
// file bytes stay until the collector finds no revision referring to them:
// the copies of a duplicated space share them.
func (s *Store) DeleteSpace(ctx context.Context, spaceID string) error {
	_, err := s.db.Collection(Revisions).DeleteMany(ctx, bson.M{"space": spaceID})
	return mongox.Err(err, "revisions")
}

// PutBlob streams r into GridFS, recording owner, and returns the blob id
// and its size.
func (s *Store) PutBlob(ctx context.Context, owner revision.Owner, name, contentType string, r io.Reader) (string, int64, error) {
	cr := &counter{r: r}
	opts := options.GridFSUpload().SetMetadata(bson.D{{Key: "contentType", Value: contentType},
		{Key: "space", Value: owner.Space}, {Key: "organization", Value: owner.Organization}, {Key: "usedAt", Value: s.clock()}})
	id, err := s.bucket.UploadFromStream(ctx, name, cr, opts)
	if err != nil {
		return "", 0, fmt.Errorf("store blob %q: %w", name, err)
	}
	return id.Hex(), cr.n, nil
}

// OpenBlob streams a blob's bytes; a missing one is "file not found".
func (s *Store) OpenBlob(ctx context.Context, id string) (io.ReadCloser, error) {
	oid, err := bson.ObjectIDFromHex(id)
	if err != nil {
		return nil, apierr.NotFound("file not found")
	}
	ds, err := s.bucket.OpenDownloadStream(ctx, oid)
	if errors.Is(err, mongo.ErrFileNotFound) {
		return nil, apierr.NotFound("file not found")
	}
	if err != nil {
		return nil, fmt.Errorf("open blob %s: %w", id, err)
	}
	return ds, nil
}

// counter counts the bytes read through it.
type counter struct {
	r io.Reader
	n int64
}

func (c *counter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
