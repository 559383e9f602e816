// Package searchmongo stores content's search index in MongoDB.
//
// Postings are kept as one posting list per organization and term
// (search_postings, _id "<organization>/<term>"), holding per space the
// postings {page, section, weight} of the term. A query thus reads exactly
// one document per query term, by _id: the primary index of MongoDB and the
// one lookup that FerretDB v1 (the embedded server, which scans the whole
// collection for any other filter) answers without a scan. The
// {organization, term} index serves ad-hoc queries on MongoDB.
//
// A space's entries are replaced by updating only the terms and pages whose
// content changed ($set / $unset of the space's field in a term's list, so
// spaces indexed at the same time never overwrite each other's postings),
// with what was indexed recorded per space in search_spaces.
package searchmongo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/content/internal/search"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// The collections.
const (
	// Postings holds {_id: org/term, organization, term, spaces: {<space>: [posting]}}.
	Postings = "search_postings"
	// Sections holds one document per indexed page and its sections, _id
	// "<space>/<page>" (see pageDoc).
	Sections = "search_sections"
	// Spaces holds what is indexed of a space: {_id: space, organization,
	// pages: {<page>: hash}, terms: {<term>: hash}}.
	Spaces = "search_spaces"
)

// concurrency bounds the parallel single-document reads and writes of one call.
const concurrency = 16

// Store implements search.Store.
type Store struct {
	db    *mongo.Database
	locks *mongox.DocLocks
}

var _ search.Store = (*Store)(nil)

// NewStore returns a store on db. Updates of one posting list are serialised
// with locks (FerretDB v1 applies an update by rewriting the document).
func NewStore(db *mongo.Database, locks *mongox.DocLocks) *Store {
	return &Store{db: db, locks: locks}
}

// Indexes are the indexes of the store.
func Indexes() []mongox.Index {
	return []mongox.Index{
		mongox.Keys(Postings, "organization", "term"),
		mongox.Keys(Sections, "space"),
		mongox.Keys(Spaces, "organization"),
	}
}

// EnsureIndexes creates the indexes.
func EnsureIndexes(ctx context.Context, db *mongo.Database) error {
	return mongox.EnsureIndexes(ctx, db, Indexes()...)
}

// postingList is the posting list of a term in an organization. The
// postings of a space are one string, a line "<page>\t<section>\t<weight>"
// per posting: a few bytes each where sub-documents would cost their field
// names (and, on FerretDB, a JSON parse of every element on every read).
type postingList struct {
	ID           string            `bson:"_id"`
	Organization string            `bson:"organization"`
	Term         string            `bson:"term"`
	Spaces       map[string]string `bson:"spaces"`
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

type spaceDoc struct {
	ID           string            `bson:"_id"`
	Organization string            `bson:"organization"`
	Pages        map[string]string `bson:"pages"` // page id → hash
	Terms        map[string]string `bson:"terms"` // term → hash of the space's postings
}

func termID(org, term string) string             { return org + "/" + term }
func pageID(space, page string) string           { return space + "/" + page }
func pageKey(k search.PageKey) string            { return pageID(k.Space, k.Page) }
func spaceField(space string) string             { return "spaces." + space }
func (s *Store) c(name string) *mongo.Collection { return s.db.Collection(name) }

func (s *Store) space(ctx context.Context, id string) (spaceDoc, error) {
	var d spaceDoc
	err := s.c(Spaces).FindOne(ctx, bson.M{"_id": id}).Decode(&d)
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
	if old.Organization != "" && old.Organization != idx.Organization {
		// The space moved to another organization: drop its old postings.
		if err := s.unsetTerms(ctx, old.Organization, idx.Space, keys(old.Terms)); err != nil {
			return err
		}
		old.Terms = nil
	}
	rec := spaceDoc{ID: idx.Space, Organization: idx.Organization, Pages: map[string]string{}, Terms: map[string]string{}}

	var pages []search.Page
	for _, p := range idx.Pages {
		rec.Pages[p.ID] = p.Hash
		if old.Pages[p.ID] != p.Hash {
			pages = append(pages, p)
		}
	}
	if err := parallel(ctx, len(pages), func(ctx context.Context, i int) error {
		d := newPageDoc(pages[i])
		_, err := s.c(Sections).ReplaceOne(ctx, bson.M{"_id": d.ID}, d, options.Replace().SetUpsert(true))
		return mongox.Err(err, "search page")
	}); err != nil {
		return err
	}

	var changed []string
	for term, ps := range idx.Terms {
		h := search.TermHash(ps)
		rec.Terms[term] = h
		if old.Terms[term] != h {
			changed = append(changed, term)
		}
	}
	if err := parallel(ctx, len(changed), func(ctx context.Context, i int) error {
		term := changed[i]
		id := termID(idx.Organization, term)
		defer s.locks.Lock(Postings, id)()
		_, err := s.c(Postings).UpdateOne(ctx, bson.M{"_id": id}, bson.M{"$set": bson.M{
			"organization": idx.Organization, "term": term, spaceField(idx.Space): encode(idx.Terms[term]),
		}}, options.UpdateOne().SetUpsert(true))
		return mongox.Err(err, "search postings")
	}); err != nil {
		return err
	}

	var gone []string
	for term := range old.Terms {
		if _, ok := rec.Terms[term]; !ok {
			gone = append(gone, term)
		}
	}
	if err := s.unsetTerms(ctx, idx.Organization, idx.Space, gone); err != nil {
		return err
	}
	var removed []string
	for p := range old.Pages {
		if _, ok := rec.Pages[p]; !ok {
			removed = append(removed, pageID(idx.Space, p))
		}
	}
	if err := s.deletePages(ctx, removed); err != nil {
		return err
	}
	_, err = s.c(Spaces).ReplaceOne(ctx, bson.M{"_id": rec.ID}, rec, options.Replace().SetUpsert(true))
	return mongox.Err(err, "search space")
}

// RemoveSpace drops every entry of a space.
func (s *Store) RemoveSpace(ctx context.Context, space string) error {
	old, err := s.space(ctx, space)
	if err != nil || old.Organization == "" {
		return err
	}
	if err := s.unsetTerms(ctx, old.Organization, space, keys(old.Terms)); err != nil {
		return err
	}
	var pages []string
	for p := range old.Pages {
		pages = append(pages, pageID(space, p))
	}
	if err := s.deletePages(ctx, pages); err != nil {
		return err
	}
	_, err = s.c(Spaces).DeleteOne(ctx, bson.M{"_id": space})
	return mongox.Err(err, "search space")
}

func (s *Store) unsetTerms(ctx context.Context, org, space string, terms []string) error {
	return parallel(ctx, len(terms), func(ctx context.Context, i int) error {
		id := termID(org, terms[i])
		defer s.locks.Lock(Postings, id)()
		_, err := s.c(Postings).UpdateOne(ctx, bson.M{"_id": id}, bson.M{"$unset": bson.M{spaceField(space): ""}})
		return mongox.Err(err, "search postings")
	})
}

func (s *Store) deletePages(ctx context.Context, ids []string) error {
	return parallel(ctx, len(ids), func(ctx context.Context, i int) error {
		_, err := s.c(Sections).DeleteOne(ctx, bson.M{"_id": ids[i]})
		return mongox.Err(err, "search page")
	})
}

// Postings reads the posting lists of terms: one document per term, each
// found by its _id alone. (FerretDB v1 evaluates an exact _id filter in
// SQLite and decodes only the matching document; an $in of ids would be
// decoded and filtered document by document.)
func (s *Store) Postings(ctx context.Context, org string, terms []string) (map[string]map[string][]search.Posting, error) {
	found := make([]map[string][]search.Posting, len(terms))
	err := parallel(ctx, len(terms), func(ctx context.Context, i int) error {
		var d postingList
		err := s.c(Postings).FindOne(ctx, bson.M{"_id": termID(org, terms[i])}).Decode(&d)
		if errors.Is(err, mongo.ErrNoDocuments) {
			return nil
		}
		if err != nil {
			return mongox.Err(err, "search postings")
		}
		bySpace := make(map[string][]search.Posting, len(d.Spaces))
		for space, enc := range d.Spaces {
			bySpace[space] = decode(enc)
		}
		found[i] = bySpace
		return nil
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

// Pages reads the pages of keys with one $in query on _id; missing ones
// are left out.
func (s *Store) Pages(ctx context.Context, keys []search.PageKey) (map[search.PageKey]search.Page, error) {
	out := make(map[search.PageKey]search.Page, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	ids := make([]string, len(keys))
	for i, k := range keys {
		ids[i] = pageKey(k)
	}
	cur, err := s.c(Sections).Find(ctx, bson.M{"_id": bson.M{"$in": ids}})
	if err != nil {
		return nil, mongox.Err(err, "search pages")
	}
	var docs []pageDoc
	if err := cur.All(ctx, &docs); err != nil {
		return nil, mongox.Err(err, "search pages")
	}
	for _, d := range docs {
		var p search.Page
		if err := json.Unmarshal([]byte(d.Data), &p); err != nil {
			return nil, fmt.Errorf("search page %s: %w", d.ID, err)
		}
		out[search.PageKey{Space: d.Space, Page: d.Page}] = p
	}
	return out, nil
}

// Load bulk-inserts the entries of spaces never indexed before (a first
// build of an organization's index, a benchmark): posting lists are built
// in memory and written with InsertMany. A space already indexed, or a term
// that already has a posting list in the organization, is a conflict.
func (s *Store) Load(ctx context.Context, idxs []search.SpaceIndex) error {
	lists := map[string]*postingList{}
	var pages, spaces []any
	for _, idx := range idxs {
		rec := spaceDoc{ID: idx.Space, Organization: idx.Organization, Pages: map[string]string{}, Terms: map[string]string{}}
		for _, p := range idx.Pages {
			rec.Pages[p.ID] = p.Hash
			pages = append(pages, newPageDoc(p))
		}
		for term, ps := range idx.Terms {
			rec.Terms[term] = search.TermHash(ps)
			id := termID(idx.Organization, term)
			l := lists[id]
			if l == nil {
				l = &postingList{ID: id, Organization: idx.Organization, Term: term, Spaces: map[string]string{}}
				lists[id] = l
			}
			l.Spaces[idx.Space] = encode(ps)
		}
		spaces = append(spaces, rec)
	}
	docs := make([]any, 0, len(lists))
	for _, l := range lists {
		docs = append(docs, l)
	}
	for _, w := range []struct {
		coll string
		docs []any
	}{{Postings, docs}, {Sections, pages}, {Spaces, spaces}} {
		for start := 0; start < len(w.docs); start += 1000 {
			end := min(start+1000, len(w.docs))
			if _, err := s.c(w.coll).InsertMany(ctx, w.docs[start:end]); err != nil {
				return mongox.Err(err, "search "+w.coll)
			}
		}
	}
	return nil
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
