// Package revisionmongo stores revisions in MongoDB, their page bodies in
// documents of their own and file bytes in the blob store, so that no document grows
// with the content: a revision document keeps the tree and references, each
// body document at most limits.BodyChunk of markdown.
//
// Collection "revisions": one insert-only document per revision, _id the
// revision id, with space, organization, type, parents, mergedFrom, pages
// (the tree: id, kind, title, slug, emoji, description, body, pages,
// createdAt, updatedAt), files, reusableContents (id, title, body),
// redirects (path, page; absent when none), bodies (every body id the
// revision refers to, for the collector) and createdAt. A page's body is the list of ids of the body documents whose markdown,
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
// File bytes live in the blob store (libs/blob: S3-compatible storage, or
// a directory), under content-addressed keys orgs/<org>/sha256/<hex>: a
// file's blob id is its key. Collection "blobs" keeps one document per key
// (_id the key, organization, size, createdAt, usedAt, and deletingAt
// while the collector removes it); see blobs.go. Collection "org_storage"
// counts the bytes each organization stores (blobs and page bodies); see
// usage.go. Files written before the blob store lived in the GridFS
// bucket "files" (files.files, files.chunks); Migrate moves them once and
// DropGridFS drops the bucket (migrate.go; content's migration steps).
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
	"maps"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/blob"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/libs/sizedcache"
	"github.com/docspub/platform/services/content/internal/limits"
	"github.com/docspub/platform/services/content/internal/revision"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// The collections, and the GridFS bucket of files stored before the blob
// store (read only by Migrate).
const (
	Revisions = "revisions"
	Bodies    = "page_bodies"
	Blobs     = "blobs"
	Usage     = "org_storage"
	Bucket    = "files"
	// Files is the GridFS bucket's collection of file documents.
	Files = Bucket + ".files"
	// Chunks is the GridFS bucket's collection of chunks.
	Chunks = Bucket + ".chunks"
)

// batch bounds the ids of one $in query.
const batch = 500

// readBatch bounds the ids of one $in query of page bodies read, a
// revision's in one query (limits.RevisionPages, most pages being one body
// each): FerretDB's SQLite backend answers an $in by scanning the whole
// collection, once per query.
const readBatch = 2000

// fewBodies is the most body documents read one by one rather than with $in.
const fewBodies = 8

// Indexes are the indexes the store and its collector rely on.
func Indexes() []mongox.Index {
	return []mongox.Index{
		mongox.Keys(Revisions, "space"),
		mongox.Keys(Revisions, "bodies"),
		mongox.Keys(Revisions, "files.blob"),
		mongox.Keys(Bodies, "usedAt"),
		mongox.Keys(Blobs, "usedAt"),
	}
}

// Store implements revision.Store.
type Store struct {
	db    *mongo.Database
	blobs *blob.Store
	now   func() time.Time
	// quota bounds the bytes an organization stores (0: no bound).
	quota int64
	// docs keeps revision documents read or written: a revision never
	// changes (it is only deleted with its space).
	docs *sizedcache.Cache[string, revisionDoc]
}

var _ revision.Store = (*Store)(nil)

// Option changes a store.
type Option func(*Store)

// WithQuota bounds the bytes of files and page bodies an organization
// stores (0, the default: unbounded): a write past it is a 413.
func WithQuota(bytes int64) Option { return func(s *Store) { s.quota = bytes } }

// NewStore returns a store on db keeping file bytes in blobs.
func NewStore(db *mongo.Database, blobs *blob.Store, opts ...Option) *Store {
	s := &Store{db: db, blobs: blobs, now: time.Now,
		docs: sizedcache.New[string, revisionDoc](limits.RevisionCacheEntries, limits.RevisionCacheBytes).Observe("content.revisions")}
	for _, o := range opts {
		o(s)
	}
	return s
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
	// Redirects are the revision's (absent when it has none).
	Redirects []redirectDoc `bson:"redirects,omitempty"`
	// MarkdownBytes is the markdown of the pages and reusable contents
	// (absent from revisions stored before it was recorded).
	MarkdownBytes int64 `bson:"markdownBytes,omitempty"`
	Tombstone     bool  `bson:"_tombstone,omitempty"` // read only (see docstore.Live)
}

type pageDoc struct {
	ID          string   `bson:"id"`
	Kind        string   `bson:"kind"`
	Title       string   `bson:"title"`
	Slug        string   `bson:"slug"`
	Emoji       string   `bson:"emoji,omitempty"`
	Description string   `bson:"description,omitempty"`
	Icon        string   `bson:"icon,omitempty"`
	Hidden      bool     `bson:"hidden,omitempty"`
	Markdown    string   `bson:"markdown,omitempty"` // inline (revisions written before bodies moved out)
	Body        []string `bson:"body,omitempty"`     // body ids, in order
	Href        string   `bson:"href,omitempty"`     // link pages
	// Layout and Cover are a document's (revision.Page).
	Layout    *revision.Layout `bson:"layout,omitempty"`
	Cover     *revision.Cover  `bson:"cover,omitempty"`
	Pages     []pageDoc        `bson:"pages"`
	CreatedAt time.Time        `bson:"createdAt"`
	UpdatedAt time.Time        `bson:"updatedAt"`
}

type redirectDoc struct {
	Path string `bson:"path"`
	Page string `bson:"page"`
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
			Icon: p.Icon, Hidden: p.Hidden, Body: b.refs(p.Markdown), Pages: b.pages(p.Pages), CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt,
			Href: p.Href, Layout: p.Layout, Cover: p.Cover}
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
	for _, rd := range r.Redirects {
		doc.Redirects = append(doc.Redirects, redirectDoc{Path: rd.Path, Page: rd.Page})
	}
	doc.Bodies = b.ids
	doc.MarkdownBytes = int64(r.Size().Markdown)
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
	if s.quota > 0 && len(b.ids) > 0 {
		// Over its quota, an organization writes no new revision with
		// pages until it frees room (purged spaces' bytes are collected).
		if err := s.checkQuota(ctx, r.Organization, 1); err != nil {
			return err
		}
	}
	if err := s.putBodies(ctx, b); err != nil {
		return err
	}
	if err := s.useBlobs(ctx, r.Files); err != nil {
		return err
	}
	if _, err = s.db.Collection(Revisions).InsertOne(ctx, bson.Raw(raw)); err != nil {
		return mongox.Err(err, "revision")
	}
	s.docs.Add(doc.ID, doc, int64(len(raw)))
	return nil
}

// bodyBatchBytes bounds the markdown of one insert of page bodies (with
// batch, their count): well within MongoDB's 48 MB messages, and the
// memory of one round trip.
const bodyBatchBytes = 8 << 20

// putBodies makes sure every body of b is stored and marked used now. It
// inserts them in unordered batches (one round trip for up to batch
// bodies, not one each); the ones that exist already (a duplicate key) are
// marked used instead, so that the collector (which removes only bodies
// unused since its cutoff) cannot remove them before the revision refers to
// them. One that the collector removed between the insert and the mark is
// inserted again.
func (s *Store) putBodies(ctx context.Context, b *bodies) error {
	now := s.clock()
	var docs []bodyDoc
	size := 0
	for _, id := range b.ids {
		d := b.docs[id]
		if len(docs) == batch || (len(docs) > 0 && size+d.Size > bodyBatchBytes) {
			if err := s.insertBodies(ctx, docs, now); err != nil {
				return err
			}
			docs, size = docs[:0], 0
		}
		d.CreatedAt, d.UsedAt = now, now
		docs = append(docs, d)
		size += d.Size
	}
	if len(docs) > 0 {
		return s.insertBodies(ctx, docs, now)
	}
	return nil
}

// insertBodies inserts one batch of bodies, marking those that exist used now.
func (s *Store) insertBodies(ctx context.Context, docs []bodyDoc, now time.Time) error {
	coll := s.db.Collection(Bodies)
	for range 3 {
		in := make([]any, len(docs))
		for i, d := range docs {
			in[i] = d
		}
		_, err := coll.InsertMany(ctx, in, options.InsertMany().SetOrdered(false))
		dups, err := duplicates(err)
		if err != nil {
			return fmt.Errorf("store page bodies: %w", err)
		}
		added := int64(0)
		for i, d := range docs {
			if !slices.Contains(dups, i) {
				added += int64(d.Size)
			}
		}
		if err := s.addUsage(ctx, docs[0].Organization, 0, added); err != nil {
			return err
		}
		if len(dups) == 0 {
			return nil
		}
		ids := make([]string, len(dups))
		for i, n := range dups {
			ids[i] = docs[n].ID
		}
		res, err := coll.UpdateMany(ctx, bson.M{"_id": bson.M{"$in": ids}}, bson.M{"$set": bson.M{"usedAt": now}})
		if err != nil {
			return fmt.Errorf("mark page bodies used: %w", err)
		}
		if res.MatchedCount == int64(len(ids)) {
			return nil
		}
		// Some were removed meanwhile: insert those again.
		have, err := distinctIDs(ctx, coll, bson.M{"_id": bson.M{"$in": ids}})
		if err != nil {
			return fmt.Errorf("find page bodies: %w", err)
		}
		var gone []bodyDoc
		for _, n := range dups {
			if !have[docs[n].ID] {
				gone = append(gone, docs[n])
			}
		}
		if docs = gone; len(docs) == 0 {
			return nil
		}
	}
	return errors.New("store page bodies: they keep being removed while stored")
}

// duplicates returns the indexes of an unordered insert's documents that
// were refused as duplicates of existing ones; any other failure is an error.
func duplicates(err error) ([]int, error) {
	if err == nil {
		return nil, nil
	}
	var bw mongo.BulkWriteException
	if !errors.As(err, &bw) || bw.WriteConcernError != nil || len(bw.WriteErrors) == 0 {
		return nil, err
	}
	out := make([]int, 0, len(bw.WriteErrors))
	for _, we := range bw.WriteErrors {
		if !mongo.IsDuplicateKeyError(we) {
			return nil, err
		}
		out = append(out, we.Index)
	}
	return out, nil
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
	r := d.revision(text)
	for _, rc := range d.ReusableContents {
		r.ReusableContents = append(r.ReusableContents, revision.ReusableContent{ID: rc.ID, Title: rc.Title, Markdown: join(rc.Markdown, rc.Body, text)})
	}
	if d.ReusableContents != nil && r.ReusableContents == nil {
		r.ReusableContents = []revision.ReusableContent{}
	}
	return r, nil
}

// Tree returns a revision without reading its pages' bodies: each page
// carries the ids of its body documents (revision.Page.Body), which
// Markdown reads. A page of a revision written before bodies moved out
// has its markdown inline, read at once.
func (s *Store) Tree(ctx context.Context, id string) (revision.Revision, error) {
	d, err := s.doc(ctx, id, nil)
	if err != nil {
		return revision.Revision{}, err
	}
	return d.revision(nil), nil
}

// revision makes the revision of a document, its pages' markdown from text
// (nil: their body ids instead, see pagesOf, and the markdown's size),
// without reusable contents.
// Nothing of d is shared: a kept document is read by many.
func (d revisionDoc) revision(text map[string]string) revision.Revision {
	r := revision.Revision{ID: d.ID, Space: d.Space, Organization: d.Organization, Type: d.Type, Parents: slices.Clone(d.Parents),
		MergedFrom: d.MergedFrom, Pages: pagesOf(d.Pages, text), Files: slices.Clone(d.Files), CreatedAt: d.CreatedAt, Git: cloneGit(d.Git)}
	if d.Pages == nil {
		r.Pages = nil
	}
	for _, rd := range d.Redirects {
		r.Redirects = append(r.Redirects, revision.Redirect{Path: rd.Path, Page: rd.Page})
	}
	if r.Parents == nil {
		r.Parents = []string{}
	}
	if text == nil { // a tree says how much markdown reading it whole takes
		r.MarkdownBytes = d.MarkdownBytes
		if r.MarkdownBytes == 0 && len(d.Bodies) > 0 { // stored before it was recorded: at most this
			r.MarkdownBytes = min(int64(len(d.Bodies))*limits.BodyChunk, limits.RevisionMarkdown)
		}
	}
	return r
}

// Markdown reads the markdown of pages read by Tree, from their bodies.
func (s *Store) Markdown(ctx context.Context, pages []*revision.Page) error {
	var ids []string
	for _, p := range pages {
		ids = append(ids, p.Body...)
	}
	if len(ids) == 0 {
		return nil
	}
	text, err := s.readBodies(ctx, ids)
	if err != nil {
		return err
	}
	for _, p := range pages {
		if len(p.Body) > 0 {
			p.Markdown, p.Body = join("", p.Body, text), nil
		}
	}
	return nil
}

// cloneGit copies a revision's Git fields: a kept document is shared.
func cloneGit(g *revision.Git) *revision.Git {
	if g == nil {
		return nil
	}
	c := *g
	return &c
}

// doc reads a revision document, from memory when it was read or written
// here before (whole then, whatever proj asks), else from the database
// (projected when proj is not nil; only a whole one is kept).
func (s *Store) doc(ctx context.Context, id string, proj bson.M) (revisionDoc, error) {
	if d, ok := s.docs.Get(id); ok {
		return d, nil
	}
	opts := options.FindOne()
	if proj != nil {
		p := bson.M{kafkax.TombstoneField: 1}
		maps.Copy(p, proj)
		opts.SetProjection(p)
	}
	// A filter on _id alone, the tombstone checked here: FerretDB's SQLite
	// backend looks up by _id only when _id is the filter's one condition,
	// and scans (decoding every revision's tree) otherwise.
	raw, err := s.db.Collection(Revisions).FindOne(ctx, bson.M{"_id": id}, opts).Raw()
	var d revisionDoc
	if err == nil {
		err = bson.Unmarshal(raw, &d)
	}
	if err == nil && d.Tombstone {
		err = mongo.ErrNoDocuments
	}
	if err != nil {
		return revisionDoc{}, mongox.Err(err, "revision")
	}
	if proj == nil {
		s.docs.Add(id, d, int64(len(raw)))
	}
	return d, nil
}

// readBodies reads the markdown of body documents by id: a few one by one
// (an index lookup each on any server: FerretDB's SQLite backend answers an
// $in by scanning the collection, every space's bodies), more with $in.
func (s *Store) readBodies(ctx context.Context, ids []string) (map[string]string, error) {
	out := make(map[string]string, len(ids))
	if len(ids) <= fewBodies {
		for _, id := range ids {
			var d bodyDoc
			err := s.db.Collection(Bodies).FindOne(ctx, bson.M{"_id": id}, options.FindOne().SetProjection(bson.M{"markdown": 1})).Decode(&d)
			if errors.Is(err, mongo.ErrNoDocuments) {
				return nil, fmt.Errorf("page body %s is missing", id)
			}
			if err != nil {
				return nil, fmt.Errorf("read page bodies: %w", err)
			}
			out[id] = d.Markdown
		}
		return out, nil
	}
	for chunk := range slices.Chunk(ids, readBatch) {
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

// pagesOf makes the pages of a revision document with their markdown from
// text; without text (nil) each page keeps its body ids instead.
func pagesOf(ds []pageDoc, text map[string]string) []revision.Page {
	out := make([]revision.Page, len(ds))
	for i, d := range ds {
		out[i] = revision.Page{ID: d.ID, Kind: d.Kind, Title: d.Title, Slug: d.Slug, Emoji: d.Emoji, Description: d.Description,
			Icon: d.Icon, Hidden: d.Hidden, CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt, Href: d.Href, Layout: d.Layout, Cover: d.Cover}
		if text == nil && len(d.Body) > 0 {
			out[i].Body = slices.Clone(d.Body)
		} else {
			out[i].Markdown = join(d.Markdown, d.Body, text)
		}
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
	s.docs.RemoveIf(func(_ string, d revisionDoc) bool { return d.Space == spaceID })
	_, err := s.db.Collection(Revisions).DeleteMany(ctx, bson.M{"space": spaceID})
	return mongox.Err(err, "revisions")
}
