// Package search is content's full-text search: an inverted index of page
// sections (a page's markdown split at its headings) whose postings are kept
// per organization and term, so that a query reads only the postings of its
// own terms, and the ranking and grouping of hits into the API's
// space → pages → sections results.
package search

import (
	"context"
	"errors"
)

// Limits of the index and of queries.
const (
	// MaxQueryLength is the longest query in characters (api.md Limits).
	MaxQueryLength = 512
	// MaxQueryTerms is how many distinct terms of a query are searched.
	MaxQueryTerms = 16
	// MaxQueryPhrases is how many of a query's phrases (two terms in a
	// row, Phrases) are searched besides its terms.
	MaxQueryPhrases = 4
	// MaxPostingsPerTerm caps the postings of one term in one space: only
	// the highest weighted are kept, so that a term found on nearly every
	// page of a big space keeps a bounded posting list. Such a term ranks
	// little anyway; the pages past the cap are not found by it alone.
	MaxPostingsPerTerm = 200
	// MaxTermsPerSpace caps the distinct terms indexed of one space: past
	// it, the terms whose best posting weighs least are left out. It bounds
	// a space's record of what is indexed (a hash per term) under MongoDB's
	// 16 MiB whatever the text: 50,000 terms of at most MaxTermLength
	// characters are under 14 MB even all of 4-byte characters, and about
	// 2 MB as written in practice.
	MaxTermsPerSpace = 50000
	// MaxPagesPerSpace and MaxSectionsPerPage bound one result item.
	MaxPagesPerSpace   = 10
	MaxSectionsPerPage = 3
	// DefaultLimit and MaxLimit bound the spaces of one result page.
	DefaultLimit = 50
	MaxLimit     = 1000
	// snippetLength is the length of a section's body snippet.
	snippetLength = 240
)

// Weights of a term occurrence, each times the term's rarity (its BM25
// inverse document frequency among the space's pages).
const (
	pageTitleWeight   = 8.0 // the term is in the page's title (scored on its first section)
	headingWeight     = 4.0 // the term is in a section's heading
	descriptionWeight = 2.0 // the term is in the page's description (scored on its first section)
	// bodyWeight scales BM25's weight of a term's tf occurrences in a
	// section's text, tf·(k1+1)/(tf+k1·(1-b+b·length/sectionLength)): at most
	// k1+1 however often it occurs, less in a section longer than
	// sectionLength (a shorter one weighs as one of that length: a stub
	// is no better a match).
	bodyWeight = 1.0
	bm25K1     = 1.2
	bm25B      = 0.75
	// sectionLength is the length, in terms, BM25 weighs a section's
	// against (the mean of GitBook's docs is 55; 25 or 100 rank them alike).
	sectionLength = 50.0
	// hiddenFactor scales the weights of a hidden page (or one under a
	// hidden page): readers reach it by a link, and a search finds it
	// below the visible pages of the same words.
	hiddenFactor = 0.25
)

// Section is a searchable part of a page: the text before the first heading
// (ID = page id, Anchor "") or a heading and its text.
type Section struct {
	Anchor string `bson:"anchor"` // heading slug, unique in the page; "" for the text before the first heading
	Title  string `bson:"title"`
	Body   string `bson:"body"` // a plain-text snippet of the section
}

// Page is the stored metadata of an indexed page: what a hit shows.
type Page struct {
	Organization string    `bson:"organization"`
	Space        string    `bson:"space"`
	ID           string    `bson:"page"`
	Title        string    `bson:"title"`
	Description  string    `bson:"description"`
	Path         string    `bson:"path"`      // slugs from the top, "/"-joined
	Ancestors    []string  `bson:"ancestors"` // titles of the parent pages, top first
	Sections     []Section `bson:"sections"`
	Hash         string    `bson:"hash"` // of everything above: unchanged pages are not rewritten
}

// Posting says that a term occurs in a section of a page, with a weight.
type Posting struct {
	Page    string  `bson:"page"`
	Section string  `bson:"section"` // the section's anchor
	Weight  float64 `bson:"weight"`
}

// IndexFormat is the version of Build's terms and weights. A space indexed
// with another (0: before formats were recorded) is reindexed by CatchUp,
// so that a change of the ranking reaches every space once, and spaces
// ranked against each other weigh their terms alike.
const IndexFormat = 2

// SpaceIndex is everything indexed of one space: its pages and, per term,
// its postings (at most MaxPostingsPerTerm each, highest weight first).
type SpaceIndex struct {
	Organization string
	Space        string
	// Revision is the revision the pages are of ("" when unknown); the
	// store records it with the entries (Mark).
	Revision string
	// Format is the IndexFormat the entries were built with.
	Format int
	Pages  []Page
	Terms  map[string][]Posting
}

// Mark is what a space's complete index was built from, and how.
type Mark struct {
	Organization, Revision string
	Format                 int
}

// PageKey names an indexed page.
type PageKey struct {
	Space, Page string
}

// Store keeps the index. ReplaceSpace and RemoveSpace are idempotent.
type Store interface {
	// ReplaceSpace makes idx the space's entries, dropping those it no longer has.
	ReplaceSpace(ctx context.Context, idx SpaceIndex) error
	// RemoveSpace drops every entry of a space; a space never indexed is no error.
	RemoveSpace(ctx context.Context, space string) error
	// Marks returns the Mark of each of spaces whose index is complete;
	// a space never indexed, or whose replace was interrupted, is left out.
	Marks(ctx context.Context, spaces []string) (map[string]Mark, error)
	// Reader returns a reader of the entries of org's spaces as they are
	// now: one query's reads, which see one version of each space.
	Reader(ctx context.Context, org string) (Reader, error)
}

// Reader reads the entries of one organization's spaces.
type Reader interface {
	// Postings returns the postings of terms in spaces, by term and space;
	// it reads only those terms' postings.
	Postings(ctx context.Context, spaces, terms []string) (map[string]map[string][]Posting, error)
	// Pages returns the metadata of the pages that exist among keys.
	Pages(ctx context.Context, keys []PageKey) (map[PageKey]Page, error)
	// Generation names the version of a space's entries this reader
	// reads: two readers of one organization giving a space the same
	// generation read the same entries of it ("" for a space without any).
	Generation(space string) string
}

// ErrQuery reports a missing or over-long query.
var ErrQuery = errors.New("invalid query")
