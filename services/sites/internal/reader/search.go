package reader

import (
	"context"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/services/sites/internal/limits"
)

// search answers <site>/~search?q=: content's search over the spaces of
// the site spaces listed to the reader (structure.listed), in a turn of the organization's quota
// of searches; each hit links to its page in the first site space of its
// space. Content's index leaves the text of {% if %} blocks out, and a
// page that holds them is searched here instead, in its text as rendered
// for the reader (conditionalResults): no hit, rank or snippet comes of a
// branch the reader's claims exclude.
func (r *Reader) search(ctx context.Context, rd *read) *Response {
	q := strings.TrimSpace(rd.req.Query.Get("q"))
	d := r.frame(rd, nil, nil)
	d.Title, d.Heading, d.Query = "Search", "Search", q
	rd.resp.NoIndex = true
	if q == "" {
		d.Lead = "Type words to look for in this site."
		return r.htmlResponse(rd, http.StatusOK, d)
	}
	if utf8.RuneCountInString(q) > limits.ReaderSearchQuery {
		d.Lead = "Your search is too long."
		return r.htmlResponse(rd, http.StatusBadRequest, d)
	}
	byspace := map[string]*variant{}
	var spaces []string
	for _, lv := range rd.st.listed() {
		if _, ok := byspace[lv.v.ss.Space]; !ok {
			byspace[lv.v.ss.Space] = lv.v
			spaces = append(spaces, lv.v.ss.Space)
		}
	}
	org := rd.site.Organization
	var hits []contentapi.SearchResult
	var trees map[string]*tree
	err := r.searches.Do(ctx, org, func(ctx context.Context) (err error) {
		if trees, err = r.spaceTreesBySpace(ctx, rd); err != nil {
			return err
		}
		hits, err = r.deps.Content.Search(ctx, org, spaces, q, limits.ReaderSearchResults)
		return err
	})
	if err != nil {
		return r.failed(rd, err)
	}
	for _, h := range hits {
		v := byspace[h.ID]
		if v == nil {
			continue // content answered a space that was not asked about
		}
		// Content's index keeps a deleted space until it is purged, and
		// the site's structure learns of the deletion from an event:
		// a space with hits is shown only while content says it is
		// live and the organization's (as pages are).
		if cur, err := r.currents.get(ctx, h.ID); err != nil || cur.Deleted || cur.Organization != org {
			continue
		}
		for _, p := range h.Pages {
			if t := trees[h.ID]; t == nil || t.byID[p.ID] == nil || t.byID[p.ID].conditional {
				// A page of {% if %} blocks is searched as the reader
				// reads it (conditionalResults), never in the shared index.
				continue
			}
			res := result{Title: p.Title, URL: rd.base + v.path + "/" + p.Path, Space: v.title}
			if len(p.Sections) > 0 {
				res.Snippet = p.Sections[0].Body
			}
			d.Results = append(d.Results, res)
		}
	}
	d.Results = append(d.Results, r.conditionalResults(rd, byspace, spaces, trees, q)...)
	if len(d.Results) == 0 {
		d.Lead = "Nothing matches your search."
	}
	return r.htmlResponse(rd, http.StatusOK, d)
}
