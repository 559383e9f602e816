package content

import (
	"context"
	"errors"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/services/content/internal/revision"
	"github.com/docspub/platform/services/content/internal/revisionmongo"
	"github.com/docspub/platform/services/content/internal/search"
	"github.com/docspub/platform/services/content/internal/spacemongo"
)

// searchHeads tells the search indexer where the spaces' content is
// (search.Spaces): a space by id, and the spaces with content in id order.
type searchHeads struct {
	spaces *spacemongo.Store
}

func (h searchHeads) Head(ctx context.Context, id string) (search.Head, error) {
	sp, err := h.spaces.Space(ctx, id)
	if err != nil {
		return search.Head{}, err
	}
	if sp.Revision == "" {
		return search.Head{}, apierr.NotFound("space %s has no content", id)
	}
	return search.Head{Space: sp.ID, Organization: sp.Organization, Revision: sp.Revision}, nil
}

func (h searchHeads) Heads(ctx context.Context, after string, limit int) ([]search.Head, error) {
	spaces, err := h.spaces.WithContent(ctx, after, limit)
	if err != nil {
		return nil, err
	}
	out := make([]search.Head, len(spaces))
	for i, sp := range spaces {
		out[i] = search.Head{Space: sp.ID, Organization: sp.Organization, Revision: sp.Revision}
	}
	return out, nil
}

// revisionPages reads the pages of a revision for the search indexer.
func revisionPages(store *revisionmongo.Store) search.Pages {
	return func(ctx context.Context, id string) ([]revision.Page, error) {
		r, err := store.Get(ctx, id)
		if errors.Is(err, apierr.ErrNotFound) {
			return nil, err
		}
		return r.Pages, err
	}
}
