package importer

import (
	"slices"
	"strings"
	"time"

	"github.com/docspub/platform/libs/ids"
	"github.com/docspub/platform/services/content/internal/revision"
)

// Apply merges imported pages into a copy of base by path: a page whose
// path already exists gets the imported title and markdown (keeping its id),
// a new path becomes a new document page, with the missing parents created
// on the way (a group at the top, documents below). Applying the same result
// again changes nothing, and nothing is duplicated. base is not modified.
func Apply(base []revision.Page, res Result, now time.Time) []revision.Page {
	out := clone(base)
	pages := slices.Clone(res.Pages)
	// Parents first, so that an imported parent is a document, not a made-up group.
	slices.SortStableFunc(pages, func(a, b Imported) int {
		return strings.Count(a.Path, "/") - strings.Count(b.Path, "/")
	})
	for _, im := range pages {
		segs := strings.Split(strings.Trim(im.Path, "/"), "/")
		p := ensure(&out, segs, now)
		if p.Title != im.Title || p.Markdown != im.Markdown || p.Kind != revision.KindDocument {
			p.Kind, p.Title, p.Markdown, p.UpdatedAt = revision.KindDocument, im.Title, im.Markdown, now
		}
	}
	return out
}

// ensure returns the page at the path of slugs, creating it and its missing
// parents. The pointer is valid until the tree is next changed.
func ensure(tree *[]revision.Page, segs []string, now time.Time) *revision.Page {
	level := tree
	var p *revision.Page
	for depth, slug := range segs {
		i := slices.IndexFunc(*level, func(q revision.Page) bool { return q.Slug == slug })
		if i < 0 {
			kind := revision.KindDocument
			if depth == 0 && depth < len(segs)-1 {
				kind = revision.KindGroup
			}
			*level = append(*level, revision.Page{
				ID: ids.New(), Kind: kind, Title: titleOf(slug), Slug: slug,
				Pages: []revision.Page{}, CreatedAt: now, UpdatedAt: now,
			})
			i = len(*level) - 1
		}
		p = &(*level)[i]
		level = &p.Pages
	}
	return p
}

func clone(ps []revision.Page) []revision.Page {
	if ps == nil {
		return []revision.Page{}
	}
	out := make([]revision.Page, len(ps))
	for i, p := range ps {
		p.Pages = clone(p.Pages)
		out[i] = p
	}
	return out
}
