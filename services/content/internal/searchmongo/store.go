// Package searchmongo stores content's search index in MongoDB.
//
// Postings are kept as one posting list per organization, term and space
// (_id "<organization>/<term>/<space>"), holding the space's postings {page,
// section, weight} of the term (at most search.MaxPostingsPerTerm), and a
// page's metadata as one document per page (_id "<space>/<page>"). A query
// reads the posting lists of its terms in the organization and then the
// metadata of the pages it shows, each by _id. Every document is bounded
// whatever the size of the organization: a list shared by all the spaces of
// an organization (the layout before, recorded as layout 0 and still read)
// grew with its spaces past MongoDB's 16 MiB for a common term.
//
// Both are sharded over Shards collections (search_postings_000 ..
// search_postings_255, search_pages_000 .. search_pages_255), the shard chosen
// by a stable hash (FNV-1a) of the term (of its first term for a phrase),
// or of the page's "<space>/<page>" key. The reason is FerretDB v1, the embedded server of tests and local
// runs: on its SQLite backend every query reads and decodes every document
// of the collection, even an exact _id lookup (its SQL filter on the _id of
// the stored JSON does not use its own _id index). One collection of all
// terms made each query term a scan of the whole index. A shard holds about
// 1/Shards of the data, so a query reads only the shards of its terms and
// pages, at most one query per shard touched, run in parallel. On MongoDB
// every lookup of a shard is a hit of its _id index, so the sharding costs
// nothing but more, smaller collections; indexes are created on every
// shard (Indexes). Shards is 256 rather than fewer for the pages: a query
// shows up to ten pages of each space found, and FerretDB filters an exact
// _id in SQLite but decodes every document of the shard in Go for an $in,
// so shards should be small and a query's pages rarely share one (measured
// on 10,000 pages: p50 1.7 s unsharded, 0.8 s with 64 shards, 0.3 s with 256).
//
// A space's entries are replaced by writing only the terms and pages whose
// content changed (each space's lists are its own documents, so spaces
// indexed at the same time never overwrite each other's postings),
// with what was indexed recorded per space in search_spaces: the hashes of
// its pages and terms, the shard count they were placed with and the shards
// holding its entries. The record is marked pending, with the shards about
// to be written added, before any entry is written; a pending record (an
// interrupted replace) makes the next replace or removal find the space's
// entries by a query of each recorded shard, so none is left behind.
//
// Reads go through a cache of posting lists and pages, bounded in bytes,
// whose keys hold their space's generation: a token, kept per space in its
// organization's document of search_orgs, that every write of a space's
// entries replaces once it is done. A query reads the generations of the
// organization's spaces (one lookup by _id, itself kept for at most
// generationsTTL) and then only what the cache lacks, so repeated and
// popular terms cost no other query, and a change made by a replica is
// seen by its next query and by every other replica's within
// generationsTTL: entries cached under an older generation are never read
// again, and those of the organization's other spaces stay.
package searchmongo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/docspub/platform/libs/generations"
	"github.com/docspub/platform/libs/ids"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/libs/sizedcache"
	"github.com/docspub/platform/services/content/internal/search"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// DatabaseSuffix names the database of content's search index: CONTENT_DB
// plus this. The index is 513 collections (its shards); in the service's
// own database they made every query of the embedded server slower, which
// lists a database's collections on each find (a space read by _id took
// 2.4 ms with them, about 1 ms without).
const DatabaseSuffix = "_search"

// The collections. Postings and Pages are the name prefixes of the shards:
// shard i of postings is "search_postings_%03d".
const (
	// Postings holds {_id: org/term/space, organization, term, space, postings}.
	Postings = "search_postings"
	// Pages holds one document per indexed page and its sections, _id
	// "<space>/<page>" (see pageDoc).
	Pages = "search_pages"
	// Spaces holds what is indexed of a space (see spaceDoc).
	Spaces = "search_spaces"
	// Orgs holds {_id: organization, spaces: {<space>: generation}}: the
	// generation of each space's entries, replaced after each write of them.
	Orgs = "search_orgs"
)

// Bounds of the read cache.
const (
	cacheEntries = 500_000
	cacheBytes   = 32 << 20 // each of the two caches
)

// Shards is the number of collections postings, and pages, are spread over.
// Changing it is safe: a space recorded with another count is moved to the
// new shards when it is next replaced (spaces not replaced again are not
// found until then).
const Shards = 256

// postingLayout is the layout of the posting lists a space record was
// written with: 0 is one list per organization and term, holding every
// space (removed from, never written any more); 1 is one list per
// organization, term and space.
const postingLayout = 1

// concurrency bounds the parallel single-document reads and writes of one call.
const concurrency = 16

// Store implements search.Store.
type Store struct {
	db *mongo.Database
	// reads is db on the client of reads (ReadingFrom), else db.
	reads *mongo.Database
	// postingCache holds the postings of a term in a space (none found is
	// kept too), pageCache the pages, each under the space's generation
	// (see the package comment).
	postingCache *sizedcache.Cache[termKey, []search.Posting]
	pageCache    *sizedcache.Cache[pageKey, search.Page]
	// gensCache holds the generations of organizations read, under the
	// organization's count of this store's writes (orgWrites) and the
	// period of generationsTTL the read began in.
	gensCache *sizedcache.Cache[gensKey, map[string]string]
	orgWrites generations.Counters
	gensTTL   time.Duration
}

type gensKey struct {
	org    string
	writes uint64
	period int64
}

// Bounds of the generations kept: how long another replica's index
// change may go unseen by this one's searches, and how many
// organizations' generations, in how many bytes, are kept.
const (
	generationsTTL     = 100 * time.Millisecond
	generationsEntries = 10_000
	generationsBytes   = 16 << 20
)

type termKey struct{ org, space, gen, term string }

type pageKey struct {
	org, gen string
	page     search.PageKey
}

var _ search.Store = (*Store)(nil)

// NewStore returns a store on db.
func NewStore(db *mongo.Database) *Store {
	return &Store{db: db, reads: db,
		postingCache: sizedcache.New[termKey, []search.Posting](cacheEntries, cacheBytes).Observe("content.search.postings"),
		pageCache:    sizedcache.New[pageKey, search.Page](cacheEntries, cacheBytes).Observe("content.search.pages"),
		gensCache:    sizedcache.New[gensKey, map[string]string](generationsEntries, generationsBytes).Observe("content.search.generations"),
		gensTTL:      generationsTTL}
}

// KeepingGenerations makes s keep the generations it read for ttl instead
// of generationsTTL (a test's, to tell a kept read from a new one).
func (s *Store) KeepingGenerations(ttl time.Duration) *Store {
	s.gensTTL = ttl
	return s
}

// ReadingFrom makes s read generations, postings and pages through reads:
// the search database on the client of reads (mongox.DB.Reads), whose
// connections do not queue behind writes. A read sent after a write was
// acknowledged sees it there too.
func (s *Store) ReadingFrom(reads *mongo.Database) *Store {
	s.reads = reads
	return s
}

// generations returns the generation of the entries of each space of org
// written since generations were kept.
func (s *Store) generations(ctx context.Context, org string) (map[string]string, error) {
	key := gensKey{org: org, writes: s.orgWrites.Of(org), period: time.Now().UnixNano() / int64(s.gensTTL)}
	if gens, ok := s.gensCache.Get(key); ok {
		return gens, nil
	}
	gens, err := s.readGenerations(ctx, org)
	if err == nil {
		size := int64(64 + len(org))
		for sp, g := range gens {
			size += int64(32 + len(sp) + len(g))
		}
		s.gensCache.Add(key, gens, size)
	}
	return gens, err
}

// readGenerations reads the generations of org's spaces.
func (s *Store) readGenerations(ctx context.Context, org string) (map[string]string, error) {
	var d struct {
		Spaces map[string]string `bson:"spaces"`
	}
	err := s.reads.Collection(Orgs).FindOne(ctx, bson.M{"_id": org}).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return map[string]string{}, nil
	}
	return d.Spaces, mongox.Err(err, "search generations")
}

// changed gives the entries of space in org a new generation, or with gone
// takes space out of org's: what the caches of every replica hold of them
// is not read again. Call it after a write of the entries, failed or not.
func (s *Store) changed(ctx context.Context, org, space string, gone bool) error {
	if org == "" {
		return nil
	}
	update := bson.M{"$set": bson.M{spaceField(space): ids.New()}}
	if gone {
		update = bson.M{"$unset": bson.M{spaceField(space): ""}}
	}
	_, err := s.db.Collection(Orgs).UpdateOne(context.WithoutCancel(ctx), bson.M{"_id": org}, update, options.UpdateOne().SetUpsert(true))
	s.orgWrites.Bump(org)
	return mongox.Err(err, "search generations")
}

// Indexes are the indexes of the store, on every shard.
func Indexes() []mongox.Index {
	out := make([]mongox.Index, 0, 3*Shards+1)
	for i := range Shards {
		out = append(out, mongox.Keys(shardName(Postings, i), "organization", "term"), mongox.Keys(shardName(Postings, i), "space"),
			mongox.Keys(shardName(Pages, i), "space"))
	}
	return append(out, mongox.Keys(Spaces, "organization"))
}

// EnsureIndexes creates the indexes.
func EnsureIndexes(ctx context.Context, db *mongo.Database) error {
	return mongox.EnsureIndexes(ctx, db, Indexes()...)
}

// PostingsCollection is the name of the shard that holds the posting lists
// of term.
func PostingsCollection(term string) string { return shardName(Postings, termShard(term, Shards)) }

// PagesCollection is the name of the shard that holds the metadata of a page.
func PagesCollection(space, page string) string {
	return shardName(Pages, shardOf(pageID(space, page), Shards))
}

// shardOf is the shard of key among n: FNV-1a, stable across processes and
// releases (the placement of stored entries depends on it).
func shardOf(key string, n int) int {
	h := fnv.New32a()
	_, _ = h.Write([]byte(key))
	return int(h.Sum32() % uint32(n))
}

// termShard is the shard of term's posting lists among n: that of the
// term itself, but for a phrase or a whole title (search.Phrase,
// search.Exact) that of its first term, so that the phrases a query reads
// besides its terms are in shards it reads anyway: one more query of a
// shard is a scan of it on the embedded server.
func termShard(term string, n int) int { return shardOf(shardKey(term), n) }

// termShards returns the sorted distinct shards of terms.
func termShards(terms []string, n int) []int {
	ks := make([]string, len(terms))
	for i, t := range terms {
		ks[i] = shardKey(t)
	}
	return shardsOf(ks, n)
}

// shardKey is what places term: its first term (a term of text has no
// "=" nor "_").
func shardKey(term string) string {
	first, _, _ := strings.Cut(strings.TrimPrefix(term, "="), "_")
	return first
}

func shardName(prefix string, i int) string { return fmt.Sprintf("%s_%03d", prefix, i) }

// postingList is the posting list of a term in a space. The postings are
// one string, a line "<page>\t<section>\t<weight>" per posting: a few bytes
// each where sub-documents would cost their field names (and, on FerretDB,
// a JSON parse of every element on every read). A list of layout 0 has no
// Space and Postings but Spaces: the postings of every space by space.
type postingList struct {
	ID           string            `bson:"_id"`
	Organization string            `bson:"organization"`
	Term         string            `bson:"term"`
	Space        string            `bson:"space,omitempty"`
	Postings     string            `bson:"postings,omitempty"`
	Spaces       map[string]string `bson:"spaces,omitempty"`
}

func newPostingList(org, term, space string, ps []search.Posting) postingList {
	return postingList{ID: postingID(org, term, space), Organization: org, Term: term, Space: space, Postings: encode(ps)}
}

func encode(ps []search.Posting) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.Page)
		b.WriteByte('\t')
		b.WriteString(p.Section)
		b.WriteByte('\t')
		b.WriteString(strconv.FormatFloat(p.Weight, 'g', -1, 64))
		b.WriteByte('\n')
	}
	return b.String()
}

func decode(s string) []search.Posting {
	out := make([]search.Posting, 0, strings.Count(s, "\n"))
	for line := range strings.Lines(s) {
		page, rest, _ := strings.Cut(strings.TrimSuffix(line, "\n"), "\t")
		section, weight, _ := strings.Cut(rest, "\t")
		w, err := strconv.ParseFloat(weight, 64)
		if err != nil || page == "" {
			continue
		}
		out = append(out, search.Posting{Page: page, Section: section, Weight: w})
	}
	return out
}

// pageDoc is an indexed page. Its metadata is one JSON string (Data):
// FerretDB v1 decodes every document it scans, and a string decodes at a
// fraction of the cost of nested arrays of sub-documents.
type pageDoc struct {
	ID           string `bson:"_id"`
	Organization string `bson:"organization"`
	Space        string `bson:"space"`
	Page         string `bson:"page"`
	Data         string `bson:"data"` // search.Page as JSON
}

func newPageDoc(p search.Page) pageDoc {
	b, _ := json.Marshal(p)
	return pageDoc{ID: pageID(p.Space, p.ID), Organization: p.Organization, Space: p.Space, Page: p.ID, Data: string(b)}
}

// spaceDoc records what is indexed of a space.
type spaceDoc struct {
	ID           string `bson:"_id"`
	Organization string `bson:"organization"`
	// Revision is the revision the entries were built from (search.Mark);
	// "" for a record written before revisions were recorded.
	Revision string `bson:"revision,omitempty"`
	// Format is the search.IndexFormat the entries were built with (0:
	// before formats were recorded).
	Format int               `bson:"format,omitempty"`
	Pages  map[string]string `bson:"pages"` // page id → hash
	Terms  map[string]string `bson:"terms"` // term → hash of the space's postings
	// ShardCount is the Shards the entries were placed with (0: a record
	// of before sharding, whose entries are in no shard).
	ShardCount int `bson:"shards"`
	// PostingShards and PageShards are the shards holding the space's
	// entries, in order; while Pending, also those being written.
	PostingShards []int `bson:"postingShards"`
	PageShards    []int `bson:"pageShards"`
	// Pending is set while a replace writes entries: Pages and Terms may
	// then miss some of them (see removeEntries).
	Pending bool `bson:"pending,omitempty"`
	// Layout is the postingLayout the entries were written with.
	Layout int `bson:"layout,omitempty"`
}

func termID(org, term string) string           { return org + "/" + term } // a list of layout 0
func postingID(org, term, space string) string { return org + "/" + term + "/" + space }
func pageID(space, page string) string         { return space + "/" + page }
func spaceField(space string) string           { return "spaces." + space }

func (s *Store) postings(shard int) *mongo.Collection {
	return s.db.Collection(shardName(Postings, shard))
}
func (s *Store) pages(shard int) *mongo.Collection { return s.db.Collection(shardName(Pages, shard)) }

// shardsOf returns the sorted distinct shards of keys.
func shardsOf(keys []string, n int) []int {
	seen := map[int]bool{}
	out := []int{}
	for _, k := range keys {
		if i := shardOf(k, n); !seen[i] {
			seen[i] = true
			out = append(out, i)
		}
	}
	slices.Sort(out)
	return out
}

func pageIDs(space string, pages []string) []string {
	out := make([]string, len(pages))
	for i, p := range pages {
		out[i] = pageID(space, p)
	}
	return out
}

// byShard groups the indexes 0..n-1 by their shard, shard(i).
func byShard(n int, shard func(i int) int) [][]int {
	groups := map[int][]int{}
	for i := range n {
		sh := shard(i)
		groups[sh] = append(groups[sh], i)
	}
	out := make([][]int, 0, len(groups))
	for _, g := range groups {
		out = append(out, g)
	}
	return out
}

func (s *Store) space(ctx context.Context, id string) (spaceDoc, error) {
	var d spaceDoc
	err := s.db.Collection(Spaces).FindOne(ctx, bson.M{"_id": id}).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return spaceDoc{ID: id}, nil
	}
	if err != nil {
		return d, mongox.Err(err, "search space")
	}
	return d, nil
}

// ReplaceSpace makes idx the space's entries: pages and terms whose hash
// changed are written, those no longer there removed, then the record of
// the space is replaced. Running it again with the same idx writes nothing
// but that record.
func (s *Store) ReplaceSpace(ctx context.Context, idx search.SpaceIndex) error {
	old, err := s.space(ctx, idx.Space)
	if err != nil {
		return err
	}
	err = s.replaceSpace(ctx, idx, old)
	if old.Organization != idx.Organization {
		err = errors.Join(err, s.changed(ctx, old.Organization, idx.Space, true))
	}
	return errors.Join(err, s.changed(ctx, idx.Organization, idx.Space, false))
}

// replaceSpace is ReplaceSpace of the space whose record is old.
func (s *Store) replaceSpace(ctx context.Context, idx search.SpaceIndex, old spaceDoc) error {
	if old.Organization != "" && (old.Organization != idx.Organization || old.ShardCount != Shards || old.Layout != postingLayout || old.Pending) {
		// The space moved to another organization, its entries were placed
		// with another shard count or layout, or a replace was interrupted:
		// drop all its entries and write idx afresh.
		if err := s.removeEntries(ctx, old); err != nil {
			return err
		}
		old = spaceDoc{ID: idx.Space}
	}
	rec, pages, changed := newSpaceDoc(idx, old)
	if len(pages)+len(changed) > 0 {
		// Record the shards about to be written first, so that an
		// interrupted replace leaves no entry outside the record.
		var changedPages []string
		for _, p := range pages {
			changedPages = append(changedPages, pageID(idx.Space, p.ID))
		}
		if err := s.reserve(ctx, idx, termShards(changed, Shards), shardsOf(changedPages, Shards)); err != nil {
			return err
		}
		// A new generation before the writes as well as after them: what a
		// query caches while they run is what the database held then, and
		// a process that dies halfway leaves no replica reading the entries
		// of before from its cache (the pending record has the next
		// replace finish the job).
		if err := s.changed(ctx, idx.Organization, idx.Space, false); err != nil {
			return err
		}
	}
	if err := s.writeEntries(ctx, idx, pages, changed); err != nil {
		return err
	}
	if err := s.dropStale(ctx, idx, old, rec); err != nil {
		return err
	}
	_, err := s.db.Collection(Spaces).ReplaceOne(ctx, bson.M{"_id": rec.ID}, rec, options.Replace().SetUpsert(true))
	return mongox.Err(err, "search space")
}

// newSpaceDoc is the record of idx, with the pages and terms that differ
// from the old record's.
func newSpaceDoc(idx search.SpaceIndex, old spaceDoc) (rec spaceDoc, pages []search.Page, changed []string) {
	rec = spaceDoc{ID: idx.Space, Organization: idx.Organization, Revision: idx.Revision, Format: idx.Format, Pages: map[string]string{}, Terms: map[string]string{},
		ShardCount: Shards, Layout: postingLayout}
	var pageKeys []string
	for _, p := range idx.Pages {
		rec.Pages[p.ID] = p.Hash
		pageKeys = append(pageKeys, pageID(idx.Space, p.ID))
		if old.Pages[p.ID] != p.Hash {
			pages = append(pages, p)
		}
	}
	for term, ps := range idx.Terms {
		h := search.TermHash(ps)
		rec.Terms[term] = h
		if old.Terms[term] != h {
			changed = append(changed, term)
		}
	}
	rec.PostingShards = termShards(keys(rec.Terms), Shards)
	rec.PageShards = shardsOf(pageKeys, Shards)
	return rec, pages, changed
}

// writeEntries writes the space's changed pages, then its changed
// posting lists.
func (s *Store) writeEntries(ctx context.Context, idx search.SpaceIndex, pages []search.Page, changed []string) error {
	if err := parallel(ctx, len(pages), func(ctx context.Context, i int) error {
		d := newPageDoc(pages[i])
		_, err := s.pages(shardOf(d.ID, Shards)).ReplaceOne(ctx, bson.M{"_id": d.ID}, d, options.Replace().SetUpsert(true))
		return mongox.Err(err, "search page")
	}); err != nil {
		return err
	}
	return parallel(ctx, len(changed), func(ctx context.Context, i int) error {
		term := changed[i]
		d := newPostingList(idx.Organization, term, idx.Space, idx.Terms[term])
		_, err := s.postings(termShard(term, Shards)).ReplaceOne(ctx, bson.M{"_id": d.ID}, d, options.Replace().SetUpsert(true))
		return mongox.Err(err, "search postings")
	})
}

// dropStale deletes the posting lists of the terms and the pages the old
// record has and the new one does not.
func (s *Store) dropStale(ctx context.Context, idx search.SpaceIndex, old, rec spaceDoc) error {
	var gone []string
	for term := range old.Terms {
		if _, ok := rec.Terms[term]; !ok {
			gone = append(gone, term)
		}
	}
	if err := parallel(ctx, len(gone), func(ctx context.Context, i int) error {
		_, err := s.postings(termShard(gone[i], Shards)).DeleteOne(ctx, bson.M{"_id": postingID(idx.Organization, gone[i], idx.Space)})
		return mongox.Err(err, "search postings")
	}); err != nil {
		return err
	}
	var removed []string
	for p := range old.Pages {
		if _, ok := rec.Pages[p]; !ok {
			removed = append(removed, pageID(idx.Space, p))
		}
	}
	return s.deletePages(ctx, removed)
}

// reserve marks the record of idx's space pending and adds to its shards
// those about to be written.
func (s *Store) reserve(ctx context.Context, idx search.SpaceIndex, postingShards, pageShards []int) error {
	update := bson.M{"$set": bson.M{"organization": idx.Organization, "shards": Shards, "layout": postingLayout, "pending": true}}
	add := bson.M{}
	if len(postingShards) > 0 {
		add["postingShards"] = bson.M{"$each": postingShards}
	}
	if len(pageShards) > 0 {
		add["pageShards"] = bson.M{"$each": pageShards}
	}
	if len(add) > 0 {
		update["$addToSet"] = add
	}
	_, err := s.db.Collection(Spaces).UpdateOne(ctx, bson.M{"_id": idx.Space}, update, options.UpdateOne().SetUpsert(true))
	return mongox.Err(err, "search space")
}

// Marks returns what is indexed of each of spaces that has a complete
// index: the organization and revision it was built from, and its format.
func (s *Store) Marks(ctx context.Context, spaces []string) (map[string]search.Mark, error) {
	out := map[string]search.Mark{}
	if len(spaces) == 0 {
		return out, nil
	}
	cur, err := s.db.Collection(Spaces).Find(ctx, bson.M{"_id": bson.M{"$in": spaces}},
		options.Find().SetProjection(bson.M{"organization": 1, "revision": 1, "format": 1, "pending": 1}))
	if err != nil {
		return nil, mongox.Err(err, "search marks")
	}
	var docs []spaceDoc
	if err := cur.All(ctx, &docs); err != nil {
		return nil, mongox.Err(err, "search marks")
	}
	for _, d := range docs {
		if !d.Pending {
			out[d.ID] = search.Mark{Organization: d.Organization, Revision: d.Revision, Format: d.Format}
		}
	}
	return out, nil
}

// RemoveSpace drops every entry of a space.
func (s *Store) RemoveSpace(ctx context.Context, space string) (err error) {
	old, err := s.space(ctx, space)
	if err != nil || old.Organization == "" {
		return err
	}
	defer func() { err = errors.Join(err, s.changed(ctx, old.Organization, space, true)) }()
	if err := s.removeEntries(ctx, old); err != nil {
		return err
	}
	_, err = s.db.Collection(Spaces).DeleteOne(ctx, bson.M{"_id": space})
	return mongox.Err(err, "search space")
}

// removeEntries drops the entries of the space of rec from every shard rec
// names. Pages go with one delete by space per shard, and so do posting
// lists. Those of layout 0 are unset from the shared lists term by term (by
// _id, the shard computed with the record's shard count), or, if rec is
// pending and may miss terms, found by a query of each shard for the
// organization's lists that have the space.
func (s *Store) removeEntries(ctx context.Context, rec spaceDoc) error {
	if rec.ShardCount == 0 {
		return nil // a record of before sharding: its entries are in no shard
	}
	if err := parallel(ctx, len(rec.PageShards), func(ctx context.Context, i int) error {
		_, err := s.pages(rec.PageShards[i]).DeleteMany(ctx, bson.M{"space": rec.ID})
		return mongox.Err(err, "search pages")
	}); err != nil {
		return err
	}
	if rec.Layout != 0 {
		return parallel(ctx, len(rec.PostingShards), func(ctx context.Context, i int) error {
			_, err := s.postings(rec.PostingShards[i]).DeleteMany(ctx, bson.M{"space": rec.ID})
			return mongox.Err(err, "search postings")
		})
	}
	if !rec.Pending {
		return s.unsetTerms(ctx, rec.Organization, rec.ID, keys(rec.Terms), rec.ShardCount)
	}
	return parallel(ctx, len(rec.PostingShards), func(ctx context.Context, i int) error {
		c := s.postings(rec.PostingShards[i])
		cur, err := c.Find(ctx, bson.M{"organization": rec.Organization, spaceField(rec.ID): bson.M{"$exists": true}},
			options.Find().SetProjection(bson.M{"_id": 1}))
		if err != nil {
			return mongox.Err(err, "search postings")
		}
		var ids []struct {
			ID string `bson:"_id"`
		}
		if err := cur.All(ctx, &ids); err != nil {
			return mongox.Err(err, "search postings")
		}
		for _, d := range ids {
			if err := s.unset(ctx, c, d.ID, rec.ID); err != nil {
				return err
			}
		}
		return nil
	})
}

// unsetTerms removes the postings of space from the layout 0 lists of
// terms, placed over n shards.
func (s *Store) unsetTerms(ctx context.Context, org, space string, terms []string, n int) error {
	return parallel(ctx, len(terms), func(ctx context.Context, i int) error {
		return s.unset(ctx, s.postings(termShard(terms[i], n)), termID(org, terms[i]), space)
	})
}

func (s *Store) unset(ctx context.Context, c *mongo.Collection, id, space string) error {
	_, err := c.UpdateOne(ctx, bson.M{"_id": id}, bson.M{"$unset": bson.M{spaceField(space): ""}})
	return mongox.Err(err, "search postings")
}

// deletePages deletes pages by _id, one delete per shard.
func (s *Store) deletePages(ctx context.Context, ids []string) error {
	groups := byShard(len(ids), func(i int) int { return shardOf(ids[i], Shards) })
	return parallel(ctx, len(groups), func(ctx context.Context, g int) error {
		var in []string
		for _, i := range groups[g] {
			in = append(in, ids[i])
		}
		_, err := s.pages(shardOf(in[0], Shards)).DeleteMany(ctx, idFilter(in))
		return mongox.Err(err, "search pages")
	})
}

// idFilter matches the documents of ids: an exact _id for one (which
// FerretDB v1 pushes down to SQLite), $in for more.
func idFilter(ids []string) bson.M {
	if len(ids) == 1 {
		return bson.M{"_id": ids[0]}
	}
	return bson.M{"_id": bson.M{"$in": ids}}
}

// reader reads the entries of org's spaces at the generations it read
// once, for all its reads.
type reader struct {
	s    *Store
	org  string
	gens map[string]string
}

// Reader reads the generations of org's spaces (one lookup) for the reads
// of one query.
func (s *Store) Reader(ctx context.Context, org string) (search.Reader, error) {
	gens, err := s.generations(ctx, org)
	if err != nil {
		return nil, err
	}
	return reader{s: s, org: org, gens: gens}, nil
}

// Generation is the generation of space's entries the reader reads
// under: a new one is given at each write of them (changed).
func (r reader) Generation(space string) string { return r.gens[space] }

// Postings is Reader(org) then its Postings.
func (s *Store) Postings(ctx context.Context, org string, spaces, terms []string) (map[string]map[string][]search.Posting, error) {
	r, err := s.Reader(ctx, org)
	if err != nil {
		return nil, err
	}
	return r.Postings(ctx, spaces, terms)
}

// Pages is Reader(org) then its Pages.
func (s *Store) Pages(ctx context.Context, org string, keys []search.PageKey) (map[search.PageKey]search.Page, error) {
	r, err := s.Reader(ctx, org)
	if err != nil {
		return nil, err
	}
	return r.Pages(ctx, keys)
}

// Postings returns the posting lists of terms in the spaces: those the
// cache holds under their space's generation, and the others read, one
// query per shard holding some of the terms, the shards read in parallel.
func (r reader) Postings(ctx context.Context, spaces, terms []string) (map[string]map[string][]search.Posting, error) {
	s, org, gens := r.s, r.org, r.gens
	out := make(map[string]map[string][]search.Posting, len(terms))
	add := func(term, space string, ps []search.Posting) {
		if len(ps) == 0 {
			return
		}
		if out[term] == nil {
			out[term] = map[string][]search.Posting{}
		}
		out[term][space] = ps
	}
	var missing []string
	for _, t := range terms {
		found := make(map[string][]search.Posting, len(spaces))
		for _, sp := range spaces {
			ps, ok := s.postingCache.Get(termKey{org, sp, gens[sp], t})
			if !ok {
				missing = append(missing, t)
				found = nil
				break
			}
			found[sp] = ps
		}
		for sp, ps := range found {
			add(t, sp, ps)
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	read, err := s.readPostings(ctx, org, missing)
	if err != nil {
		return nil, err
	}
	for _, t := range missing {
		for sp, ps := range read[t] { // every space's, for the next callers
			size := int64(64 + len(sp) + len(t))
			for _, p := range ps {
				size += int64(len(p.Page) + len(p.Section) + 40)
			}
			s.postingCache.Add(termKey{org, sp, gens[sp], t}, ps, size)
		}
		for _, sp := range spaces {
			ps, ok := read[t][sp]
			if !ok {
				s.postingCache.Add(termKey{org, sp, gens[sp], t}, nil, int64(64+len(sp)+len(t)))
			}
			add(t, sp, ps)
		}
	}
	return out, nil
}

// readPostings reads the posting lists of terms in org: one query per shard
// holding some of them, the shards read in parallel.
func (s *Store) readPostings(ctx context.Context, org string, terms []string) (map[string]map[string][]search.Posting, error) {
	found := make([]map[string][]search.Posting, len(terms))
	groups := byShard(len(terms), func(i int) int { return termShard(terms[i], Shards) })
	err := parallel(ctx, len(groups), func(ctx context.Context, g int) error {
		byTerm := make(map[string]int, len(groups[g]))
		in := make([]string, 0, len(groups[g]))
		for _, i := range groups[g] {
			byTerm[terms[i]] = i
			in = append(in, terms[i])
		}
		filter := bson.M{"organization": org, "term": bson.M{"$in": in}}
		if len(in) == 1 {
			filter["term"] = in[0]
		}
		cur, err := s.reads.Collection(shardName(Postings, termShard(in[0], Shards))).Find(ctx, filter)
		if err != nil {
			return mongox.Err(err, "search postings")
		}
		defer func() { _ = cur.Close(ctx) }()
		for cur.Next(ctx) {
			var d postingList
			if err := cur.Decode(&d); err != nil {
				return mongox.Err(err, "search postings")
			}
			i, ok := byTerm[d.Term]
			if !ok {
				continue
			}
			if found[i] == nil {
				found[i] = map[string][]search.Posting{}
			}
			if d.Space != "" {
				found[i][d.Space] = decode(d.Postings)
			}
			for space, enc := range d.Spaces { // a list of layout 0
				if _, ok := found[i][space]; !ok {
					found[i][space] = decode(enc)
				}
			}
		}
		return mongox.Err(cur.Err(), "search postings")
	})
	if err != nil {
		return nil, err
	}
	out := make(map[string]map[string][]search.Posting, len(terms))
	for i, t := range terms {
		if found[i] != nil {
			out[t] = found[i]
		}
	}
	return out, nil
}

// Pages returns the pages of keys, of spaces of the organization: those
// the cache holds under their space's generation, and the others read, one
// query per shard holding some of them, by _id, the shards read in
// parallel. Missing pages are left out.
func (r reader) Pages(ctx context.Context, keys []search.PageKey) (map[search.PageKey]search.Page, error) {
	s, org, gens := r.s, r.org, r.gens
	out := make(map[search.PageKey]search.Page, len(keys))
	var missing []search.PageKey
	for _, k := range keys {
		if p, ok := s.pageCache.Get(pageKey{org, gens[k.Space], k}); ok {
			out[k] = p
		} else {
			missing = append(missing, k)
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	read, err := s.readPages(ctx, missing)
	if err != nil {
		return nil, err
	}
	for k, p := range read {
		if p.Organization == org {
			s.pageCache.Add(pageKey{org, gens[k.Space], k}, p, pageSize(p))
		}
		out[k] = p
	}
	return out, nil
}

// pageSize is about the bytes p holds.
func pageSize(p search.Page) int64 {
	n := 128 + len(p.Organization) + len(p.Space) + len(p.ID) + len(p.Title) + len(p.Description) + len(p.Path) + len(p.Hash)
	for _, a := range p.Ancestors {
		n += 16 + len(a)
	}
	for _, sec := range p.Sections {
		n += 48 + len(sec.Anchor) + len(sec.Title) + len(sec.Body)
	}
	return int64(n)
}

// readPages reads the pages of keys: one query per shard holding some of
// them, by _id, the shards read in parallel. Missing pages are left out.
func (s *Store) readPages(ctx context.Context, keys []search.PageKey) (map[search.PageKey]search.Page, error) {
	ids := make([]string, len(keys))
	for i, k := range keys {
		ids[i] = pageID(k.Space, k.Page)
	}
	groups := byShard(len(ids), func(i int) int { return shardOf(ids[i], Shards) })
	found := make([][]pageDoc, len(groups))
	err := parallel(ctx, len(groups), func(ctx context.Context, g int) error {
		in := make([]string, 0, len(groups[g]))
		for _, i := range groups[g] {
			in = append(in, ids[i])
		}
		cur, err := s.reads.Collection(shardName(Pages, shardOf(in[0], Shards))).Find(ctx, idFilter(in))
		if err != nil {
			return mongox.Err(err, "search pages")
		}
		return mongox.Err(cur.All(ctx, &found[g]), "search pages")
	})
	if err != nil {
		return nil, err
	}
	out := make(map[search.PageKey]search.Page, len(keys))
	for _, docs := range found {
		for _, d := range docs {
			var p search.Page
			if err := json.Unmarshal([]byte(d.Data), &p); err != nil {
				return nil, fmt.Errorf("search page %s: %w", d.ID, err)
			}
			out[search.PageKey{Space: d.Space, Page: d.Page}] = p
		}
	}
	return out, nil
}

// Load bulk-inserts the entries of spaces never indexed before (a first
// build of an organization's index, a benchmark): posting lists are built
// in memory and written with InsertMany, per shard. A space already
// indexed is a conflict.
func (s *Store) Load(ctx context.Context, idxs []search.SpaceIndex) (err error) {
	postingDocs := make([][]any, Shards)
	pageDocs := make([][]any, Shards)
	var spaces []any
	for _, idx := range idxs {
		rec := spaceDoc{ID: idx.Space, Organization: idx.Organization, Pages: map[string]string{}, Terms: map[string]string{}, ShardCount: Shards, Layout: postingLayout}
		var pageKeys []string
		for _, p := range idx.Pages {
			rec.Pages[p.ID] = p.Hash
			d := newPageDoc(p)
			pageKeys = append(pageKeys, d.ID)
			sh := shardOf(d.ID, Shards)
			pageDocs[sh] = append(pageDocs[sh], d)
		}
		for term, ps := range idx.Terms {
			rec.Terms[term] = search.TermHash(ps)
			sh := termShard(term, Shards)
			postingDocs[sh] = append(postingDocs[sh], newPostingList(idx.Organization, term, idx.Space, ps))
		}
		rec.PostingShards = termShards(keys(rec.Terms), Shards)
		rec.PageShards = shardsOf(pageKeys, Shards)
		spaces = append(spaces, rec)
	}
	type write struct {
		coll string
		docs []any
	}
	var writes []write
	for i := range Shards {
		writes = append(writes, write{shardName(Postings, i), postingDocs[i]}, write{shardName(Pages, i), pageDocs[i]})
	}
	writes = append(writes, write{Spaces, spaces})
	defer func() {
		for _, idx := range idxs {
			err = errors.Join(err, s.changed(ctx, idx.Organization, idx.Space, false))
		}
	}()
	return parallel(ctx, len(writes), func(ctx context.Context, i int) error {
		w := writes[i]
		for start := 0; start < len(w.docs); start += 1000 {
			end := min(start+1000, len(w.docs))
			if _, err := s.db.Collection(w.coll).InsertMany(ctx, w.docs[start:end]); err != nil {
				return mongox.Err(err, "search "+w.coll)
			}
		}
		return nil
	})
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// parallel runs f for 0..n-1 on up to concurrency goroutines and returns the
// first error.
func parallel(ctx context.Context, n int, f func(ctx context.Context, i int) error) error {
	if n == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		next  = make(chan int)
	)
	for range min(n, concurrency) {
		wg.Go(func() {
			for i := range next {
				if err := f(ctx, i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
						cancel()
					}
					mu.Unlock()
				}
			}
		})
	}
	for i := 0; i < n; i++ {
		select {
		case next <- i:
		case <-ctx.Done():
			i = n
		}
	}
	close(next)
	wg.Wait()
	if first != nil {
		return first
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("search store: %w", err)
	}
	return nil
}
