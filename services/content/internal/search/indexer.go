package search

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"sync"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/services/content/internal/revision"
)

// Head is where a space's content is now.
type Head struct {
	Space, Organization, Revision string
}

// mark is the Mark of the space's index once it is up to date.
func (h Head) mark() Mark {
	return Mark{Organization: h.Organization, Revision: h.Revision, Format: IndexFormat}
}

// Spaces tells the indexer where the spaces' content is.
type Spaces interface {
	// Head returns the head of a space (deleted or not); apierr.ErrNotFound
	// when the space is gone for good.
	Head(ctx context.Context, spaceID string) (Head, error)
	// Heads returns up to limit spaces with content whose id is after
	// after, by id.
	Heads(ctx context.Context, after string, limit int) ([]Head, error)
}

// Pages reads the pages of a revision, with their markdown.
type Pages func(ctx context.Context, revisionID string) ([]revision.Page, error)

// Bounds of the indexer's work.
const (
	// reindexAttempts bounds the rounds of Reindex when the space keeps
	// changing under it; the change that moved it last reindexes it too.
	reindexAttempts = 3
	// catchUpBatch is how many spaces CatchUp reads at a time.
	catchUpBatch = 200
	// lockStripes serialize the reindexing of one space in this process.
	lockStripes = 64
)

// Indexer keeps the index following the spaces' content. Reindex is the one
// operation that every change of a space's content calls (a merge, a Git
// import, a duplication, a transfer to another organization): it indexes
// the space's current revision unless the index already is of it. CatchUp
// runs at start and reindexes every space whose index is missing or of
// another revision, organization or IndexFormat, so an installation whose spaces were
// indexed before (or not at all, as Git-synced ones once were) is brought up
// to date once; an interrupted CatchUp resumes where the marks say.
type Indexer struct {
	store  Store
	spaces Spaces
	pages  Pages
	locks  [lockStripes]sync.Mutex
}

// NewIndexer returns an indexer writing to store.
func NewIndexer(store Store, spaces Spaces, pages Pages) *Indexer {
	return &Indexer{store: store, spaces: spaces, pages: pages}
}

func (x *Indexer) lock(space string) func() {
	h := fnv.New32a()
	_, _ = h.Write([]byte(space))
	l := &x.locks[h.Sum32()%lockStripes]
	l.Lock()
	return l.Unlock
}

// Reindex makes the space's index that of its current content: it reads the
// space's head, indexes its revision unless the index is of it already, and
// reads the head again in case the space moved on meanwhile. A space gone
// for good leaves the index.
func (x *Indexer) Reindex(ctx context.Context, spaceID string) error {
	defer x.lock(spaceID)()
	for range reindexAttempts {
		h, err := x.spaces.Head(ctx, spaceID)
		if errors.Is(err, apierr.ErrNotFound) {
			return x.store.RemoveSpace(ctx, spaceID)
		}
		if err != nil {
			return fmt.Errorf("reindex space %s: %w", spaceID, err)
		}
		marks, err := x.store.Marks(ctx, []string{spaceID})
		if err != nil {
			return fmt.Errorf("reindex space %s: %w", spaceID, err)
		}
		if m, ok := marks[spaceID]; ok && m == h.mark() {
			return nil
		}
		pages, err := x.pages(ctx, h.Revision)
		if err != nil {
			return fmt.Errorf("reindex space %s: revision %s: %w", spaceID, h.Revision, err)
		}
		idx := Build(h.Organization, spaceID, pages)
		idx.Revision = h.Revision
		if err := x.store.ReplaceSpace(ctx, idx); err != nil {
			return fmt.Errorf("reindex space %s: %w", spaceID, err)
		}
	}
	return nil
}

// CatchUp reindexes every space whose index is missing or not of its
// current revision and organization, a batch of spaces at a time, and
// returns how many it reindexed. A space that fails is skipped (the first
// error is returned at the end); the next CatchUp tries it again.
func (x *Indexer) CatchUp(ctx context.Context) (int, error) {
	n, after := 0, ""
	var first error
	for {
		heads, err := x.spaces.Heads(ctx, after, catchUpBatch)
		if err != nil {
			return n, fmt.Errorf("search catch-up: %w", err)
		}
		ids := make([]string, len(heads))
		for i, h := range heads {
			ids[i] = h.Space
		}
		marks, err := x.store.Marks(ctx, ids)
		if err != nil {
			return n, fmt.Errorf("search catch-up: %w", err)
		}
		for _, h := range heads {
			if m, ok := marks[h.Space]; ok && m == h.mark() {
				continue
			}
			if err := x.Reindex(ctx, h.Space); err != nil {
				if ctx.Err() != nil {
					return n, ctx.Err()
				}
				if first == nil {
					first = err
				}
				continue
			}
			n++
		}
		if len(heads) < catchUpBatch {
			return n, first
		}
		after = heads[len(heads)-1].Space
	}
}
